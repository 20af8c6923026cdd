// Spot checks: the values the done-when items depend on, each as
// stated by NVIDIA's documentation (see docs/knowledge-base.md).
#include <gtest/gtest.h>

#include "kb/knowledge_base.h"

namespace cudiag::kb {
namespace {

Version ver(const char* s) { return *Version::parse(s); }
const KnowledgeBase& kb() { return KnowledgeBase::builtin(); }

TEST(KnowledgeBaseQueryTest, DriverForCuda124IsFull550AndMvc525) {
  auto r = kb().driver_for_cuda(ver("12.4"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->release->cuda.text(), "12.4.0");
  ASSERT_TRUE(r->full_min && r->mvc_min);
  EXPECT_EQ(r->full_min->text(), "550.54.14");
  EXPECT_EQ(r->mvc_min->text(), "525.60.13");
  EXPECT_FALSE(r->sources.empty());
  // An update asks for its own row.
  EXPECT_EQ(kb().driver_for_cuda(ver("12.4.1"))->full_min->text(), "550.54.15");
}

TEST(KnowledgeBaseQueryTest, DriverForCuda130And128) {
  auto r = kb().driver_for_cuda(ver("13.0"));
  ASSERT_TRUE(r && r->full_min && r->mvc_min);
  EXPECT_EQ(r->full_min->text(), "580.65.06");
  EXPECT_EQ(r->mvc_min->text(), "580.65.06");
  auto r128 = kb().driver_for_cuda(ver("12.8"));
  ASSERT_TRUE(r128 && r128->full_min && r128->bundled);
  EXPECT_EQ(r128->full_min->text(), "570.26");
  EXPECT_EQ(r128->bundled->text(), "570.86.10");
}

TEST(KnowledgeBaseQueryTest, OldReleasesHaveNoMinorVersionCompatibility) {
  auto r = kb().driver_for_cuda(ver("10.2"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->mvc, nullptr);
  EXPECT_FALSE(r->mvc_min);
  EXPECT_EQ(r->full_min->text(), "440.33");
  // 11.0 needs only its own driver; the rest of 11.x needs 450.80.02.
  EXPECT_EQ(kb().driver_for_cuda(ver("11.0"))->mvc_min->text(), "450.36.06");
  EXPECT_EQ(kb().driver_for_cuda(ver("11.8"))->mvc_min->text(), "450.80.02");
  EXPECT_FALSE(kb().driver_for_cuda(ver("12.7")));  // never released
}

TEST(KnowledgeBaseQueryTest, WindowsColumn) {
  auto r = kb().driver_for_cuda(ver("11.4"), "windows");
  ASSERT_TRUE(r && r->full_min);
  EXPECT_EQ(r->full_min->text(), "471.11");
  EXPECT_EQ(kb().mvc_for_major(12)->windows_min->text(), "528.33");
}

TEST(KnowledgeBaseQueryTest, DisagreementsAreRecorded) {
  auto r91 = kb().driver_for_cuda(ver("9.1"));
  ASSERT_TRUE(r91);
  EXPECT_EQ(r91->full_min->text(), "390.46");
  EXPECT_EQ(r91->release->confidence, Confidence::kDisputed);
  EXPECT_NE(r91->release->note.find("387.26"), std::string::npos);
  const Arch* sm72 = kb().arch("sm_72");
  ASSERT_NE(sm72, nullptr);
  EXPECT_EQ(sm72->confidence, Confidence::kDisputed);
  EXPECT_NE(sm72->note.find("9.2"), std::string::npos);
}

TEST(KnowledgeBaseQueryTest, CudaForDriver) {
  EXPECT_EQ(kb().cuda_for_driver(ver("535.104.05"))->text(), "12.2");
  EXPECT_EQ(kb().cuda_for_driver(ver("470.82.01"))->text(), "11.4");
  EXPECT_EQ(kb().cuda_for_driver(ver("580.65.06"))->text(), "13.0");
  // A Windows driver number falls into its branch.
  EXPECT_EQ(kb().cuda_for_driver(ver("537.13"))->text(), "12.2");
  auto m = kb().branch_for_driver(ver("600.10"));
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->exact);
  EXPECT_FALSE(kb().cuda_for_driver(ver("300.1")));
}

TEST(KnowledgeBaseQueryTest, PtxIsa) {
  EXPECT_EQ(kb().ptx_isa_for_cuda(ver("12.4"))->text(), "8.4");
  EXPECT_EQ(kb().ptx_isa_for_cuda(ver("12.4.1"))->text(), "8.4");
  EXPECT_EQ(kb().ptx_isa_for_cuda(ver("13.0"))->text(), "9.0");
  EXPECT_EQ(kb().cuda_for_ptx_isa(ver("8.8"))->text(), "12.9");
  EXPECT_EQ(kb().cuda_for_ptx_isa(ver("8.5"))->text(), "12.5");
  EXPECT_FALSE(kb().cuda_for_ptx_isa(ver("99.0")));
}

TEST(KnowledgeBaseQueryTest, Architectures) {
  for (const char* q : {"sm_120", "12.0", "120", "compute_120", "SM_120"}) {
    const Arch* a = kb().arch(q);
    ASSERT_NE(a, nullptr) << q;
    EXPECT_EQ(a->name, "Blackwell");
    EXPECT_EQ(a->first_cuda->text(), "12.8");
  }
  auto m = kb().arch_match("sm_90a");
  ASSERT_TRUE(m && m->variant);
  EXPECT_EQ(m->variant->first_cuda->text(), "12.0");
  EXPECT_EQ(kb().arch("sm_99"), nullptr);
  EXPECT_EQ(kb().arch("sm_75a"), nullptr);  // no arch-specific Turing target
  EXPECT_EQ(*kb().arch("sm_70")->last_driver_branch, 580);
  EXPECT_EQ(kb().arch("sm_70")->last_cuda->text(), "12.9");
  EXPECT_FALSE(kb().arch("sm_90")->last_cuda);  // still targeted
  auto f = kb().arch_match("sm_100f");
  ASSERT_TRUE(f && f->variant);
  EXPECT_EQ(f->variant->runs_on.size(), 2u);
}

TEST(KnowledgeBaseQueryTest, ErrorCodes) {
  const auto* e = kb().error("driver", 804);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE");
  EXPECT_EQ(kb().error("nvml", 9)->name, "NVML_ERROR_DRIVER_NOT_LOADED");
  EXPECT_EQ(kb().error("runtime", 35)->name, "cudaErrorInsufficientDriver");
  EXPECT_EQ(kb().error("driver", 35), nullptr);  // runtime only
  EXPECT_EQ(kb().error("runtime", 209)->name, "cudaErrorNoKernelImageForDevice");
  EXPECT_EQ(kb().errors_with_code(804).size(), 2u);
  ASSERT_NE(kb().error_named("cuda_error_no_binary_for_gpu"), nullptr);
  EXPECT_EQ(kb().error_named("cuda_error_no_binary_for_gpu")->code, 209);
}

// The messages are what cudaGetErrorString / cuGetErrorString / nvmlErrorString print
// (scripts/gen_cuda_error_codes.py --check compares them with the installed libraries).
TEST(KnowledgeBaseQueryTest, ErrorsAreFoundByTheMessageTheirStringFunctionPrints) {
  auto e =
      kb().errors_with_message("no kernel image is available for execution on the device (at foo.cu:12)");
  // Both the runtime and the driver API print it; the caller picks by context.
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0]->name, "cudaErrorNoKernelImageForDevice");
  EXPECT_EQ(e[1]->name, "CUDA_ERROR_NO_BINARY_FOR_GPU");
  auto one = kb().errors_with_message("CUDA driver version is insufficient for CUDA runtime version");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]->name, "cudaErrorInsufficientDriver");
  // The longest message wins, and a message must end at a word boundary.
  EXPECT_TRUE(kb().errors_with_message("out of memoryless").empty());
  ASSERT_EQ(kb().errors_with_message("Driver/library version mismatch").size(), 1u);
  EXPECT_EQ(kb().errors_with_message("Driver/library version mismatch")[0]->api, "nvml");
  EXPECT_TRUE(kb().errors_with_message("hello world").empty());
}

