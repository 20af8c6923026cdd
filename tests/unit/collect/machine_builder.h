#pragma once
// Builds a machine for `cudiag --root DIR` in a temporary directory: a copy
// of a checked-in fixture tree (tests/fixtures/machines/<name>/: text files
// for /proc, /sys and /etc, empty files for /dev nodes, symlinks for sysfs
// `driver` links), plus what a test adds: the built test doubles under
// versioned file names with their soname links and scenarios, an environment
// (/proc/self/environ), an /etc/ld.so.cache written in glibc's format. Then
// it runs the real cudiag binary on it and parses the JSON report.
//
// Doubles read their scenario from "<dir>/.<file name>.scenario" beside the
// copy (tests/doubles/README.md), so every copy in a tree answers its own way.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../run_cudiag.h"
#include "core/json.h"

namespace cudiag::machine_test {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- ld.so.cache

struct LdCacheEntry {
  std::string soname;
  std::string path;
  std::int32_t flags = 0x0303;  // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64, what ldconfig writes on x86_64
};

// The new ("glibc-ld.so.cache1.1") format, as ldconfig of glibc >= 2.32
// writes it; layout in src/machine/ld_cache.h. Entries in the given order.
inline std::string ld_so_cache_bytes(const std::vector<LdCacheEntry>& entries) {
  constexpr std::size_t kHeader = 48;
  constexpr std::size_t kEntry = 24;
  std::string strings;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> offsets;
  const std::size_t strings_start = kHeader + entries.size() * kEntry;
  for (const auto& e : entries) {
    auto key = static_cast<std::uint32_t>(strings_start + strings.size());
    strings += e.soname;
    strings.push_back('\0');
    auto value = static_cast<std::uint32_t>(strings_start + strings.size());
    strings += e.path;
    strings.push_back('\0');
    offsets.emplace_back(key, value);
  }
  std::string out;
  auto put32 = [&out](std::uint32_t v) {
    char b[4];
    std::memcpy(b, &v, 4);
    out.append(b, 4);
  };
  out += "glibc-ld.so.cache1.1";
  put32(static_cast<std::uint32_t>(entries.size()));
  put32(static_cast<std::uint32_t>(strings.size()));
  out.push_back('\2');                   // flags: little-endian
  out.append(3, '\0');                   // padding
  put32(0);                              // extension_offset: none
  for (int i = 0; i < 3; ++i) put32(0);  // unused
  for (std::size_t i = 0; i < entries.size(); ++i) {
    put32(static_cast<std::uint32_t>(entries[i].flags));
    put32(offsets[i].first);
    put32(offsets[i].second);
    put32(0);  // osversion
    put32(0);  // hwcap, 64 bits
    put32(0);
  }
  out += strings;
  return out;
}

// ---------------------------------------------------------------- running cudiag

using test_run::run_program;
using test_run::RunResult;

// `cudiag --root ROOT --timeout T report --format json --include-identity`:
// the collection as it is, GPU UUIDs included (output is redacted otherwise).
inline RunResult run_report(const std::string& root, int timeout_s = 10,
                            std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {
      CUDIAG_BINARY, "--root",   root,   "--timeout",         std::to_string(timeout_s),
      "report",      "--format", "json", "--include-identity"};
  for (auto& e : extra) argv.push_back(std::move(e));
  return run_program(argv, timeout_s * 6.0 + 30);
}

// ---------------------------------------------------------------- scenarios

// One GPU as every layer should see it.
struct Gpu {
  std::string bus_id;  // "0000:1b:00.0"
  std::string uuid;    // "GPU-..."
  std::string name = "NVIDIA H100 80GB HBM3";
  std::string cc = "9.0";
  unsigned long long memory = 85520809984ULL;  // 79.6 GiB, what an H100 80GB reports
  unsigned pci_device_id = 0x2330;
  std::string mig = "disabled";  // "enabled", "disabled", "unsupported"
};

// The eight GPUs of tests/fixtures/machines/dgx-h100 (same bus ids and UUIDs
// as its /proc/driver/nvidia/gpus/*/information).
inline std::vector<Gpu> dgx_h100_gpus() {
  const std::pair<const char*, const char*> ids[] = {
      {"0000:1b:00.0", "GPU-6a2bb6b3-1e7c-2a8f-3d5e-1f0a9b8c7d01"},
      {"0000:43:00.0", "GPU-5c0f2a41-8d3e-4b7a-9e21-3a4b5c6d7e02"},
      {"0000:52:00.0", "GPU-1f3e5d7c-9b2a-4c6e-8f10-2b3c4d5e6f03"},
      {"0000:61:00.0", "GPU-7a8b9c0d-1e2f-4a5b-8c6d-7e8f9a0b1c04"},
      {"0000:9d:00.0", "GPU-2d4f6a8c-0e1a-4b3c-9d5e-6f7a8b9c0d05"},
      {"0000:c3:00.0", "GPU-8e9f0a1b-2c3d-4e5f-a6b7-c8d9e0f1a206"},
      {"0000:d1:00.0", "GPU-3b5d7f9a-1c2e-4f6a-b8c0-d2e4f6a8b007"},
      {"0000:df:00.0", "GPU-9c0d1e2f-3a4b-4c5d-be6f-7a8b9c0d1e08"}};
  std::vector<Gpu> gpus;
  for (const auto& [bus, uuid] : ids) {
    Gpu g;
    g.bus_id = bus;
    g.uuid = uuid;
    gpus.push_back(g);
  }
  return gpus;
}

// Scenario text for fake_libcuda: cuDriverGetVersion, cuInit, the devices.
inline std::string libcuda_scenario(int driver_version, const std::vector<Gpu>& gpus, int cu_init_result = 0,
                                    const std::string& cu_init_behaviour = "") {
  std::ostringstream s;
  s << "driver_version=" << driver_version << "\n";
  s << "cuInit.result=" << cu_init_result << "\n";
  if (!cu_init_behaviour.empty()) s << "cuInit.behaviour=" << cu_init_behaviour << "\n";
  s << "device_count=" << gpus.size() << "\n";
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto& g = gpus[i];
    s << "device." << i << ".name=" << g.name << "\n";
    s << "device." << i << ".cc=" << g.cc << "\n";
    s << "device." << i << ".memory=" << g.memory << "\n";
    s << "device." << i << ".uuid=" << g.uuid << "\n";
    // The driver API spells the bus id with a 4-digit domain and upper case.
    std::string bus = g.bus_id;
    for (auto& c : bus) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    s << "device." << i << ".pci_bus_id=" << bus << "\n";
  }
  return s.str();
}

