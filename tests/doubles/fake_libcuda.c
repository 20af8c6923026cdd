/* Test double for libcuda.so.1, the CUDA driver API. It answers what its
 * scenario says (tests/doubles/README.md): the driver version, cuInit's
 * result or behaviour (hang, segfault), and N devices with their names,
 * compute capabilities, memory, UUIDs and PCI bus ids. Only the calls cudiag
 * makes (src/child/driver_api_child.cpp) exist. */
#include <stddef.h>

#include "double_scenario.h"

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

static void load(void) { scenario_load((const void*)&load); }

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
