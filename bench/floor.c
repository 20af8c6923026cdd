/* The floor for a CUDA environment report: load libcuda and libnvidia-ml
 * and make the three calls every report needs. Nothing can be faster and
 * still ask the driver. Built by bench/report_speed.py. */
#include <dlfcn.h>
#include <stdio.h>

int main(void) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  int version = 0;
  int init = -1;
  int nvml_init = -1;
  if (cuda) {
    int (*get_version)(int*) = (int (*)(int*))dlsym(cuda, "cuDriverGetVersion");
    int (*cu_init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
    if (get_version) get_version(&version);
    if (cu_init) init = cu_init(0);
  }
  if (nvml) {
    int (*nvml_init_v2)(void) = (int (*)(void))dlsym(nvml, "nvmlInit_v2");
    if (nvml_init_v2) nvml_init = nvml_init_v2();
  }
  printf("cuDriverGetVersion=%d cuInit=%d nvmlInit_v2=%d\n", version, init, nvml_init);
  return 0;
}