// Scenario text for fake_libnvidia_ml.
inline std::string nvml_scenario(const std::string& driver_version, int cuda_driver_version,
                                 const std::vector<Gpu>& gpus, int init_result = 0) {
  std::ostringstream s;
  s << "nvmlInit.result=" << init_result << "\n";
  s << "driver_version=" << driver_version << "\n";
  s << "nvml_version=12." << driver_version << "\n";
  s << "cuda_driver_version=" << cuda_driver_version << "\n";
  s << "device_count=" << gpus.size() << "\n";
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto& g = gpus[i];
    s << "device." << i << ".name=" << g.name << "\n";
    s << "device." << i << ".cc=" << g.cc << "\n";
    s << "device." << i << ".memory=" << g.memory << "\n";
    s << "device." << i << ".uuid=" << g.uuid << "\n";
    // NVML spells it with an 8-digit domain.
    std::string bus = "0000" + g.bus_id;
    for (auto& c : bus) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    s << "device." << i << ".pci_bus_id=" << bus << "\n";
    s << "device." << i << ".pci_device_id=" << g.pci_device_id << "\n";
    s << "device." << i << ".mig=" << g.mig << "\n";
    s << "device." << i << ".persistence=enabled\n";
  }
  return s.str();
}

inline std::string cudart_scenario(int runtime_version) {
  return "runtime_version=" + std::to_string(runtime_version) + "\n";
}

// ---------------------------------------------------------------- the machine

