/* Test double for libnvidia-ml.so.1 (NVML). It answers what its scenario
 * says (tests/doubles/README.md): nvmlInit_v2's result or behaviour, the
 * driver, CUDA and NVML versions, and N GPUs with name, UUID, PCI info,
 * compute capability, memory, MIG mode and persistence mode. The structs
 * follow nvml.h, as src/child/nvml_child.cpp reads them. */
#include "double_scenario.h"

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st {
  unsigned index;
} * nvmlDevice_t;

typedef struct {
  char busIdLegacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId; /* (device id << 16) | vendor id */
  unsigned pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
};

#define MAX_DEVICES 64

static struct nvmlDevice_st devices[MAX_DEVICES];
static int init_count = 0;

static void load(void) { scenario_load(); }

static unsigned device_count(void) {
  long long n = scenario_int("device_count", 0);
  return n < 0 ? 0u : n > MAX_DEVICES ? (unsigned)MAX_DEVICES : (unsigned)n;
}

static int device_index(nvmlDevice_t d) {
  if (d == NULL || d < devices || d >= devices + MAX_DEVICES || d->index >= device_count()) return -1;
  return (int)d->index;
}

#define REQUIRE_INIT() \
  do {                 \
    if (init_count <= 0) return NVML_ERROR_UNINITIALIZED; \
  } while (0)

#define DEVICE_OR_FAIL(d, i)                            \
  REQUIRE_INIT();                                       \
  int i = device_index(d);                              \
  if (i < 0) return NVML_ERROR_INVALID_ARGUMENT

static nvmlReturn_t copy_string(char* out, unsigned len, const char* text) {
  int r = scenario_copy(out, len, text);
  return r == 0 ? NVML_SUCCESS : r > 0 ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlInit_v2(void) {
  load();
  scenario_behave("nvmlInit");
  nvmlReturn_t r = (nvmlReturn_t)scenario_int("nvmlInit.result", NVML_SUCCESS);
  if (r == NVML_SUCCESS) ++init_count;
  return r;
}

nvmlReturn_t nvmlShutdown(void) {
  REQUIRE_INIT();
  --init_count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned len) {
  REQUIRE_INIT();
  return copy_string(version, len, scenario_str("driver_version", "550.54.15"));
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned len) {
  REQUIRE_INIT();
  return copy_string(version, len, scenario_str("nvml_version", "12.550.54.15"));
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* version) {
  REQUIRE_INIT();
  if (version == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *version = (int)scenario_int("cuda_driver_version", 12040);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* version) { return nvmlSystemGetCudaDriverVersion(version); }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) {
  REQUIRE_INIT();
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *count = device_count();
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t* device) {
  REQUIRE_INIT();
  if (device == NULL || index >= device_count()) return NVML_ERROR_INVALID_ARGUMENT;
  devices[index].index = index;
  *device = &devices[index];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned len) {
  DEVICE_OR_FAIL(device, i);
  return copy_string(name, len, scenario_device_str(i, "name", "Fake NVML Device"));
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned len) {
  DEVICE_OR_FAIL(device, i);
  char fallback[64];
  snprintf(fallback, sizeof fallback, "GPU-00112233-4455-6677-8899-aabbccddee%02x", (unsigned)i);
  return copy_string(uuid, len, scenario_device_str(i, "uuid", fallback));
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  DEVICE_OR_FAIL(device, i);
  if (pci == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  memset(pci, 0, sizeof *pci);
  char fallback[32];
  snprintf(fallback, sizeof fallback, "00000000:%02X:00.0", (unsigned)i + 1u);
  const char* bus_id = scenario_device_str(i, "pci_bus_id", fallback);
  snprintf(pci->busId, sizeof pci->busId, "%s", bus_id);
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%s", bus_id + (strlen(bus_id) > 12 ? strlen(bus_id) - 12 : 0));
  if (sscanf(bus_id, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device) != 3) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned device_id = (unsigned)scenario_device_int(i, "pci_device_id", 0x2330);
  pci->pciDeviceId = (device_id << 16) | 0x10deu;
  pci->pciSubSystemId = ((unsigned)scenario_device_int(i, "pci_subsystem_id", 0x16c1) << 16) | 0x10deu;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  DEVICE_OR_FAIL(device, i);
  if (major == NULL || minor == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (sscanf(scenario_device_str(i, "cc", "9.0"), "%d.%d", major, minor) != 2) return NVML_ERROR_INVALID_ARGUMENT;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  DEVICE_OR_FAIL(device, i);
  if (memory == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  memory->total = (unsigned long long)scenario_device_int(i, "memory", 1LL << 30);
  memory->used = (unsigned long long)scenario_device_int(i, "memory_used", 0);
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

/* "enabled", "disabled" or "unsupported" (NVML_ERROR_NOT_SUPPORTED, as on GPUs without MIG). */
static int enable_state(const char* text, unsigned* out) {
  if (strcmp(text, "enabled") == 0) *out = 1;
  else if (strcmp(text, "disabled") == 0) *out = 0;
  else return -1;
  return 0;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned* current, unsigned* pending) {
  DEVICE_OR_FAIL(device, i);
  if (current == NULL || pending == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  const char* mode = scenario_device_str(i, "mig", "unsupported");
  if (enable_state(mode, current) != 0) return NVML_ERROR_NOT_SUPPORTED;
  if (enable_state(scenario_device_str(i, "mig_pending", mode), pending) != 0) return NVML_ERROR_NOT_SUPPORTED;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, int* mode) {
  DEVICE_OR_FAIL(device, i);
  if (mode == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned state = 0;
  if (enable_state(scenario_device_str(i, "persistence", "disabled"), &state) != 0) return NVML_ERROR_NOT_SUPPORTED;
  *mode = (int)state;
  return NVML_SUCCESS;
}
