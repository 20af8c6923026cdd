// `cudiag test`, driver API half: on this machine's real libcuda (no GPU, so
// cuInit fails with 100) and on the libcuda double for what cannot happen
// here: a device whose kernel runs, computes a wrong element, fails a step,
// hangs or crashes.
#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace cudiag::kernel_test_test {
namespace {

const char* kOneGpu = "device_count=1\ndevice.cc=9.0\ndevice.name=Fake H200\n";

TEST(KernelTestRealDriver, FailsAtCuInitWithNoDeviceAndExitsOne) {
  auto r = run_test({"--no-nvrtc", "--no-frameworks"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("✗ cuInit → CUDA_ERROR_NO_DEVICE (100)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL  first failing step (driver): cuInit → CUDA_ERROR_NO_DEVICE (100)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("✓ cuDriverGetVersion"), std::string::npos) << r.out;
}

TEST(KernelTestRealDriver, JsonNamesTheFirstFailingStep) {
  auto r = run_test({"--no-nvrtc", "--no-frameworks", "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto kt = parse_section(r);
  ASSERT_FALSE(kt.empty()) << r.out;
  EXPECT_EQ(kt["status"], "fail");
  EXPECT_EQ(kt["first_failure"]["step"], "cuInit");
  auto init = step(kt["driver"]["steps"], "cuInit");
  EXPECT_EQ(init["code"], 100);
  EXPECT_EQ(init["error"], "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(kt["driver"]["cuda_driver_version"], "12.2");  // Debian's 535 user-space driver
  EXPECT_TRUE(kt["driver"]["devices"].empty());
}

TEST(KernelTestDouble, RunsTheKernelThroughJitAndSassAndChecksEveryElement) {
  Scratch s(kOneGpu);
  auto r = run_test({"--libcuda", fake_libcuda(), "--no-nvrtc", "--no-frameworks", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto kt = parse_section(r);
  ASSERT_EQ(kt["driver"]["devices"].size(), 1u) << r.out;
  const auto& dev = kt["driver"]["devices"][0];
  EXPECT_EQ(dev["name"], "Fake H200");
  EXPECT_EQ(dev["status"], "pass");
  for (const char* path : {"jit", "sass"}) {
    auto check = step(dev["steps"], std::string(path) + " check");
    ASSERT_FALSE(check.is_null()) << path << r.out;
    EXPECT_EQ(check["status"], "ok");
    EXPECT_EQ(check["elements"], 1u << 20);
  }
  // The JIT path was handed the checked-in low-ISA PTX, the SASS path the nvcc-built fatbin.
  auto rec = s.record();
  EXPECT_NE(rec.find("kind=ptx version=6.0 target=sm_50 entry=cudiag_axpy"), std::string::npos) << rec;
  EXPECT_NE(rec.find("kind=fatbin"), std::string::npos) << rec;
  EXPECT_EQ(rec.find("entry=none"), std::string::npos) << rec;
}

TEST(KernelTestDouble, OneWrongElementFailsTheCheckStep) {
  Scratch s(std::string(kOneGpu) + "kernel.wrong_element=777777\n");
  auto r = run_test({"--libcuda", fake_libcuda(), "--no-nvrtc", "--no-frameworks"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("✗ jit check → element 777777 of 1048576: expected"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first failing step (device 0): jit check"), std::string::npos) << r.out;
}

TEST(KernelTestDouble, AFailedCallIsNamedWithItsKnowledgeBaseErrorAndTheOtherPathStillRuns) {
  Scratch s(std::string(kOneGpu) + "cuModuleLoadData.ptx.result=222\n");
  auto r = run_test({"--libcuda", fake_libcuda(), "--no-nvrtc", "--no-frameworks", "--format", "json"});
  EXPECT_EQ(r.exit_code, 1);
  auto kt = parse_section(r);
  const auto& steps = kt["driver"]["devices"][0]["steps"];
  auto load = step(steps, "jit cuModuleLoadData");
  EXPECT_EQ(load["status"], "failed");
  EXPECT_EQ(load["error"], "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
  EXPECT_EQ(step(steps, "sass check")["status"], "ok") << steps.dump();
  EXPECT_EQ(kt["first_failure"]["step"], "jit cuModuleLoadData");
}

TEST(KernelTestDouble, AHangingCallIsKilledAtTheDeadlineAndNamed) {
  Scratch s(std::string(kOneGpu) + "cuLaunchKernel.behaviour=hang\n");
  // The deadline covers every step before the hang too: 1 s was too short for them under ASan on a
  // loaded CI machine (the child was killed before it reached cuLaunchKernel).
  auto r = run_test({"--libcuda", fake_libcuda(), "--no-nvrtc", "--no-frameworks", "--format", "json"}, 5);
  EXPECT_FALSE(r.killed_by_test);
  EXPECT_EQ(r.exit_code, 1);
  auto kt = parse_section(r);
  auto launch = step(kt["driver"]["devices"][0]["steps"], "jit cuLaunchKernel");
  EXPECT_EQ(launch["status"], "failed");
  EXPECT_EQ(launch["message"],
            "jit cuLaunchKernel → did not return: the process timed out after 5000 ms and was killed");
  // The steps before it were kept.
  EXPECT_EQ(step(kt["driver"]["devices"][0]["steps"], "jit cuMemcpyHtoD")["status"], "ok");
}

TEST(KernelTestDouble, ACrashOnOneDeviceDoesNotHideTheNextDevice) {
  Scratch s("device_count=2\ndevice.cc=8.0\ncuCtxSynchronize.behaviour=segfault\n");
  auto r = run_test({"--libcuda", fake_libcuda(), "--no-nvrtc", "--no-frameworks", "--format", "json"});
  EXPECT_EQ(r.exit_code, 1);
  auto kt = parse_section(r);
  ASSERT_EQ(kt["driver"]["devices"].size(), 2u) << r.out;
  for (int d = 0; d < 2; ++d) {
    auto sync = step(kt["driver"]["devices"][d]["steps"], "jit cuCtxSynchronize");
    EXPECT_EQ(sync["message"],
              "jit cuCtxSynchronize → did not return: the process killed by SIGSEGV (signal 11)")
        << d;
  }
  // Device 1 ran in a fresh process, which initialised the driver again.
  EXPECT_EQ(step(kt["driver"]["devices"][1]["steps"], "cuInit")["status"], "ok");
}

TEST(KernelTestDouble, ZeroDevicesIsAFailureNeverAPass) {
  Scratch s("device_count=0\n");
  auto r = run_test({"--libcuda", fake_libcuda(), "--no-nvrtc", "--no-frameworks"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("cuDeviceGetCount → 0 devices"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("PASS"), std::string::npos);
}

TEST(KernelTestDouble, AGpuWithoutEmbeddedSassSkipsTheSassPathOnly) {
  Scratch s("device_count=1\ndevice.cc=3.7\n");
  auto r = run_test({"--libcuda", fake_libcuda(), "--no-nvrtc", "--no-frameworks"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("– sass cuModuleLoadData: skipped, no SASS for sm_37 embedded"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("✓ jit check"), std::string::npos);
}

TEST(KernelTestDouble, AMissingLibcudaIsAFailedLoadStep) {
  auto r = run_test({"--libcuda", "/nonexistent/libcuda.so.1", "--no-nvrtc", "--no-frameworks"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("✗ dlopen → /nonexistent/libcuda.so.1: cannot open shared object file"),
            std::string::npos)
      << r.out;
}

TEST(KernelTestCli, RefusesAFixtureRoot) {
  auto r = machine_test::run_program({CUDIAG_BINARY, "--root", "/tmp", "test"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--root:"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace cudiag::kernel_test_test