TEST(KnowledgeBaseQueryTest, Gpus) {
  const Gpu* g = kb().gpu_by_pci_id(0x2684);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->name, "GeForce RTX 4090");
  EXPECT_EQ(g->cc.text(), "8.9");
  auto m = kb().gpus_matching("RTX 4090");
  ASSERT_GE(m.size(), 1u);
  EXPECT_EQ(m.front()->pci_id, 0x2684u);  // the exact product before the 4090 D
  auto smi = kb().gpus_matching("NVIDIA GeForce RTX 4090");
  ASSERT_FALSE(smi.empty());
  EXPECT_EQ(smi.front()->pci_id, 0x2684u);
  auto h100 = kb().gpus_matching("NVIDIA H100 80GB HBM3");  // nvidia-smi's name for the SXM part
  ASSERT_FALSE(h100.empty());
  EXPECT_EQ(h100.front()->cc.text(), "9.0");
  EXPECT_EQ(kb().gpu_by_pci_id(0x2b85)->cc.text(), "12.0");  // RTX 5090
  EXPECT_EQ(kb().gpu_by_pci_id(0x1db4)->cc.text(), "7.0");   // V100 PCIe
  EXPECT_TRUE(kb().gpus_matching("nonexistent 9999").empty());
  EXPECT_TRUE(kb().gpus_matching("GeForce").empty());  // a brand alone names no product
  // TITAN names have no number: Maxwell's GTX TITAN X and Pascal's TITAN X are two architectures.
  auto maxwell = kb().gpus_matching("NVIDIA GeForce GTX TITAN X");
  ASSERT_FALSE(maxwell.empty());
  EXPECT_EQ(maxwell.front()->cc.text(), "5.2");
  auto pascal = kb().gpus_matching("TITAN X");
  ASSERT_EQ(pascal.size(), 1u);  // the exact name only
  EXPECT_EQ(pascal.front()->cc.text(), "6.1");
  EXPECT_EQ(kb().gpus_matching("GTX TITAN Black").front()->cc.text(), "3.5");
}

