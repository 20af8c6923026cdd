// The build fixes computed from a message's versions and the knowledge base:
// which layer changes and what to install, for nvcc rejecting an architecture
// and for a PyTorch extension built with another CUDA major than torch's.
#include "explain/build_fixes.h"

#include <gtest/gtest.h>

#include "kb/knowledge_base.h"

namespace cudiag::explain {
namespace {

const kb::KnowledgeBase& kb() { return kb::KnowledgeBase::builtin(); }

Version v(const char* text) { return *Version::parse(text); }

TEST(BuildFixesTest, AnExtensionMismatchIsTheTorchBuildWhenTheReleasePublishesTheToolkitsMajor) {
  // torch 2.1-2.7 publish cu121 beside cu118: install it.
  auto f = extension_cuda_fix(kb(), v("12.1"), v("11.8"), std::nullopt);
  EXPECT_EQ(f.layer, "frameworks");
  EXPECT_NE(f.fix.find("whl/cu121"), std::string::npos) << f.fix;
  EXPECT_NE(f.fix.find("CUDA_HOME=/usr/local/cuda-11.8"), std::string::npos) << f.fix;  // the other way
  // The nearest build at or below the toolkit: cu121 for a 12.3 toolkit, not cu124.
  EXPECT_NE(extension_cuda_fix(kb(), v("12.3"), v("11.8"), std::nullopt).fix.find("whl/cu121"),
            std::string::npos);
  // A stated release decides: torch 2.0 has no CUDA 12 build, so the toolkit must be torch's.
  auto old = extension_cuda_fix(kb(), v("12.1"), v("11.8"), v("2.0.0"));
  EXPECT_EQ(old.layer, "");
  EXPECT_NE(old.fix.find("torch 2.0.0 has no build for CUDA 12.x"), std::string::npos) << old.fix;
  EXPECT_NE(old.fix.find("cuda-11.8"), std::string::npos) << old.fix;
  // No release with a CUDA 11.3 build has a CUDA 12 one.
  EXPECT_EQ(extension_cuda_fix(kb(), v("12.1"), v("11.3"), std::nullopt).layer, "");
  // A stated release that has it names the exact pin.
  auto pinned = extension_cuda_fix(kb(), v("10.1"), v("11.3"), v("1.10.2"));
  EXPECT_EQ(pinned.layer, "frameworks");
  EXPECT_NE(pinned.fix.find("torch==1.10.2 "), std::string::npos) << pinned.fix;
  EXPECT_NE(pinned.fix.find("whl/cu102"), std::string::npos) << pinned.fix;
}

TEST(BuildFixesTest, ADroppedArchitectureOrNativeIsTheBuildsList) {
  auto kepler = nvcc_arch_fix(kb(), "compute_35", false, std::nullopt, std::nullopt, "");
  ASSERT_TRUE(kepler);
  EXPECT_EQ(kepler->layer, "binaries");
  EXPECT_NE(kepler->fix.find("CUDA 11.8"), std::string::npos);
  // An nvcc that still targets it, ptxas rejecting what nvcc accepted, an architecture too new, or one
  // the newest major dropped with the nvcc unknown: the toolkit answer stands.
  EXPECT_FALSE(nvcc_arch_fix(kb(), "compute_35", false, v("11.5"), std::nullopt, ""));
  EXPECT_FALSE(nvcc_arch_fix(kb(), "sm_30", true, std::nullopt, std::nullopt, ""));
  EXPECT_FALSE(nvcc_arch_fix(kb(), "compute_89", false, std::nullopt, std::nullopt, ""));
  EXPECT_FALSE(nvcc_arch_fix(kb(), "compute_61", false, std::nullopt, std::nullopt, ""));
  // ... but with CUDA 13's nvcc stated, Pascal is dropped.
  auto pascal = nvcc_arch_fix(kb(), "compute_61", false, v("13.0"), std::nullopt, "");
  ASSERT_TRUE(pascal);
  EXPECT_NE(pascal->fix.find("yours is 13.0"), std::string::npos) << pascal->fix;
  auto native = nvcc_arch_fix(kb(), "native", false, v("11.5"), v("8.6"), "GeForce RTX 3090");
  ASSERT_TRUE(native);
  EXPECT_NE(native->fix.find("CMAKE_CUDA_ARCHITECTURES=86 for the GeForce RTX 3090"), std::string::npos)
      << native->fix;
}

TEST(BuildFixesTest, AWrongTorchVariantNamesTheReleasesBuildForTheWantedCuda) {
  EXPECT_FALSE(torch_variant_fix(kb(), v("2.1.0"), std::nullopt));
  auto modern = torch_variant_fix(kb(), v("2.1.0"), v("12.1"));
  ASSERT_TRUE(modern);
  EXPECT_EQ(modern->layer, "frameworks");
  EXPECT_NE(modern->fix.find("torch==2.1.0+cu121 --index-url https://download.pytorch.org/whl/cu121"),
            std::string::npos)
      << modern->fix;
  // Before 1.11 the wheels are on the torch_stable.html page, where the +cuXY pin decides.
  auto old = torch_variant_fix(kb(), v("1.5.0"), v("10.2"));
  ASSERT_TRUE(old);
  EXPECT_NE(old->fix.find("torch==1.5.0+cu102 -f https://download.pytorch.org/whl/torch_stable.html"),
            std::string::npos)
      << old->fix;
  // The nearest build of the wanted major when the exact one does not exist (torch 2.1: cu121 for 12.3).
  EXPECT_NE(torch_variant_fix(kb(), v("2.1.0"), v("12.3"))->fix.find("+cu121"), std::string::npos);
}

TEST(BuildFixesTest, AMinorToolkitDifferenceLinesTheToolkitUpWithTorch) {
  // 11.8 against torch's 11.7: CUDA_HOME at torch's toolkit first (what the threads did).
  auto f = extension_cuda_fix(kb(), v("11.8"), v("11.7"), std::nullopt);
  EXPECT_EQ(f.layer, "cuda_runtime");
  EXPECT_NE(f.fix.find("CUDA_HOME=/usr/local/cuda-11.7"), std::string::npos) << f.fix;
  EXPECT_NE(f.fix.find("only in the minor version"), std::string::npos) << f.fix;
}

TEST(BuildFixesTest, AnUndefinedCudaIdentifierNamesTheReleaseThatAddedOrRemovedIt) {
  auto added = identifier_fix(kb(), "__shfl_down_sync", v("8.0.44"));
  ASSERT_TRUE(added);
  EXPECT_EQ(added->layer, "cuda_runtime");
  EXPECT_NE(added->fix.find("came with CUDA 9.0"), std::string::npos) << added->fix;
  EXPECT_NE(added->fix.find("nvcc 8.0.44 here"), std::string::npos) << added->fix;
  // nvcc already new enough: another toolkit's headers are found first.
  auto mixed = identifier_fix(kb(), "cudaMallocAsync", v("12.1"));
  ASSERT_TRUE(mixed);
  EXPECT_NE(mixed->fix.find("another, older toolkit's headers"), std::string::npos) << mixed->fix;
  // Removed: the last toolkit before the removal, from toolkit_drivers.
  auto removed = identifier_fix(kb(), "cudaBindTexture", std::nullopt);
  ASSERT_TRUE(removed);
  EXPECT_NE(removed->fix.find("gone from CUDA 12.0"), std::string::npos) << removed->fix;
  EXPECT_NE(removed->fix.find("CUDA 11.8 (the last before 12.0)"), std::string::npos) << removed->fix;
  // An older nvcc still has a removed name: not this fix. A name the table lacks: nothing.
  EXPECT_FALSE(identifier_fix(kb(), "cudaBindTexture", v("11.8")));
  EXPECT_FALSE(identifier_fix(kb(), "myOwnKernelHelper", std::nullopt));
}

}  // namespace
}  // namespace cudiag::explain
