#pragma once
// What the machine tests share (machines_test.cpp, machine_faults_test.cpp):
// the sanity every report must have, and drivers and runtimes installed into a
// fixture tree the way the distributions install them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "machine_builder.h"

namespace cudiag::machine_test {

inline const std::string kLib = "/usr/lib/x86_64-linux-gnu";

// What every report must be, whatever the machine: a JSON document with
// every layer, from a cudiag that exited 0 or 1 (never 3, an internal error).
inline void expect_sane(const RunResult& r) {
  ASSERT_FALSE(r.killed_by_test) << describe(r);
  ASSERT_EQ(r.signal, 0) << describe(r);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << describe(r);
  ASSERT_TRUE(r.json_ok()) << describe(r);
  EXPECT_EQ(r.report.value("schema", ""), "cudiag.report/1");
  for (const char* layer : {"host", "kernel_driver", "nvml", "driver_api", "cuda_runtime", "libraries"}) {
    EXPECT_TRUE(r.report.contains(layer)) << "missing layer " << layer;
  }
}

inline std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A driver installed the way the Ubuntu packages do it: the versioned file,
// the soname link, an ld.so.cache entry.
inline void install_driver(Machine& m, const std::string& version, int cuda, const std::vector<Gpu>& gpus,
                           const std::string& libcuda_extra = "", const std::string& nvml_extra = "") {
  m.library("fake_libcuda", kLib + "/libcuda.so." + version, {"libcuda.so.1"},
            libcuda_scenario(cuda, gpus) + libcuda_extra);
  m.library("fake_libnvidia_ml", kLib + "/libnvidia-ml.so." + version, {"libnvidia-ml.so.1"},
            nvml_scenario(version, cuda, gpus) + nvml_extra);
  m.write_ld_cache();
}

// A toolkit's runtime: lib64/libcudart.so.<full> with its soname link and version.json.
inline void install_toolkit_runtime(Machine& m, const std::string& toolkit, const std::string& full_version,
                                    int encoded) {
  std::string major = full_version.substr(0, full_version.find('.'));
  m.library("fake_libcudart", toolkit + "/lib64/libcudart.so." + full_version, {"libcudart.so." + major},
            cudart_scenario(encoded), false);
  m.write(toolkit + "/version.json",
          "{\"cuda\": {\"name\": \"CUDA SDK\", \"version\": \"" + full_version + "\"}}\n");
}

inline std::vector<std::string> strings_of(const Json& array, const std::string& dotted) {
  std::vector<std::string> out;
  if (!array.is_array()) return out;
  for (const auto& e : array) {
    const Json& v = at(e, dotted);
    out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

inline bool contains(const Json& array, const std::string& s) {
  if (!array.is_array()) return false;
  return std::any_of(array.begin(), array.end(),
                     [&](const Json& e) { return e.is_string() && e.get<std::string>() == s; });
}

}  // namespace cudiag::machine_test
