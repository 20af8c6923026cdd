/* Test double for libcuda.so.1, the CUDA driver API. It answers what its
 * scenario says (tests/doubles/README.md): the driver version, cuInit's
 * result or behaviour (hang, segfault), and N devices with their names,
 * compute capabilities, memory, UUIDs and PCI bus ids. Only the calls cudiag
 * makes (src/child/driver_api_child.cpp, src/child/kernel_test_child*.cpp)
 * exist.
 *
 * The kernel test's calls (contexts, modules, memory, launches) each answer
 * "<call>.result" and obey "<call>.behaviour" (hang, segfault). "Device"
 * memory is host memory, and a launch of the one kernel it knows,
 * cudiag_axpy, computes y[i] = fmaf(a, x[i], b) on the CPU over exactly the
 * threads the grid covers, so cudiag's element-by-element check is real;
 * "kernel.wrong_element=N" makes element N wrong. cuModuleLoadData tells PTX,
 * fatbin and ELF cubin apart (result per kind: "cuModuleLoadData.<kind>.result")
 * and appends what it received to $CUDIAG_DOUBLE_RECORD, so a test can check
 * the JIT path was handed the embedded PTX. */
#include <stddef.h>

#include "double_scenario.h" /* first: it defines _GNU_SOURCE */

#include <math.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct {
  char bytes[16];
} CUuuid;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_INVALID_DEVICE = 101,
};

#define ATTR_CC_MAJOR 75
#define ATTR_CC_MINOR 76

static int initialized = 0;

static void load(void) { scenario_load(); }

static int device_count(void) { return (int)scenario_int("device_count", 0); }

static int valid_device(CUdevice d) { return initialized && d >= 0 && d < device_count(); }

CUresult cuDriverGetVersion(int* version) {
  load();
  if (version == NULL) return CUDA_ERROR_INVALID_VALUE;
  *version = (int)scenario_int("driver_version", 12040);
  return CUDA_SUCCESS;
}

CUresult cuInit(unsigned int flags) {
  (void)flags;
  load();
  scenario_behave("cuInit");
  CUresult r = (CUresult)scenario_int("cuInit.result", CUDA_SUCCESS);
  initialized = r == CUDA_SUCCESS;
  return r;
}

CUresult cuDeviceGetCount(int* count) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (count == NULL) return CUDA_ERROR_INVALID_VALUE;
  *count = device_count();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (device == NULL) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal < 0 || ordinal >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  if (!valid_device(d)) return initialized ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (name == NULL || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  /* Like the real one: truncates to len - 1 characters. */
  snprintf(name, (size_t)len, "%s", scenario_device_str(d, "name", "Fake CUDA Device"));
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice d) {
  if (!valid_device(d)) return initialized ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (value == NULL) return CUDA_ERROR_INVALID_VALUE;
  int major = 0, minor = 0;
  if (sscanf(scenario_device_str(d, "cc", "9.0"), "%d.%d", &major, &minor) != 2) return CUDA_ERROR_INVALID_VALUE;
  if (attribute == ATTR_CC_MAJOR) *value = major;
  else if (attribute == ATTR_CC_MINOR) *value = minor;
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) {
  if (!valid_device(d)) return initialized ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (bytes == NULL) return CUDA_ERROR_INVALID_VALUE;
  *bytes = (size_t)scenario_device_int(d, "memory", 1LL << 30);
  return CUDA_SUCCESS;
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" -> 16 bytes. */
static int parse_uuid(const char* text, CUuuid* out) {
  if (strncmp(text, "GPU-", 4) == 0) text += 4;
  int n = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p == '-') continue;
    unsigned hi = 0;
    if (n >= 32 || sscanf(p, "%1x", &hi) != 1) return -1;
    if (n % 2 == 0) out->bytes[n / 2] = (char)(hi << 4);
    else out->bytes[n / 2] = (char)(out->bytes[n / 2] | (char)hi);
    ++n;
  }
  return n == 32 ? 0 : -1;
}

CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice d) {
  if (!valid_device(d)) return initialized ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (uuid == NULL) return CUDA_ERROR_INVALID_VALUE;
  const char* text = scenario_device_str(d, "uuid", NULL);
  if (text != NULL) return parse_uuid(text, uuid) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  for (int i = 0; i < 16; ++i) uuid->bytes[i] = (char)(i == 15 ? d : 0x11 * (i % 16));
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice d) { return cuDeviceGetUuid(uuid, d); }

