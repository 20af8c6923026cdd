// Child probe "libcuda": loads one libcuda and asks it what the CUDA driver
// API knows: cuDriverGetVersion, cuInit, and each device.
#include <cstdio>

#include "child/child_probe.h"
#include "child/dl.h"

namespace cudiag::child {
namespace {

using CuResult = int;
using CuDevice = int;
struct CuUuid {
  unsigned char bytes[16];
};

// CUdevice_attribute values from cuda.h.
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;

std::string format_uuid(const CuUuid& u) {
  char buf[64];
  const unsigned char* b = u.bytes;
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return buf;
}

Json probe_device(const Library& lib, int ordinal) {
  Json dev = Json::object();
  dev["ordinal"] = ordinal;
  auto get = lib.symbol<CuResult (*)(CuDevice*, int)>("cuDeviceGet");
  CuDevice handle = 0;
  if (get == nullptr || get(&handle, ordinal) != 0) {
    dev["error"] = "cuDeviceGet failed";
    return dev;
  }
  if (auto name = lib.symbol<CuResult (*)(char*, int, CuDevice)>("cuDeviceGetName")) {
    char buf[256] = {};
    if (name(buf, sizeof buf - 1, handle) == 0) dev["name"] = buf;
  }
  if (auto attr = lib.symbol<CuResult (*)(int*, int, CuDevice)>("cuDeviceGetAttribute")) {
    int major = 0;
    int minor = 0;
    if (attr(&major, kAttrComputeCapabilityMajor, handle) == 0 &&
        attr(&minor, kAttrComputeCapabilityMinor, handle) == 0) {
      dev["compute_capability"] = std::to_string(major) + "." + std::to_string(minor);
    }
  }
  if (auto mem = lib.symbol<CuResult (*)(std::size_t*, CuDevice)>("cuDeviceTotalMem_v2")) {
    std::size_t bytes = 0;
    if (mem(&bytes, handle) == 0) dev["memory_bytes"] = bytes;
  }
  auto uuid = lib.symbol<CuResult (*)(CuUuid*, CuDevice)>("cuDeviceGetUuid_v2");
  if (uuid == nullptr) uuid = lib.symbol<CuResult (*)(CuUuid*, CuDevice)>("cuDeviceGetUuid");
  if (uuid != nullptr) {
    CuUuid u{};
    if (uuid(&u, handle) == 0) dev["uuid"] = format_uuid(u);
  }
  if (auto bus = lib.symbol<CuResult (*)(char*, int, CuDevice)>("cuDeviceGetPCIBusId")) {
    char buf[64] = {};
    if (bus(buf, sizeof buf - 1, handle) == 0) dev["pci_bus_id"] = buf;
  }
  return dev;
}

Json probe_libcuda(const std::vector<std::string>& args) {
  Json out = Json::object();
  if (args.empty()) throw std::runtime_error("libcuda probe needs a library path");
  Stopwatch load_time;
  Library lib(args[0]);
  out["load_ms"] = load_time.ms();
  if (!lib.loaded()) {
    out["load_error"] = lib.error();
    return out;
  }
  out["loaded_path"] = lib.loaded_path();
  Json calls = Json::object();
  if (auto fn = lib.symbol<CuResult (*)(int*)>("cuDriverGetVersion")) {
    int version = 0;
    Stopwatch t;
    CuResult r = fn(&version);
    calls["cuDriverGetVersion"] = call_record(r, t.ms());
    if (r == 0) calls["cuDriverGetVersion"]["value"] = version;
  } else {
    calls["cuDriverGetVersion"] = missing_symbol("cuDriverGetVersion");
  }
  auto init = lib.symbol<CuResult (*)(unsigned)>("cuInit");
  if (init == nullptr) {
    calls["cuInit"] = missing_symbol("cuInit");
    out["calls"] = calls;
    return out;
  }
  Stopwatch t;
  CuResult r = init(0);
  calls["cuInit"] = call_record(r, t.ms());
  if (r == 0) {
    if (auto count_fn = lib.symbol<CuResult (*)(int*)>("cuDeviceGetCount")) {
      int count = 0;
      Stopwatch tc;
      CuResult rc = count_fn(&count);
      calls["cuDeviceGetCount"] = call_record(rc, tc.ms());
      if (rc == 0) {
        calls["cuDeviceGetCount"]["value"] = count;
        Json devices = Json::array();
        for (int i = 0; i < count && i < 256; ++i) devices.push_back(probe_device(lib, i));
        out["devices"] = devices;
      }
    }
  }
  out["calls"] = calls;
  return out;
}

const RegisterChildProbe kRegister{"libcuda", probe_libcuda};

}  // namespace
}  // namespace cudiag::child
