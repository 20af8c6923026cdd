/* The floor for `cudiag test`: the least a program can do and still prove a
 * GPU runs a kernel -- cuInit, device 0's primary context, load the same PTX
 * cudiag embeds (src/kernel_test/kernels/axpy.ptx, JIT path), launch it over
 * 1M floats, copy back and check every element. No child processes, no
 * error names, no SASS or NVRTC path. Built by bench/kernel_test_speed.py.
 * usage: kernel_test_floor AXPY_PTX */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*fn_int)();
#define N (1u << 20)

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  FILE* f = fopen(argv[1], "rb");
  if (f == NULL) return 2;
  static char ptx[1 << 16];
  size_t len = fread(ptx, 1, sizeof ptx - 1, f);
  fclose(f);
  ptx[len] = '\0';
  void* cu = dlopen("libcuda.so.1", RTLD_NOW);
  if (cu == NULL) {
    printf("no libcuda.so.1\n");
    return 1;
  }
#define SYM(name) ((fn_int)dlsym(cu, name))
  int r = SYM("cuInit")(0);
  if (r != 0) {
    printf("cuInit=%d\n", r);
    return 1;
  }
  int dev = 0;
  void* ctx = NULL;
  void* mod = NULL;
  void* fn = NULL;
  unsigned long long x = 0, y = 0;
  static float hx[N], hy[N];
  for (unsigned i = 0; i < N; ++i) hx[i] = (float)rand() / (float)RAND_MAX;
  float a = 1.5f, b = 0.25f;
  unsigned n = N;
  void* params[] = {&x, &y, &a, &b, &n};
  if ((r = SYM("cuDeviceGet")(&dev, 0)) || (r = SYM("cuDevicePrimaryCtxRetain")(&ctx, dev)) ||
      (r = SYM("cuCtxSetCurrent")(ctx)) || (r = SYM("cuModuleLoadData")(&mod, ptx)) ||
      (r = SYM("cuModuleGetFunction")(&fn, mod, "cudiag_axpy")) ||
      (r = SYM("cuMemAlloc_v2")(&x, sizeof hx)) || (r = SYM("cuMemAlloc_v2")(&y, sizeof hy)) ||
      (r = SYM("cuMemcpyHtoD_v2")(x, hx, sizeof hx)) ||
      (r = SYM("cuLaunchKernel")(fn, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL)) ||
      (r = SYM("cuCtxSynchronize")()) || (r = SYM("cuMemcpyDtoH_v2")(hy, y, sizeof hy))) {
    printf("failed: %d\n", r);
    return 1;
  }
  for (unsigned i = 0; i < N; ++i) {
    float want = fmaf(a, hx[i], b);
    if (memcmp(&want, &hy[i], sizeof want) != 0) {
      printf("element %u wrong\n", i);
      return 1;
    }
  }
  printf("ok\n");
  return 0;
}