CUresult cuDeviceGetPCIBusId(char* bus_id, int len, CUdevice d) {
  if (!valid_device(d)) return initialized ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (bus_id == NULL || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  char fallback[32];
  snprintf(fallback, sizeof fallback, "0000:%02X:00.0", (unsigned)d + 1u);
  snprintf(bus_id, (size_t)len, "%s", scenario_device_str(d, "pci_bus_id", fallback));
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ kernel test */

typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUstream;
typedef unsigned long long CUdeviceptr;

enum {
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NOT_FOUND = 500,
};

static int fake_context = 0;      /* the primary context's identity */
static int context_current = 0;   /* cuCtxSetCurrent was given it */
static char fake_module = 0;      /* every loaded module is this one */
static char fake_function = 0;    /* cudiag_axpy */

/* The scenario's answer for one call: obeys its behaviour, then its result. */
static CUresult scripted(const char* call) {
  load();
  scenario_behave(call);
  char key[160];
  snprintf(key, sizeof key, "%s.result", call);
  return (CUresult)scenario_int(key, CUDA_SUCCESS);
}

static CUresult needs_context(const char* call) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!context_current) return CUDA_ERROR_INVALID_CONTEXT;
  return scripted(call);
}

static void record(const char* line) {
  const char* path = getenv("CUDIAG_DOUBLE_RECORD");
  if (path == NULL || path[0] == '\0') return;
  FILE* f = fopen(path, "a");
  if (f == NULL) return;
  fprintf(f, "%s\n", line);
  fclose(f);
}

/* The value after `directive` on its line in PTX text ("6.0" after ".version"). */
static void ptx_value(const char* ptx, const char* directive, char* out, size_t len) {
  out[0] = '\0';
  const char* p = ptx;
  size_t dn = strlen(directive);
  while ((p = strstr(p, directive)) != NULL) {
    if ((p == ptx || p[-1] == '\n') && (p[dn] == ' ' || p[dn] == '\t')) {
      p += dn;
      while (*p == ' ' || *p == '\t') ++p;
      size_t n = strcspn(p, " \t\r\n");
      if (n >= len) n = len - 1;
      memcpy(out, p, n);
      out[n] = '\0';
      return;
    }
    p += dn;
  }
}

/* True when the kernel's name occurs in the first `len` bytes. */
static int has_entry(const unsigned char* image, size_t len) {
  const char* name = "cudiag_axpy";
  size_t n = strlen(name);
  for (size_t i = 0; i + n <= len; ++i) {
    if (memcmp(image + i, name, n) == 0) return 1;
  }
  return 0;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice d) {
  if (!valid_device(d)) return initialized ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (ctx == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = scripted("cuDevicePrimaryCtxRetain");
  if (r == CUDA_SUCCESS) *ctx = &fake_context;
  return r;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = scripted("cuCtxSetCurrent");
  if (r == CUDA_SUCCESS) context_current = ctx == &fake_context;
  return r;
}

CUresult cuCtxSynchronize(void) { return needs_context("cuCtxSynchronize"); }

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!context_current) return CUDA_ERROR_INVALID_CONTEXT;
  if (module == NULL || image == NULL) return CUDA_ERROR_INVALID_VALUE;
  const unsigned char* bytes = (const unsigned char*)image;
  const char* kind = "ptx";
  size_t scan = 0;
  char line[512];
  if (bytes[0] == 0x50 && bytes[1] == 0xed && bytes[2] == 0x55 && bytes[3] == 0xba) {
    /* fatbin: magic 0xBA55ED50, then version, header size and a 64-bit payload size. */
    kind = "fatbin";
    uint64_t payload = 0;
    uint16_t header = 0;
    memcpy(&header, bytes + 6, sizeof header);
    memcpy(&payload, bytes + 8, sizeof payload);
    scan = (size_t)header + (size_t)payload;
    snprintf(line, sizeof line, "cuModuleLoadData kind=fatbin bytes=%zu entry=%s", scan,
             has_entry(bytes, scan) ? "cudiag_axpy" : "none");
  } else if (bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') {
    kind = "cubin";
    uint64_t shoff = 0;
    uint16_t shentsize = 0, shnum = 0;
    memcpy(&shoff, bytes + 0x28, sizeof shoff);
    memcpy(&shentsize, bytes + 0x3a, sizeof shentsize);
    memcpy(&shnum, bytes + 0x3c, sizeof shnum);
    scan = (size_t)shoff + (size_t)shentsize * shnum;
    snprintf(line, sizeof line, "cuModuleLoadData kind=cubin bytes=%zu entry=%s", scan,
             has_entry(bytes, scan) ? "cudiag_axpy" : "none");
  } else {
    const char* text = (const char*)image;
    scan = strlen(text);
    char version[32], target[32];
    ptx_value(text, ".version", version, sizeof version);
    ptx_value(text, ".target", target, sizeof target);
    int entry = strstr(text, ".entry cudiag_axpy(") != NULL;
    snprintf(line, sizeof line, "cuModuleLoadData kind=ptx version=%s target=%s entry=%s", version, target,
             entry ? "cudiag_axpy" : "none");
  }
  record(line);
  char call[64];
  snprintf(call, sizeof call, "cuModuleLoadData.%s", kind);
  CUresult r = scripted("cuModuleLoadData");
  if (r == CUDA_SUCCESS) r = scripted(call);
  if (r == CUDA_SUCCESS && !has_entry(bytes, scan)) r = CUDA_ERROR_INVALID_IMAGE;
  if (r == CUDA_SUCCESS) *module = &fake_module;
  return r;
}