TEST(KnowledgeBaseQueryTest, ForwardCompatAndLibraries) {
  const auto& f = kb().forward_compat();
  EXPECT_EQ(f.gpu_classes.size(), 3u);
  const auto* r = f.release_for(ver("575.57.08"));
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->supports_host_branch(535));
  EXPECT_FALSE(r->supports_host_branch(470));
  ASSERT_NE(f.image_branches_for(ver("12.9.1")), nullptr);
  EXPECT_EQ(f.image_branches_for(ver("12.9.1"))->branches.front(), 535);
  EXPECT_EQ(kb().decode_version("cudnn", 90100)->text(), "9.1.0");
  EXPECT_EQ(kb().decode_version("cudnn", 8907)->text(), "8.9.7");
  EXPECT_EQ(kb().decode_version("cudnn", 91001)->text(), "9.10.1");
  EXPECT_EQ(kb().decode_version("nccl", 2708)->text(), "2.7.8");
  EXPECT_EQ(kb().decode_version("nccl", 22707)->text(), "2.27.7");
  EXPECT_EQ(kb().decode_version("cuda", 12040)->text(), "12.4");
  EXPECT_FALSE(kb().decode_version("nosuchlib", 1));
  ASSERT_NE(kb().library("cudart", 12), nullptr);
  EXPECT_EQ(kb().library("cudart", 12)->linux_sonames.front(), "libcudart.so.12");
  EXPECT_EQ(kb().library("cufft", 12)->linux_sonames.front(), "libcufft.so.11");
  EXPECT_NO_THROW(kb().raw("gpus"));
}

}  // namespace
// The host compilers nvcc accepts, read from crt/host_config.h of each release
// (data/kb/host_compilers.json); 13.0's is the header in this machine's /usr/local/cuda.
TEST(KnowledgeBaseQueryTest, HostCompilersNvccAccepts) {
  ASSERT_NE(kb().first_cuda_for_gcc(8), std::nullopt);
  EXPECT_EQ(kb().first_cuda_for_gcc(8)->text(), "10.1");   // "gcc versions later than 7" (CUDA 9.2, 10.0)
  EXPECT_EQ(kb().first_cuda_for_gcc(12)->text(), "12.0");  // 11.x stops at GCC 11
  EXPECT_EQ(kb().first_cuda_for_gcc(5)->text(), "8.0");
  EXPECT_EQ(kb().first_cuda_for_gcc(99), std::nullopt);  // none known: unknown, not a guess
  const auto* h = kb().host_compilers_for(*Version::parse("11.4.2"));
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->gcc_max, 11);  // 11.4.1 raised it from 10
  EXPECT_EQ(kb().host_compilers_for(*Version::parse("11.4.0"))->gcc_max, 10);
  EXPECT_EQ(kb().host_compilers_for(*Version::parse("13.0.88"))->gcc_max, 15);
  EXPECT_EQ(kb().host_compilers_for(*Version::parse("7.5")), nullptr);
}

}  // namespace cudiag::kb

namespace cudiag::kb {
namespace {

// GeForce models the product list lacks take their series' architecture from the architectures'
// examples; an exact example wins, a series that spans architectures gives none.
TEST(KnowledgeBaseQueryTest, GeforceModelsOutsideTheProductListTakeTheirSeriesArchitecture) {
  const auto& kb = KnowledgeBase::builtin();
  auto cc = [&](const char* name) {
    const auto* a = kb.arch_for_geforce_series(name);
    return a ? a->cc.text() : std::string("none");
  };
  EXPECT_EQ(cc("GeForce GTX 750 Ti"), "5.0");  // the exact example, not the 600/700 series
  EXPECT_EQ(cc("GTX 970"), "5.2");
  EXPECT_EQ(cc("NVIDIA GeForce RTX 3050 Ti Laptop GPU"), "8.6");
  EXPECT_EQ(cc("RTX 4060 laptop"), "8.9");
  EXPECT_EQ(cc("GTX 1650 Ti"), "7.5");
  EXPECT_EQ(cc("RTX 5070 Ti"), "12.0");
  EXPECT_EQ(cc("Quadro P2000"), "none");
  EXPECT_EQ(cc("RTX 9090"), "none");
}

}  // namespace
}  // namespace cudiag::kb