class Machine {
 public:
  // A fresh temporary directory holding a copy of tests/fixtures/machines/<fixture>
  // (an empty machine when fixture is "").
  explicit Machine(const std::string& fixture = "") {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("cudiag_machine_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" +
            (fixture.empty() ? std::string("empty") : fixture));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (!fixture.empty()) {
      fs::path src = fs::path(CUDIAG_TEST_DIR) / "fixtures" / "machines" / fixture;
      if (!fs::is_directory(src)) throw std::runtime_error("no fixture machine " + src.string());
      fs::copy(src, dir_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
    env({{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}});
  }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;
  ~Machine() {
    std::error_code ec;
    // Undo what makes removal fail (directories without permissions).
    for (auto it = fs::recursive_directory_iterator(dir_, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec))
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(dir_, ec);
  }

  std::string root() const { return dir_.string(); }
  // The host path of a machine path.
  fs::path host(const std::string& machine_path) const {
    return dir_ / fs::path(machine_path).relative_path();
  }

  Machine& write(const std::string& machine_path, const std::string& content) {
    auto p = host(machine_path);
    fs::create_directories(p.parent_path());
    fs::remove(p);
    std::ofstream(p, std::ios::binary) << content;
    return *this;
  }
  Machine& remove(const std::string& machine_path) {
    fs::remove_all(host(machine_path));
    return *this;
  }
  Machine& mkdir(const std::string& machine_path) {
    fs::create_directories(host(machine_path));
    return *this;
  }
  Machine& symlink(const std::string& machine_path, const std::string& target) {
    auto p = host(machine_path);
    fs::create_directories(p.parent_path());
    fs::remove(p);
    fs::create_symlink(target, p);
    return *this;
  }
  // Replaces /proc/self/environ (NUL-separated NAME=VALUE).
  Machine& env(const std::map<std::string, std::string>& vars) {
    vars_ = vars;
    return write_env();
  }
  Machine& set_env(const std::string& name, const std::string& value) {
    vars_[name] = value;
    return write_env();
  }

  // Drops a built double (CUDIAG_DOUBLES_DIR/<double_name>.so) at
  // machine_path, with `links` (file names in the same directory, e.g.
  // "libcuda.so.1") pointing at it and its scenario beside it. When
  // `in_ld_cache`, each link (or the file itself without links) gets an
  // ld.so.cache entry, as ldconfig would make; call write_ld_cache() after.
  Machine& library(const std::string& double_name, const std::string& machine_path,
                   const std::vector<std::string>& links, const std::string& scenario,
                   bool in_ld_cache = true) {
    auto dst = host(machine_path);
    fs::create_directories(dst.parent_path());
    fs::path src = fs::path(CUDIAG_DOUBLES_DIR) / (double_name + ".so");
    if (!fs::exists(src)) throw std::runtime_error("double not built: " + src.string());
    fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
    scenario_for(machine_path, scenario);
    auto dir = fs::path(machine_path).parent_path().string();
    auto file = fs::path(machine_path).filename().string();
    for (const auto& link : links) {
      symlink(dir + "/" + link, file);
      if (in_ld_cache) cache_.push_back({link, dir + "/" + link});
    }
    if (links.empty() && in_ld_cache) cache_.push_back({file, machine_path});
    return *this;
  }
  // (Re)writes the scenario of the double at machine_path.
  Machine& scenario_for(const std::string& machine_path, const std::string& scenario) {
    auto p = fs::path(machine_path);
    return write(p.parent_path().string() + "/." + p.filename().string() + ".scenario", scenario);
  }
  Machine& cache_entry(const std::string& soname, const std::string& path) {
    cache_.push_back({soname, path});
    return *this;
  }
  // /etc/ld.so.cache from the entries collected so far.
  Machine& write_ld_cache() { return write("/etc/ld.so.cache", ld_so_cache_bytes(cache_)); }
  const std::vector<LdCacheEntry>& cache_entries() const { return cache_; }

  RunResult report(int timeout_s = 10, std::vector<std::string> extra = {}) const {
    return run_report(root(), timeout_s, std::move(extra));
  }

 private:
  Machine& write_env() {
    std::string text;
    for (const auto& [k, v] : vars_) {
      text += k + "=" + v;
      text.push_back('\0');
    }
    return write("/proc/self/environ", text);
  }

  fs::path dir_;
  std::map<std::string, std::string> vars_;
  std::vector<LdCacheEntry> cache_;
};

// ---------------------------------------------------------------- reading the report

// The value of report[a][b]... following a dotted path ("driver_api.cuInit.code");
// numeric parts index arrays. Null when any step is missing.
inline const Json& at(const Json& j, const std::string& dotted) {
  static const Json kNull;
  const Json* cur = &j;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    auto end = dotted.find('.', start);
    auto part = dotted.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (cur->is_object()) {
      if (!cur->contains(part)) return kNull;
      cur = &(*cur)[part];
    } else if (cur->is_array() && !part.empty() &&
               part.find_first_not_of("0123456789") == std::string::npos) {
      auto i = std::stoul(part);
      if (i >= cur->size()) return kNull;
      cur = &(*cur)[i];
    } else {
      return kNull;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return *cur;
}

// A fact's value ({"value": V, ...} -> V).
inline const Json& value(const Json& j, const std::string& dotted) { return at(j, dotted + ".value"); }

// Each element of an array whose `key` equals `want` (e.g. the device node "/dev/nvidia-uvm").
inline const Json& find_by(const Json& array, const std::string& key, const Json& want) {
  static const Json kNull;
  if (!array.is_array()) return kNull;
  for (const auto& e : array) {
    if (e.is_object() && e.contains(key) && e[key] == want) return e;
  }
  return kNull;
}

inline std::string describe(const RunResult& r) {
  std::ostringstream s;
  s << "exit " << r.exit_code << " signal " << r.signal << " wall " << r.wall_s << " s"
    << (r.killed_by_test ? " (killed by the test)" : "") << "\nstderr: " << r.err.substr(0, 2000)
    << "\nstdout: " << r.out.substr(0, 1500);
  return s.str();
}

}  // namespace cudiag::machine_test