CUresult cuModuleGetFunction(CUfunction* fn, CUmodule module, const char* name) {
  if (module != &fake_module || fn == NULL || name == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = needs_context("cuModuleGetFunction");
  if (r != CUDA_SUCCESS) return r;
  if (strcmp(name, "cudiag_axpy") != 0) return CUDA_ERROR_NOT_FOUND;
  *fn = &fake_function;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) { return module == &fake_module ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
  if (ptr == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = needs_context("cuMemAlloc");
  if (r != CUDA_SUCCESS) return r;
  void* p = malloc(bytes);
  if (p == NULL) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  *ptr = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
  free((void*)(uintptr_t)ptr);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  CUresult r = needs_context("cuMemcpyHtoD");
  if (r == CUDA_SUCCESS) memcpy((void*)(uintptr_t)dst, src, bytes);
  return r;
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  CUresult r = needs_context("cuMemcpyDtoH");
  if (r == CUDA_SUCCESS) memcpy(dst, (const void*)(uintptr_t)src, bytes);
  return r;
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t count) {
  CUresult r = needs_context("cuMemsetD32");
  if (r != CUDA_SUCCESS) return r;
  unsigned int* p = (unsigned int*)(uintptr_t)dst;
  for (size_t i = 0; i < count; ++i) p[i] = value;
  return CUDA_SUCCESS;
}

/* cudiag_axpy(const float* x, float* y, float a, float b, unsigned n), run on the CPU. */
CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream, void** params, void** extra) {
  (void)gy, (void)gz, (void)by, (void)bz, (void)shared, (void)stream, (void)extra;
  if (fn != &fake_function || params == NULL) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = needs_context("cuLaunchKernel");
  if (r != CUDA_SUCCESS) return r;
  const float* x = (const float*)(uintptr_t) * (CUdeviceptr*)params[0];
  float* y = (float*)(uintptr_t) * (CUdeviceptr*)params[1];
  float a = *(float*)params[2];
  float b = *(float*)params[3];
  unsigned n = *(unsigned*)params[4];
  unsigned long long threads = (unsigned long long)gx * bx;
  for (unsigned long long i = 0; i < threads && i < n; ++i) y[i] = fmaf(a, x[i], b);
  long long wrong = scenario_int("kernel.wrong_element", -1);
  if (wrong >= 0 && (unsigned long long)wrong < n) y[wrong] = nextafterf(y[wrong], INFINITY);
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  if (name == NULL) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
    case 100: *name = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
    case 200: *name = "CUDA_ERROR_INVALID_IMAGE"; return CUDA_SUCCESS;
    case 222: *name = "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"; return CUDA_SUCCESS;
    default: *name = "CUDA_ERROR_UNKNOWN"; return CUDA_SUCCESS;
  }
}
