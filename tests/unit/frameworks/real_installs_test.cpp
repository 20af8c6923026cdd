// The frameworks layer against real installs on this machine: Debian's
// python3-torch (a CPU build, installed by scripts/install-deps.sh) and real
// nvidia-* wheels from PyPI installed into a venv under the build directory
// the first time this test runs (skipped when PyPI cannot be reached).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "machine/library_search.h"
#include "machine/machine.h"
#include "probes/frameworks/framework_loader.h"
#include "probes/frameworks/frameworks_probe.h"

namespace cudiag {
namespace {

namespace fs = std::filesystem;

// Real wheels, a few MB each: the CUDA 12 runtime and the CUDA 13 one, which
// drops the -cu13 suffix and installs into nvidia/cu13/lib.
constexpr const char* kWheels = "nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-runtime==13.0.96";

Json probe_real(std::map<std::string, std::string> vars, const std::vector<std::string>& pythons) {
  machine::Machine machine{FsRoot("/"), machine::Environment::from_map(std::move(vars)), {}};
  machine::LibrarySearch search(machine.root, machine.env);
  probes::ProbeContext ctx{machine, search, ""};
  return probes::probe_frameworks(ctx, pythons);
}

const Json* env_at(const Json& layer, const std::string& prefix) {
  for (const auto& e : layer["environments"])
    if (e["prefix"] == prefix) return &e;
  return nullptr;
}

TEST(FrameworksRealInstall, DebianTorchIsACpuBuild) {
  if (!fs::exists("/usr/lib/python3/dist-packages/torch/version.py"))
    GTEST_SKIP() << "Debian's python3-torch is not installed (scripts/install-deps.sh installs it)";
  auto layer = probe_real({{"PATH", "/usr/bin"}}, {"/usr/bin/python3"});
  const auto* sys = env_at(layer, "/usr");
  ASSERT_NE(sys, nullptr) << layer.dump(1);
  const Json* torch = nullptr;
  for (const auto& f : (*sys)["frameworks"])
    if (f["name"] == "torch") torch = &f;
  ASSERT_NE(torch, nullptr) << sys->dump(1);
  EXPECT_TRUE((*torch)["build"]["cuda"]["value"].is_null());
  EXPECT_EQ((*torch)["build"]["cpu_only"]["value"], true);
  EXPECT_TRUE((*torch)["version"]["value"].get<std::string>().starts_with("1.13")) << (*torch)["version"];
  // No libtorch_cuda.so in a CPU build, so no device-code architectures.
  for (const auto& b : (*torch)["binaries"]) EXPECT_FALSE(b.contains("architectures")) << b.dump();
}

class FrameworksRealWheels : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Installed by scripts/install-deps.sh (cached), never here: a test that
    // pip-installs while it runs skips when PyPI is away and hides it.
    const char* env = std::getenv("CUDIAG_TEST_WHEELS_VENV");
    venv_ = new fs::path(env && *env ? env : "/var/cache/cudiag-tests/venv-nvidia-wheels");
  }
  void SetUp() override {
    std::ifstream marker(*venv_ / ".installed");
    std::string installed;
    std::getline(marker, installed);
    if (installed != kWheels)
      GTEST_SKIP() << *venv_ << " does not hold " << kWheels << ": run scripts/install-deps.sh";
  }
  static std::string site_packages() {
    for (const auto& e : fs::directory_iterator(*venv_ / "lib"))
      if (e.path().filename().string().starts_with("python3.")) return (e.path() / "site-packages").string();
    return "";
  }
  static fs::path* venv_;
};

fs::path* FrameworksRealWheels::venv_ = nullptr;

TEST_F(FrameworksRealWheels, ListsCu12AndCu13WheelsSideBySide) {
  auto layer = probe_real({{"VIRTUAL_ENV", venv_->string()}}, {});
  const auto* env = env_at(layer, venv_->string());
  ASSERT_NE(env, nullptr) << layer.dump(1);
  EXPECT_EQ((*env)["kind"], "venv");
  std::map<std::string, Json> wheels;
  for (const auto& w : (*env)["nvidia_wheels"]) wheels[w["name"]] = w;
  ASSERT_EQ(wheels.count("nvidia-cuda-runtime-cu12"), 1u) << (*env)["nvidia_wheels"].dump(1);
  ASSERT_EQ(wheels.count("nvidia-cuda-runtime"), 1u);
  EXPECT_EQ(wheels["nvidia-cuda-runtime-cu12"]["cuda_major"], 12);
  EXPECT_EQ(wheels["nvidia-cuda-runtime-cu12"]["version"]["value"], "12.9.79");
  EXPECT_EQ(wheels["nvidia-cuda-runtime-cu12"]["lib_dir"], site_packages() + "/nvidia/cuda_runtime/lib");
  EXPECT_EQ(wheels["nvidia-cuda-runtime"]["cuda_major"], 13);
  EXPECT_EQ(wheels["nvidia-cuda-runtime"]["lib_dir"], site_packages() + "/nvidia/cu13/lib");
}

// The loader emulation on the real libcudart.so.13 of the wheel and of the
// CUDA 13.0 toolkit in /usr/local/cuda: RUNPATH loses to LD_LIBRARY_PATH, RPATH wins.
TEST_F(FrameworksRealWheels, LoaderPicksBetweenWheelAndToolkit) {
  if (!fs::exists("/usr/local/cuda/lib64/libcudart.so.13"))
    GTEST_SKIP() << "no CUDA 13 toolkit in /usr/local/cuda";
  FsRoot root("/");
  auto env = machine::Environment::from_map({});
  machine::LibrarySearch search(root, env);
  probes::DynamicObject fw;
  fw.path = site_packages() + "/fake_framework/lib/libframework.so";
  fw.needed = {"libcudart.so.13"};
  fw.runpath = {"$ORIGIN/../../nvidia/cu13/lib"};
  probes::LoaderEmulation with_ld(root, search, {"/usr/local/cuda/lib64"});
  with_ld.load(fw);
  ASSERT_EQ(with_ld.resolved().size(), 1u);
  EXPECT_EQ(with_ld.resolved()[0].path, "/usr/local/cuda/lib64/libcudart.so.13");
  EXPECT_EQ(with_ld.resolved()[0].via, "LD_LIBRARY_PATH");
  fw.rpath = fw.runpath;
  fw.runpath.clear();
  probes::LoaderEmulation with_rpath(root, search, {"/usr/local/cuda/lib64"});
  with_rpath.load(fw);
  ASSERT_EQ(with_rpath.resolved().size(), 1u);
  EXPECT_EQ(with_rpath.resolved()[0].path, site_packages() + "/nvidia/cu13/lib/libcudart.so.13");
  // The real library's own dynamic section was read (its DT_NEEDED are system libraries, not followed).
  auto obj = probes::read_dynamic_object(root, with_rpath.resolved()[0].path);
  EXPECT_EQ(obj.soname, "libcudart.so.13");
  EXPECT_TRUE(obj.error.empty()) << obj.error;
}

}  // namespace
}  // namespace cudiag
