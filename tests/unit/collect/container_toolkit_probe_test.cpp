// The host's NVIDIA Container Toolkit as its files say: the runtime mode in
// /etc/nvidia-container-runtime/config.toml and the package version in the
// dpkg status file, read through FsRoot from a fixture tree.
#include "probes/container_toolkit_probe.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace cudiag {
namespace {

namespace fs = std::filesystem;

class ContainerToolkitProbe : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudiag-toolkit-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "etc/nvidia-container-runtime");
    fs::create_directories(dir_ / "var/lib/dpkg");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel) << text; }
  fs::path dir_;
};

TEST_F(ContainerToolkitProbe, ReadsModeOfTheRuntimeTableAndThePackageVersion) {
  // The shape of the toolkit's generated config.toml: other tables have `mode` keys too.
  write("etc/nvidia-container-runtime/config.toml",
        "[nvidia-container-cli]\nldconfig = \"@/sbin/ldconfig\"\n\n[nvidia-container-runtime]\n"
        "log-level = \"info\"\nmode = \"legacy\"\nruntimes = "
        "[\"runc\"]\n\n[nvidia-container-runtime.modes.csv]\n"
        "mount-spec-path = \"/etc/nvidia-container-runtime/host-files-for-container.d\"\n");
  write("var/lib/dpkg/status",
        "Package: libnvidia-container1\nVersion: 1.18.0-1\n\nPackage: nvidia-container-toolkit\nStatus: "
        "install ok "
        "installed\nVersion: 1.18.1-1\n");
  Json t = probes::probe_container_toolkit(FsRoot(dir_.string()));
  EXPECT_EQ(t["mode"]["value"], "legacy");
  EXPECT_EQ(t["version"]["value"], "1.18.1");
}

TEST_F(ContainerToolkitProbe, ACommentedModeIsTheDefaultAuto) {
  write("etc/nvidia-container-runtime/config.toml", "[nvidia-container-runtime]\n#mode = \"cdi\"\n");
  Json t = probes::probe_container_toolkit(FsRoot(dir_.string()));
  EXPECT_EQ(t["mode"]["value"], "auto");
  EXPECT_TRUE(t["version"]["value"].is_null());  // no dpkg status file
}

TEST_F(ContainerToolkitProbe, NoToolkitIsUnknownNotAuto) {
  Json t = probes::probe_container_toolkit(FsRoot(dir_.string()));
  EXPECT_TRUE(t["mode"]["value"].is_null());
  EXPECT_TRUE(t["version"]["value"].is_null());
}

}  // namespace
}  // namespace cudiag
