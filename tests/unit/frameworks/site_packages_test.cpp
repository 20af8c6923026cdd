#include "machine/site_packages.h"

#include <gtest/gtest.h>

#include "probes/frameworks/framework_files.h"

namespace cudiag {
namespace {

TEST(FrameworksRequirement, ParsesNameSpecMarkerAndExtra) {
  auto r = machine::parse_requirement(
      "nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\" and platform_machine == \"x86_64\"");
  EXPECT_EQ(r.name, "nvidia-cudnn-cu12");
  EXPECT_EQ(r.spec, "==9.1.0.70");
  EXPECT_EQ(r.extra, "");
  auto old_style = machine::parse_requirement("nvidia_cudnn_cu12 (==8.9.4.25) ; extra == 'and-cuda'");
  EXPECT_EQ(old_style.name, "nvidia-cudnn-cu12");
  EXPECT_EQ(old_style.spec, "==8.9.4.25");
  EXPECT_EQ(old_style.extra, "and-cuda");
  auto with_extras = machine::parse_requirement("jax-cuda12-plugin[with-cuda] <=0.7.1, >=0.7.0");
  EXPECT_EQ(with_extras.name, "jax-cuda12-plugin");
  EXPECT_EQ(with_extras.spec, "<=0.7.1,>=0.7.0");
}

TEST(FrameworksRequirement, VersionSpecifiers) {
  EXPECT_TRUE(version_satisfies("9.1.0.70", "==9.1.0.70"));
  EXPECT_FALSE(version_satisfies("9.0.0.312", "==9.1.0.70"));
  EXPECT_TRUE(version_satisfies("9.10.2.21", ">=9.8,<10.0"));
  EXPECT_FALSE(version_satisfies("9.7.1", ">=9.8,<10.0"));
  EXPECT_FALSE(version_satisfies("10.0.0", ">=9.8,<10.0"));
  EXPECT_TRUE(version_satisfies("12.8.57", "==12.8.*"));
  EXPECT_FALSE(version_satisfies("12.9.79", "==12.8.*"));
  EXPECT_TRUE(version_satisfies("2.25.4", "~=2.25.1"));
  EXPECT_FALSE(version_satisfies("2.26.0", "~=2.25.1"));
  EXPECT_TRUE(version_satisfies("2.4.0+cu124", ">=2.4"));  // the local tag is not part of the comparison
  EXPECT_TRUE(version_satisfies("1.0", ""));
}

TEST(FrameworksRequirement, NormalizesDistributionNames) {
  EXPECT_EQ(machine::normalize_dist_name("nvidia_cuda_runtime_cu12"), "nvidia-cuda-runtime-cu12");
  EXPECT_EQ(machine::normalize_dist_name("Jax.Cuda12__Plugin"), "jax-cuda12-plugin");
}

TEST(FrameworksBuildFiles, TorchVersionPy) {
  auto v = probes::parse_python_assignments(
      "from typing import Optional\n__all__ = ['__version__', 'cuda']\n__version__ = '2.4.0+cu124'\ndebug = "
      "False\n"
      "cuda: Optional[str] = '12.4'\ngit_version = 'e4ee3be4'\nhip: Optional[str] = None\n");
  EXPECT_EQ(v["__version__"], "2.4.0+cu124");
  EXPECT_EQ(v["cuda"], "12.4");
  EXPECT_TRUE(v["hip"].is_null());
  EXPECT_EQ(v["debug"], false);
  EXPECT_EQ(v["__all__"].size(), 2u);
}

TEST(FrameworksBuildFiles, TensorflowBuildInfo) {
  auto b = probes::parse_python_key_values(
      "import collections\nbuild_info = collections.OrderedDict([('cpu_compiler', '/usr/bin/clang'), "
      "('cuda_compute_capabilities', ['sm_50', 'sm_60', 'compute_90']), ('cuda_version', '12.5.1'), "
      "('cudnn_version', '9'), "
      "('is_cuda_build', True), ('is_rocm_build', False)])\n");
  EXPECT_EQ(b["cuda_version"], "12.5.1");
  EXPECT_EQ(b["cudnn_version"], "9");
  EXPECT_EQ(b["is_cuda_build"], true);
  ASSERT_TRUE(b["cuda_compute_capabilities"].is_array());
  EXPECT_EQ(b["cuda_compute_capabilities"].size(), 3u);
  EXPECT_EQ(b.count("sm_50"), 0u);  // list elements are values, not keys
}

TEST(FrameworksBuildFiles, GarbageDoesNotThrow) {
  EXPECT_NO_THROW(probes::parse_python_key_values("('unterminated, [[[[[ 'x' : (\n\0\xff"));
  EXPECT_NO_THROW(probes::parse_python_assignments("= = =\ncuda: = \n x = '"));
}

}  // namespace
}  // namespace cudiag
