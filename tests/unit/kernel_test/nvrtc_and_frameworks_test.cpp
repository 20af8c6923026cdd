// `cudiag test`, NVRTC and Python frameworks: the real libnvrtc of the CUDA
// 13 toolkit here (compiles without a GPU), the NVRTC double for a compile
// that runs on a device, and a stand-in Python package for a framework that
// fails (a double of a framework, named as such).
#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace cudiag::kernel_test_test {
namespace {

const char* kRealNvrtc = "/usr/local/cuda/lib64/libnvrtc.so.13";

TEST(KernelTestRealNvrtc, CompilesThePtxWithoutAGpuThenStopsAtCuInit) {
  if (!fs::exists(kRealNvrtc)) GTEST_SKIP() << kRealNvrtc << " is not on this machine";
  auto r = run_test({"--nvrtc", kRealNvrtc, "--no-frameworks", "--format", "json"}, 30);
  EXPECT_EQ(r.exit_code, 1);
  auto kt = parse_section(r);
  ASSERT_EQ(kt["nvrtc"].size(), 1u) << r.out;
  const auto& n = kt["nvrtc"][0];
  EXPECT_EQ(n["version"], "13.0");
  // NVRTC 13 writes PTX ISA 9.0 -- the reason the JIT kernel is checked in with ISA 6.0.
  EXPECT_EQ(n["ptx_isa"], "9.0");
  EXPECT_EQ(step(n["steps"], "nvrtcGetPTX")["status"], "ok") << n.dump();
  EXPECT_EQ(step(n["steps"], "cuInit")["error"], "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(step(n["steps"], "nvrtc-ptx cuModuleLoadData")["status"], "skipped");
  EXPECT_EQ(n["status"], "fail");
}

// The NVRTC path end to end with the real compiler: only the device is a
// double (there is no GPU here), so what is loaded and run is what the real
// libnvrtc.so.13 produced for the GPU's architecture.
TEST(KernelTestRealNvrtc, CompilesForTheGpusArchitectureAndBothOutputsRunOnTheDeviceDouble) {
  if (!fs::exists(kRealNvrtc)) GTEST_SKIP() << kRealNvrtc << " is not on this machine";
  Scratch s("device_count=1\ndevice.cc=8.6\n");
  auto r = run_test(
      {"--libcuda", fake_libcuda(), "--nvrtc", kRealNvrtc, "--no-frameworks", "--format", "json"}, 60);
  auto kt = parse_section(r);
  ASSERT_EQ(kt["nvrtc"].size(), 1u) << r.out;
  const auto& n = kt["nvrtc"][0];
  EXPECT_EQ(n["version"], "13.0");
  EXPECT_EQ(step(n["steps"], "nvrtcCompileProgram compute_86")["status"], "ok") << n.dump();
  EXPECT_EQ(step(n["steps"], "nvrtcCompileProgram sm_86")["status"], "ok") << n.dump();
  EXPECT_EQ(step(n["steps"], "nvrtc-ptx check")["status"], "ok") << n.dump();
  EXPECT_EQ(step(n["steps"], "nvrtc-cubin check")["status"], "ok") << n.dump();
  EXPECT_EQ(n["status"], "pass") << n.dump();
  auto rec = s.record();
  // NVRTC 13 names the target sm_86 in PTX it compiled for compute_86.
  EXPECT_NE(rec.find("kind=ptx version=9.0 target=sm_86 entry=cudiag_axpy"), std::string::npos) << rec;
  EXPECT_NE(rec.find("kind=cubin"), std::string::npos) << rec;
}

TEST(KernelTestNvrtcDouble, CompilesForTheGpusArchitectureLoadsAndRunsBothOutputs) {
  Scratch s("device_count=1\ndevice.cc=8.6\nversion=12.4\n");
  auto r = run_test(
      {"--libcuda", fake_libcuda(), "--nvrtc", fake_libnvrtc(), "--no-frameworks", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  auto kt = parse_section(r);
  const auto& n = kt["nvrtc"][0];
  EXPECT_EQ(n["status"], "pass") << n.dump();
  EXPECT_EQ(step(n["steps"], "nvrtcCompileProgram compute_86")["status"], "ok");
  EXPECT_EQ(step(n["steps"], "nvrtcCompileProgram sm_86")["status"], "ok");
  EXPECT_EQ(step(n["steps"], "nvrtc-ptx check")["status"], "ok");
  EXPECT_EQ(step(n["steps"], "nvrtc-cubin check")["status"], "ok");
  auto rec = s.record();
  EXPECT_NE(rec.find("kind=ptx version=8.4 target=compute_86 entry=cudiag_axpy"), std::string::npos) << rec;
  EXPECT_NE(rec.find("kind=cubin"), std::string::npos) << rec;
}

TEST(KernelTestNvrtcDouble, ACompileErrorShowsTheCompilerLog) {
  Scratch s(
      "device_count=1\ndevice.cc=8.6\nnvrtcCompileProgram.result=6\n"
      "nvrtcCompileProgram.log=cudiag_axpy.cu(3): error: identifier \"__fmaf_rn\" is undefined\n");
  auto r = run_test({"--libcuda", fake_libcuda(), "--nvrtc", fake_libnvrtc(), "--no-frameworks"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(
      r.out.find("✗ nvrtcCompileProgram compute_86 → NVRTC_ERROR_COMPILATION (6): cudiag_axpy.cu(3): error: "
                 "identifier \"__fmaf_rn\" is undefined"),
      std::string::npos)
      << r.out;
}

TEST(KernelTestFrameworks, AnAbsentFrameworkIsNotInstalledNotAFailure) {
  Scratch s("device_count=1\ndevice.cc=9.0\n");
  // An empty PYTHONPATH entry and an interpreter without torch/jax/cupy/tensorflow.
  auto r = run_test(
      {"--libcuda", fake_libcuda(), "--no-nvrtc", "--python", "/usr/bin/python3", "--format", "json"});
  auto kt = parse_section(r);
  bool saw = false;
  for (const auto& f : kt["frameworks"]) {
    if (f["python"] != "/usr/bin/python3") continue;
    saw = true;
    // Debian's python3 here has none of them; if one appears, it must not be "fail" for being absent.
    if (f["status"] == "not installed") {
      EXPECT_FALSE(f.contains("error")) << f.dump();
    }
  }
  EXPECT_TRUE(saw) << r.out;
}

TEST(KernelTestFrameworks, AFrameworkThatFailsIsReportedWithItsExceptionVerbatim) {
  Scratch s("device_count=1\ndevice.cc=9.0\n");
  // A stand-in `cupy` package (a double of the framework) whose GPU call raises like a broken install.
  fs::create_directories(s.dir() / "site" / "cupy");
  std::ofstream(s.dir() / "site" / "cupy" / "__init__.py")
      << "__version__ = '13.0.0-double'\n"
         "class _Runtime:\n"
         "    def getDeviceCount(self):\n"
         "        raise RuntimeError('CUDA driver version is insufficient for CUDA runtime version (35)')\n"
         "class cuda:\n"
         "    runtime = _Runtime()\n";
  ::setenv("PYTHONPATH", (s.dir() / "site").c_str(), 1);
  auto r = run_test(
      {"--libcuda", fake_libcuda(), "--no-nvrtc", "--python", "/usr/bin/python3", "--format", "json"});
  ::unsetenv("PYTHONPATH");
  EXPECT_EQ(r.exit_code, 1);
  auto kt = parse_section(r);
  Json cupy;
  for (const auto& f : kt["frameworks"]) {
    if (f["python"] == "/usr/bin/python3" && f["framework"] == "cupy") cupy = f;
  }
  ASSERT_TRUE(cupy.is_object()) << r.out;
  EXPECT_EQ(cupy["status"], "fail");
  EXPECT_EQ(cupy["version"], "13.0.0-double");
  EXPECT_EQ(cupy["error"], "RuntimeError: CUDA driver version is insufficient for CUDA runtime version (35)");
  EXPECT_EQ(kt["first_failure"]["step"], "cupy");
}

}  // namespace
}  // namespace cudiag::kernel_test_test
