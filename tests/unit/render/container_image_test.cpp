// The report's `container` key (src/probes/container_probe.cpp): an NGC
// PyTorch image as tests/fixtures/machines/docker-nvidia presents it (its
// /proc/self/environ holds the image's variables), an nvidia/cuda base
// image, a machine that is no container, and --image-digest.
#include <gtest/gtest.h>

#include "probes/container_probe.h"
#include "render_test_util.h"

namespace cudiag {
namespace {

using machine_test::Machine;
using machine_test::value;

std::string fixture_machine(const std::string& name) {
  return std::string(CUDIAG_TEST_DIR) + "/fixtures/machines/" + name;
}

const std::string kDigest = "nvcr.io/nvidia/pytorch@sha256:" + std::string(64, 'a');

TEST(ContainerImage, NgcPyTorchImageFromItsEnvironment) {
  auto r = machine_test::run_report(fixture_machine("docker-nvidia"), 5, {"--image-digest", kDigest});
  ASSERT_TRUE(r.json_ok()) << machine_test::describe(r);
  const auto& c = r.report["container"];
  EXPECT_EQ(value(c, "image"), "NGC PyTorch 24.04");
  EXPECT_EQ(machine_test::at(c, "image.source"), "env:NVIDIA_PYTORCH_VERSION");
  EXPECT_EQ(value(c, "cuda_version"), "12.4.1.003");
  EXPECT_EQ(value(c, "os.pretty_name"), "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(machine_test::at(c, "os.pretty_name.source"), "file:/etc/os-release");
  EXPECT_EQ(value(c, "image_digest"), kDigest);
  EXPECT_EQ(machine_test::at(c, "image_digest.source"), "cli:--image-digest");
  for (const char* var : {"CUDNN_VERSION", "NCCL_VERSION", "NVIDIA_BUILD_ID", "PYTORCH_VERSION",
                          "CUDA_DRIVER_VERSION", "NVIDIA_REQUIRE_CUDA"}) {
    EXPECT_EQ(machine_test::at(c, std::string("variables.") + var + ".source"), std::string("env:") + var);
  }
  EXPECT_FALSE(c["variables"].contains("PATH"));
  EXPECT_FALSE(c["variables"].contains("HOME"));
  // The image's variables are on the environment allowlist; HOSTNAME and HOME are not.
  EXPECT_EQ(value(r.report, "host.environment.NVIDIA_PYTORCH_VERSION"), "24.04");
  EXPECT_TRUE(value(r.report, "host.environment.HOSTNAME").is_null());
  EXPECT_TRUE(value(r.report, "host.environment.HOME").is_null());
  EXPECT_EQ(r.out.find("3f2a9c1b7d4e"), std::string::npos);
}

TEST(ContainerImage, ShownInTheBugReport) {
  auto r = machine_test::run_program({CUDIAG_BINARY, "--root", fixture_machine("docker-nvidia"), "report",
                                      "--format", "md", "--image-digest", kDigest});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << machine_test::describe(r);
  EXPECT_NE(
      r.out.find("- **Container image:** NGC PyTorch 24.04 · CUDA 12.4.1.003 · Ubuntu 22.04.4 LTS · digest " +
                 kDigest),
      std::string::npos)
      << r.out;
}

TEST(ContainerImage, NvidiaCudaBaseImage) {
  Machine m("docker-nvidia");
  m.env({{"PATH", "/usr/bin:/bin"},
         {"CUDA_VERSION", "12.4.1"},
         {"NV_CUDA_LIB_VERSION", "12.4.1-1"},
         {"NV_CUDA_CUDART_VERSION", "12.4.127-1"},
         {"NV_CUDA_COMPAT_PACKAGE", "cuda-compat-12-4"},
         {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4 brand=tesla,driver>=470,driver<471"}});
  auto r = m.report(5);
  ASSERT_TRUE(r.json_ok()) << machine_test::describe(r);
  EXPECT_EQ(value(r.report, "container.image"), "nvidia/cuda 12.4.1");
  EXPECT_EQ(value(r.report, "container.variables.NV_CUDA_COMPAT_PACKAGE"), "cuda-compat-12-4");
  EXPECT_EQ(value(r.report, "container.variables.NVIDIA_REQUIRE_CUDA"),
            "cuda>=12.4 brand=tesla,driver>=470,driver<471");
  EXPECT_EQ(machine_test::at(r.report, "container.image_digest.error"), "not given");
}

TEST(ContainerImage, NoImageVariablesMeansNoImage) {
  Machine m("dgx-h100");
  auto r = m.report(5);
  ASSERT_TRUE(r.json_ok()) << machine_test::describe(r);
  ASSERT_TRUE(r.report.contains("container"));
  EXPECT_TRUE(value(r.report, "container.image").is_null());
  EXPECT_TRUE(r.report["container"]["variables"].empty());
}

TEST(ContainerImage, BadDigestIsAUsageError) {
  for (const std::string& bad : std::vector<std::string>{
           "latest", "sha256:abc", "sha256:" + std::string(64, 'G'), "@sha256:" + std::string(64, 'a')}) {
    auto r = machine_test::run_report(fixture_machine("docker-nvidia"), 5, {"--image-digest", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << machine_test::describe(r);
    EXPECT_TRUE(r.out.empty()) << bad;
    EXPECT_NE(r.err.find("--image-digest"), std::string::npos) << r.err;
  }
}

TEST(ContainerImage, DigestCheck) {
  EXPECT_EQ(probes::image_digest_error("sha256:" + std::string(64, '0')), "");
  EXPECT_EQ(probes::image_digest_error(kDigest), "");
  EXPECT_NE(probes::image_digest_error("sha256:" + std::string(63, '0')), "");
  EXPECT_NE(probes::image_digest_error("md5:" + std::string(32, '0')), "");
  EXPECT_NE(probes::image_digest_error("bad name@sha256:" + std::string(64, '0')), "");
}

}  // namespace
}  // namespace cudiag
