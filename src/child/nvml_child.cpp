// Child probe "nvml": loads one libnvidia-ml and asks NVML about the driver
// and each GPU, the way nvidia-smi would.
#include "child/child_probe.h"
#include "child/dl.h"

namespace cudiag::child {
namespace {

using NvmlReturn = int;
using NvmlDevice = void*;

// nvmlPciInfo_t (nvml.h, the _v3 layout).
struct NvmlPciInfo {
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;  // (device id << 16) | vendor id
  unsigned pci_subsystem_id;
  char bus_id[32];
};

struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

Json probe_device(const Library& lib, unsigned index) {
  Json dev = Json::object();
  dev["index"] = index;
  auto by_index = lib.symbol<NvmlReturn (*)(unsigned, NvmlDevice*)>("nvmlDeviceGetHandleByIndex_v2");
  NvmlDevice handle = nullptr;
  if (by_index == nullptr) {
    dev["error"] = "nvmlDeviceGetHandleByIndex_v2 missing";
    return dev;
  }
  if (NvmlReturn r = by_index(index, &handle); r != 0) {
    dev["error_code"] = r;
    return dev;
  }
  char buf[256] = {};
  if (auto fn = lib.symbol<NvmlReturn (*)(NvmlDevice, char*, unsigned)>("nvmlDeviceGetName");
      fn && fn(handle, buf, 255) == 0)
    dev["name"] = buf;
  if (auto fn = lib.symbol<NvmlReturn (*)(NvmlDevice, char*, unsigned)>("nvmlDeviceGetUUID");
      fn && fn(handle, buf, 255) == 0)
    dev["uuid"] = buf;
  auto pci = lib.symbol<NvmlReturn (*)(NvmlDevice, NvmlPciInfo*)>("nvmlDeviceGetPciInfo_v3");
  if (pci != nullptr) {
    NvmlPciInfo info{};
    if (pci(handle, &info) == 0) {
      dev["pci_bus_id"] = info.bus_id;
      dev["pci_device_id"] = info.pci_device_id >> 16;
    }
  }
  if (auto fn = lib.symbol<NvmlReturn (*)(NvmlDevice, int*, int*)>("nvmlDeviceGetCudaComputeCapability")) {
    int major = 0;
    int minor = 0;
    if (fn(handle, &major, &minor) == 0)
      dev["compute_capability"] = std::to_string(major) + "." + std::to_string(minor);
  }
  // nvmlBrandType_t as a number: libnvidia-container turns it into the
  // brand= value of NVIDIA_REQUIRE_* (src/driver.c), which the rules do.
  if (auto fn = lib.symbol<NvmlReturn (*)(NvmlDevice, int*)>("nvmlDeviceGetBrand")) {
    int brand = 0;
    if (NvmlReturn r = fn(handle, &brand); r == 0) {
      dev["brand"] = brand;
    } else {
      dev["brand_result"] = r;
    }
  }
  if (auto fn = lib.symbol<NvmlReturn (*)(NvmlDevice, NvmlMemory*)>("nvmlDeviceGetMemoryInfo")) {
    NvmlMemory mem{};
    if (fn(handle, &mem) == 0) dev["memory_bytes"] = mem.total;
  }
  if (auto fn = lib.symbol<NvmlReturn (*)(NvmlDevice, unsigned*, unsigned*)>("nvmlDeviceGetMigMode")) {
    unsigned current = 0;
    unsigned pending = 0;
    NvmlReturn r = fn(handle, &current, &pending);
    if (r == 0) {
      dev["mig_mode"] = current == 1 ? "enabled" : "disabled";
      dev["mig_mode_pending"] = pending == 1 ? "enabled" : "disabled";
    } else {
      dev["mig_mode_result"] = r;  // 3 NOT_SUPPORTED on GPUs without MIG
    }
  }
  if (auto fn = lib.symbol<NvmlReturn (*)(NvmlDevice, int*)>("nvmlDeviceGetPersistenceMode")) {
    int mode = 0;
    if (fn(handle, &mode) == 0) dev["persistence_mode"] = mode == 1 ? "enabled" : "disabled";
  }
  return dev;
}

Json probe_nvml(const std::vector<std::string>& args) {
  Json out = Json::object();
  if (args.empty()) throw std::runtime_error("nvml probe needs a library path");
  Stopwatch load_time;
  Library lib(args[0]);
  out["load_ms"] = load_time.ms();
  if (!lib.loaded()) {
    out["load_error"] = lib.error();
    return out;
  }
  out["loaded_path"] = lib.loaded_path();
  Json calls = Json::object();
  auto init = lib.symbol<NvmlReturn (*)()>("nvmlInit_v2");
  if (init == nullptr) {
    calls["nvmlInit_v2"] = missing_symbol("nvmlInit_v2");
    out["calls"] = calls;
    return out;
  }
  Stopwatch t;
  NvmlReturn r = init();
  calls["nvmlInit_v2"] = call_record(r, t.ms());
  if (r == 0) {
    char buf[128] = {};
    if (auto fn = lib.symbol<NvmlReturn (*)(char*, unsigned)>("nvmlSystemGetDriverVersion")) {
      NvmlReturn rv = fn(buf, sizeof buf - 1);
      calls["nvmlSystemGetDriverVersion"] = call_record(rv, 0);
      if (rv == 0) calls["nvmlSystemGetDriverVersion"]["value"] = buf;
    }
    if (auto fn = lib.symbol<NvmlReturn (*)(char*, unsigned)>("nvmlSystemGetNVMLVersion")) {
      if (fn(buf, sizeof buf - 1) == 0) out["nvml_version"] = buf;
    }
    auto cuda = lib.symbol<NvmlReturn (*)(int*)>("nvmlSystemGetCudaDriverVersion_v2");
    if (cuda == nullptr) cuda = lib.symbol<NvmlReturn (*)(int*)>("nvmlSystemGetCudaDriverVersion");
    if (cuda != nullptr) {
      int v = 0;
      NvmlReturn rv = cuda(&v);
      calls["nvmlSystemGetCudaDriverVersion"] = call_record(rv, 0);
      if (rv == 0) calls["nvmlSystemGetCudaDriverVersion"]["value"] = v;
    }
    if (auto count_fn = lib.symbol<NvmlReturn (*)(unsigned*)>("nvmlDeviceGetCount_v2")) {
      unsigned count = 0;
      NvmlReturn rc = count_fn(&count);
      calls["nvmlDeviceGetCount_v2"] = call_record(rc, 0);
      if (rc == 0) {
        calls["nvmlDeviceGetCount_v2"]["value"] = count;
        Json devices = Json::array();
        for (unsigned i = 0; i < count && i < 256; ++i) devices.push_back(probe_device(lib, i));
        out["devices"] = devices;
      }
    }
    if (auto shutdown = lib.symbol<NvmlReturn (*)()>("nvmlShutdown")) shutdown();
  }
  out["calls"] = calls;
  return out;
}

const RegisterChildProbe kRegister{"nvml", probe_nvml};

}  // namespace
}  // namespace cudiag::child
