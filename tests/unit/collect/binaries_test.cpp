// The `binaries` key (src/probes/binaries_probe.cpp) and the binary_arch rules
// on a fixture machine whose CUDA libraries are real nvcc-built shared
// objects with known targets (tests/inspect/CMakeLists.txt): an NCCL with
// SASS sm_80 sm_90 on LD_LIBRARY_PATH, another with sm_90 sm_120 in a
// toolkit directory, and a cuDNN 9 shim without device code whose
// libcudnn_ops.so.9 beside it carries sm_90 SASS and compute_90 PTX. Run
// through the real cudiag binary with --root. Skipped without nvcc.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "machine_builder.h"

namespace cudiag::machine_test {
namespace {

const fs::path kKernels = CUDIAG_INSPECT_KERNELS;
const std::string kOld = "/opt/nccl/lib";               // on LD_LIBRARY_PATH: the loader's pick
const std::string kNew = "/usr/local/cuda-12.8/lib64";  // a toolkit directory

bool built() {
  for (const char* f : {"libnccl_sm80_sm90.so", "libnccl_sm90_sm120.so", "libcudnn_ops_sm90.so"})
    if (!fs::exists(kKernels / f)) return false;
  return true;
}

void copy_in(Machine& m, const fs::path& from, const std::string& machine_path) {
  auto dst = m.host(machine_path);
  fs::create_directories(dst.parent_path());
  fs::copy_file(from, dst, fs::copy_options::overwrite_existing);
}

void build_machine(Machine& m) {
  copy_in(m, kKernels / "libnccl_sm80_sm90.so", kOld + "/libnccl.so.2.21.5");
  m.symlink(kOld + "/libnccl.so.2", "libnccl.so.2.21.5");
  copy_in(m, kKernels / "libnccl_sm90_sm120.so", kNew + "/libnccl.so.2.26.2");
  m.symlink(kNew + "/libnccl.so.2", "libnccl.so.2.26.2");
  copy_in(m, fs::path(CUDIAG_FRAMEWORKS_ELF_DIR) / "libcudnn.so.9", kNew + "/libcudnn.so.9");
  copy_in(m, kKernels / "libcudnn_ops_sm90.so", kNew + "/libcudnn_ops.so.9");
  m.write("/usr/local/cuda-12.8/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "12.8.93"}})");
  m.set_env("LD_LIBRARY_PATH", kOld);
  // cuDNN is the loader's pick through the cache; the toolkit's NCCL is not (LD_LIBRARY_PATH wins).
  m.cache_entry("libcudnn.so.9", kNew + "/libcudnn.so.9").cache_entry("libnccl.so.2", kNew + "/libnccl.so.2");
  m.write_ld_cache();
}

const Json& binaries_entry(const Json& report, const std::string& real_path) {
  return find_by(at(report, "binaries.libraries"), "real_path", real_path);
}

TEST(CollectBinaries, OnlyWhenAsked) {
  if (!built()) GTEST_SKIP() << "no nvcc: the test libraries were not built";
  Machine m("dgx-h100");
  build_machine(m);
  auto plain = m.report(10, {"--no-library-calls"});
  ASSERT_TRUE(plain.json_ok()) << describe(plain);
  EXPECT_FALSE(plain.report.contains("binaries"));
  EXPECT_FALSE(at(plain.report, "timings").contains("binaries_ms"));
  auto asked = m.report(10, {"--no-library-calls", "--binaries"});
  ASSERT_TRUE(asked.json_ok()) << describe(asked);
  EXPECT_TRUE(asked.report.contains("binaries"));
  EXPECT_TRUE(at(asked.report, "timings").contains("binaries_ms"));
}

TEST(CollectBinaries, EachLibraryInstanceWithItsArchitectures) {
  if (!built()) GTEST_SKIP() << "no nvcc: the test libraries were not built";
  Machine m("dgx-h100");
  build_machine(m);
  auto r = m.report(10, {"--no-library-calls", "--binaries"});
  ASSERT_TRUE(r.json_ok()) << describe(r);

  const Json& old_nccl = binaries_entry(r.report, kOld + "/libnccl.so.2.21.5");
  ASSERT_TRUE(old_nccl.is_object()) << at(r.report, "binaries").dump(1);
  EXPECT_EQ(old_nccl["library"], "nccl");
  EXPECT_EQ(old_nccl["loader_pick"], true);
  EXPECT_EQ(at(old_nccl, "files.0.architectures.sass"), Json({"sm_80", "sm_90"}));
  EXPECT_EQ(at(old_nccl, "files.0.architectures.ptx"), Json::array());

  const Json& new_nccl = binaries_entry(r.report, kNew + "/libnccl.so.2.26.2");
  ASSERT_TRUE(new_nccl.is_object()) << at(r.report, "binaries").dump(1);
  EXPECT_EQ(new_nccl["loader_pick"], false);
  EXPECT_EQ(at(new_nccl, "files.0.architectures.sass"), Json({"sm_90", "sm_120"}));

  // cuDNN: the shim (no device code), then libcudnn_ops.so.9 beside it.
  const Json& cudnn = binaries_entry(r.report, kNew + "/libcudnn.so.9");
  ASSERT_TRUE(cudnn.is_object()) << at(r.report, "binaries").dump(1);
  ASSERT_EQ(cudnn["files"].size(), 2u) << cudnn.dump(1);
  EXPECT_EQ(at(cudnn, "files.0.architectures.sass"), Json::array());
  EXPECT_EQ(at(cudnn, "files.1.path"), kNew + "/libcudnn_ops.so.9");
  EXPECT_EQ(cudnn["loader_pick"], true);
  EXPECT_EQ(at(cudnn, "files.1.architectures.sass"), Json({"sm_90"}));
  EXPECT_EQ(at(cudnn, "files.1.architectures.ptx.0.arch"), "compute_90");
  EXPECT_TRUE(at(cudnn, "files.1.architectures.ptx.0.ptx_isa").is_string());

  // The machine's own H100s (sm_90) run every one of them natively.
  for (const auto& f : r.report["findings"])
    EXPECT_FALSE(f.value("id", "").starts_with("libraries.binary_arch")) << f.dump(1);
}

TEST(CollectBinaries, CheckNamesTheMissingArchitectureAndTheCopyThatHasIt) {
  if (!built()) GTEST_SKIP() << "no nvcc: the test libraries were not built";
  Machine m("dgx-h100");
  build_machine(m);
  auto r = run_program({CUDIAG_BINARY, "--root", m.root(), "check", "--format", "json", "--no-library-calls",
                        "--binaries", "--assume", "gpu=RTX 5090", "--assume", "driver=580.65.06"});
  ASSERT_TRUE(r.json_ok()) << describe(r);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const Json* missing = nullptr;
  const Json* jit = nullptr;
  for (const auto& f : r.report["findings"]) {
    if (f.value("id", "") == "libraries.binary_arch_missing") missing = &f;
    if (f.value("id", "") == "libraries.binary_arch_jit") jit = &f;
  }
  // libcudnn_ops' compute_90 PTX JITs for sm_120 on R580: a warning, not an error.
  ASSERT_NE(jit, nullptr) << r.report["findings"].dump(1);
  EXPECT_EQ(jit->value("severity", ""), "warning");
  EXPECT_NE(jit->value("message", "").find("cuDNN"), std::string::npos) << jit->dump(1);
  ASSERT_NE(missing, nullptr) << r.report["findings"].dump(1);
  EXPECT_EQ(missing->value("severity", ""), "error");
  std::string message = missing->value("message", "");
  std::string fix = missing->value("remediation", "");
  EXPECT_NE(message.find(kOld + "/libnccl.so.2"), std::string::npos) << message;
  EXPECT_NE(message.find("sm_120"), std::string::npos) << message;
  EXPECT_NE(fix.find(kNew + "/libnccl.so.2"), std::string::npos) << fix;
  EXPECT_NE(fix.find("CUDA 12.8"), std::string::npos) << fix;
}

}  // namespace
}  // namespace cudiag::machine_test
