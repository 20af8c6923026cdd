// Collection when a driver library misbehaves: a cuInit that hangs or
// segfaults, an NVML that crashes. Each costs one fact, never the report, and
// no child outlives it. Test doubles stand in for the libraries (see
// machines_test.cpp for how the machines are built).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "machine_builder.h"
#include "machine_test_support.h"

namespace cudiag::machine_test {
namespace {

// Processes whose command line mentions `needle` (a fixture root): what a
// hung child would leave behind if it were not killed.
std::vector<std::string> processes_mentioning(const std::string& needle) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    auto name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (cmd.find(needle) != std::string::npos) found.push_back(name);
  }
  return found;
}

TEST(CollectMachine, HangingCuInitIsKilledWithinTheTimeout) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  install_driver(m, "550.54.15", 12040, gpus, "cuInit.behaviour=hang\n");
  // The runtime's cudaGetDeviceCount calls the same cuInit: it hangs too, in parallel.
  install_toolkit_runtime(m, "/usr/local/cuda-12.4", "12.4.131", 12040);
  // Both hung children are killed at the deadline, and they run side by side:
  // one after the other would take at least 2 x kTimeout. The slack between
  // kTimeout and 2 x kTimeout absorbs a loaded CI machine (a 1 s deadline with
  // a 2 s bound failed there once, at 1,477 tests on two cores).
  constexpr int kTimeout = 3;
  auto r = m.report(kTimeout);
  expect_sane(r);
  EXPECT_GE(r.wall_s, kTimeout * 1.0) << "the report took " << r.wall_s << " s";
  EXPECT_LT(r.wall_s, kTimeout * 2.0) << "the report took " << r.wall_s << " s";
  const Json& j = r.report;
  EXPECT_TRUE(value(j, "driver_api.load").is_null());
  EXPECT_EQ(at(j, "driver_api.load.error"), "timed out after 3000 ms and was killed");
  EXPECT_EQ(at(j, "driver_api.load.timed_out"), true);
  EXPECT_EQ(at(j, "cuda_runtime.runtimes.0.load.timed_out"), true);
  // The other layers are whole.
  EXPECT_EQ(value(j, "nvml.device_count"), 8);
  EXPECT_EQ(value(j, "kernel_driver.version"), "550.54.15");
  EXPECT_EQ(value(j, "driver_api.picked"), kLib + "/libcuda.so.550.54.15");
  EXPECT_EQ(processes_mentioning(m.root()), std::vector<std::string>{}) << "a hung child was left running";
}

TEST(CollectMachine, SegfaultingCuInitCostsOneFact) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  install_driver(m, "550.54.15", 12040, gpus, "cuInit.behaviour=segfault\n");
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  EXPECT_TRUE(value(j, "driver_api.load").is_null());
  EXPECT_EQ(at(j, "driver_api.load.error"), "killed by SIGSEGV (signal 11)");
  EXPECT_EQ(at(j, "driver_api.load.signal"), 11);
  EXPECT_EQ(value(j, "driver_api.library_version"), "550.54.15");  // from the file name, still known
  EXPECT_EQ(value(j, "nvml.device_count"), 8);
  EXPECT_EQ(value(j, "kernel_driver.version"), "550.54.15");
}

TEST(CollectMachine, SegfaultingNvmlInitCostsOneFact) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  install_driver(m, "550.54.15", 12040, gpus, "", "nvmlInit.behaviour=segfault\n");
  auto r = m.report();
  expect_sane(r);
  EXPECT_EQ(at(r.report, "nvml.load.error"), "killed by SIGSEGV (signal 11)");
  EXPECT_EQ(value(r.report, "nvml.library_version"), "550.54.15");
  EXPECT_EQ(value(r.report, "driver_api.device_count"), 8);
}

// ------------------------------------------------------------------ several runtimes

}  // namespace
}  // namespace cudiag::machine_test
