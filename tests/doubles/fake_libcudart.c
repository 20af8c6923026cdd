/* Test double for libcudart.so (the CUDA runtime). Its own version comes
 * from the scenario; what it says about the driver comes from the libcuda
 * the process has loaded globally (cudiag's cudart child preloads the
 * loader's pick, see src/child/runtime_child.cpp), looked up with
 * dlsym(RTLD_DEFAULT) the way the real runtime ends up using libcuda.so.1.
 * It never loads a libcuda itself, so a machine without one answers like a
 * machine without a driver. */
#include "double_scenario.h"

typedef int cudaError_t;
typedef int (*int_out_fn)(int*);
typedef int (*init_fn)(unsigned);

enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorInitializationError = 3,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
};

static void load(void) { scenario_load(); }

static int runtime_version(void) { return (int)scenario_int("runtime_version", 12040); }

/* dlsym's object pointer as a function pointer, without a cast ISO C forbids. */
static void driver_symbol(const char* name, void* fn_out) {
  void* sym = dlsym(RTLD_DEFAULT, name);
  memcpy(fn_out, &sym, sizeof sym);
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  load();
  if (version == NULL) return cudaErrorInvalidValue;
  *version = runtime_version();
  return cudaSuccess;
}

/* Like the real one: 0 and success when there is no driver at all. */
cudaError_t cudaDriverGetVersion(int* version) {
  load();
  if (version == NULL) return cudaErrorInvalidValue;
  *version = 0;
  int_out_fn get = NULL;
  driver_symbol("cuDriverGetVersion", &get);
  if (get != NULL && get(version) != 0) *version = 0;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int* count) {
  load();
  if (count == NULL) return cudaErrorInvalidValue;
  *count = 0;
  long long forced = scenario_int("cudaGetDeviceCount.result", -1);
  if (forced >= 0) return (cudaError_t)forced;
  int_out_fn get_version = NULL, get_count = NULL;
  init_fn init = NULL;
  driver_symbol("cuDriverGetVersion", &get_version);
  driver_symbol("cuInit", &init);
  driver_symbol("cuDeviceGetCount", &get_count);
  int driver = 0;
  if (get_version == NULL || init == NULL || get_count == NULL || get_version(&driver) != 0) {
    return cudaErrorInsufficientDriver;
  }
  /* Minor version compatibility: any driver of the same CUDA major will do. */
  if (driver / 1000 < runtime_version() / 1000) return cudaErrorInsufficientDriver;
  int r = init(0);
  if (r == 100) return cudaErrorNoDevice;
  if (r != 0) return cudaErrorInitializationError;
  return get_count(count) == 0 ? cudaSuccess : cudaErrorInitializationError;
}
