// End to end against this machine's real layers (root "/"): the build and CI
// machines have Debian's NVIDIA 535 user-space libraries and the CUDA 13
// toolkit, but no GPU and no kernel module. Skipped where they are absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "machine_builder.h"

namespace cudiag::machine_test {
namespace {

bool starts_with(const Json& v, const std::string& prefix) {
  return v.is_string() && v.get<std::string>().rfind(prefix, 0) == 0;
}

TEST(CollectRealLayers, DebianDriver535AndCuda13WithoutGpu) {
  if (!fs::exists("/usr/lib/x86_64-linux-gnu/libcuda.so.1")) {
    GTEST_SKIP() << "/usr/lib/x86_64-linux-gnu/libcuda.so.1 is absent: not the machine with Debian's NVIDIA "
                    "535 libraries";
  }
  if (fs::exists("/proc/driver/nvidia/version")) GTEST_SKIP() << "an NVIDIA kernel module is loaded here";
  // --confirm-versions: every library answers with its own function (the versions
  // read from NVIDIA's wheel records instead are checked in wheel_versions_test.cpp).
  auto r = run_report("/", 60, {"--confirm-versions"});
  ASSERT_FALSE(r.killed_by_test) << describe(r);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << describe(r);
  ASSERT_TRUE(r.json_ok()) << describe(r);
  const Json& j = r.report;

  // No kernel module. Where /proc/modules cannot be read (some sandboxes) the fact is unknown, never true.
  EXPECT_NE(value(j, "kernel_driver.modules.nvidia"), true);
  if (fs::exists("/proc/modules")) {
    EXPECT_EQ(value(j, "kernel_driver.modules.nvidia"), false);
  }
  EXPECT_TRUE(value(j, "kernel_driver.version").is_null());

  EXPECT_TRUE(starts_with(value(j, "driver_api.library_version"), "535."))
      << at(j, "driver_api.library_version");
  EXPECT_EQ(at(j, "driver_api.cuda_driver_version.raw"), 12020);
  EXPECT_EQ(value(j, "driver_api.cuda_driver_version"), "12.2");
  EXPECT_EQ(at(j, "driver_api.cuInit.code"), 100);
  EXPECT_EQ(value(j, "driver_api.cuInit"), "CUDA_ERROR_NO_DEVICE");

  EXPECT_EQ(at(j, "nvml.nvmlInit.code"), 9);
  EXPECT_EQ(value(j, "nvml.nvmlInit"), "NVML_ERROR_DRIVER_NOT_LOADED");

  // A CUDA 13.0 runtime from a /usr/local/cuda* toolkit, refused by the 12.2 driver.
  const Json* cuda13 = nullptr;
  for (const auto& rt : at(j, "cuda_runtime.runtimes")) {
    if (rt.value("real_path", "").rfind("/usr/local/cuda", 0) == 0 && value(rt, "runtime_version") == "13.0")
      cuda13 = &rt;
  }
  ASSERT_NE(cuda13, nullptr) << at(j, "cuda_runtime.runtimes").dump(1);
  EXPECT_EQ(at(*cuda13, "cudaGetDeviceCount.code"), 35);
  EXPECT_EQ(value(*cuda13, "cudaGetDeviceCount"), "cudaErrorInsufficientDriver");

  // The libraries, each versioned by its own function.
  const std::pair<const char*, const char*> expected[] = {
      {"cudnn", "9."}, {"cublas", "13."}, {"nccl", "2."}, {"nvrtc", "13.0"}};
  for (const auto& [key, prefix] : expected) {
    const Json& instances = at(j, std::string("libraries.") + key + ".instances");
    bool found = false;
    for (const auto& inst : instances) {
      if (starts_with(value(inst, "version"), prefix) && starts_with(at(inst, "version.source"), "call:"))
        found = true;
    }
    EXPECT_TRUE(found) << key << " " << prefix << "x by a call: " << instances.dump(1);
  }
}

}  // namespace
}  // namespace cudiag::machine_test
