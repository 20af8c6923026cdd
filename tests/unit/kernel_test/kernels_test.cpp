// The embedded test kernels: the checked-in PTX really is low-ISA and valid
// (ptxas of this machine's CUDA 13 toolkit assembles it), the nvcc-built
// fatbin carries SASS for exactly the architectures the build says (read by
// cudiag's own fatbin walker), and the element check catches one ulp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "inspect/byte_view.h"
#include "inspect/fatbin.h"
#include "kernel_test/kernel_spec.h"

namespace cudiag::kernel_test {
using namespace cudiag::inspect;
namespace {

TEST(KernelTestKernels, EmbeddedPtxIsLowIsaForSm50AndNulTerminated) {
  auto ptx = embedded_ptx();
  ASSERT_FALSE(ptx.empty());
  EXPECT_EQ(ptx.back(), '\0');
  EXPECT_EQ(ptx_directive(ptx, ".version"), "6.0");
  EXPECT_EQ(ptx_directive(ptx, ".target"), "sm_50");
  EXPECT_NE(ptx.find(".visible .entry cudiag_axpy("), std::string_view::npos);
}

TEST(KernelTestKernels, PtxasAcceptsTheEmbeddedPtx) {
  const char* ptxas = "/usr/local/cuda/bin/ptxas";
  if (!std::filesystem::exists(ptxas)) GTEST_SKIP() << "no ptxas on this machine";
  auto dir = std::filesystem::temp_directory_path() / ("cudiag-ptx-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto ptx = embedded_ptx();
  std::ofstream(dir / "axpy.ptx") << ptx.substr(0, ptx.size() - 1);
  std::string cmd = std::string(ptxas) + " -arch=sm_75 " + (dir / "axpy.ptx").string() + " -o " +
                    (dir / "axpy.cubin").string() + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "axpy.cubin"));
  std::filesystem::remove_all(dir);
}

TEST(KernelTestKernels, FatbinHoldsSassForEveryArchitectureTheBuildLists) {
  auto fatbin = embedded_fatbin();
  if (fatbin.empty()) GTEST_SKIP() << "built without nvcc: only the PTX is embedded";
  std::vector<FatbinBlob> blobs;
  std::vector<FatbinEntry> entries;
  std::vector<std::string> warnings;
  walk_fatbin_region(ByteView(reinterpret_cast<const unsigned char*>(fatbin.data()), fatbin.size()),
                     ".nv_fatbin", "", blobs, entries, warnings);
  std::vector<int> sass;
  for (const auto& e : entries) {
    if (kind_name(e.kind) == "sass") sass.push_back(e.arch.major * 10 + e.arch.minor);
    EXPECT_EQ(compression_name(e.compression), "none");
  }
  EXPECT_EQ(sass, sass_archs());
  EXPECT_FALSE(sass.empty());
}

TEST(KernelTestKernels, TheCheckFindsOneUlpAndAcceptsTheExactResult) {
  auto in = random_inputs(42, 1000);
  std::vector<float> y(in.x.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::fma(in.a, in.x[i], in.b);
  EXPECT_FALSE(first_mismatch(in, y).has_value());
  y[617] = std::nextafter(y[617], 10.0f);
  auto bad = first_mismatch(in, y);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->index, 617u);
  // A short result is a mismatch at the first missing element.
  y.resize(10);
  EXPECT_EQ(first_mismatch(in, y)->index, 10u);
}

TEST(KernelTestKernels, InputsDependOnTheSeedOnly) {
  EXPECT_EQ(random_inputs(7, 64).x, random_inputs(7, 64).x);
  EXPECT_NE(random_inputs(7, 64).x, random_inputs(8, 64).x);
}

}  // namespace
}  // namespace cudiag::kernel_test
