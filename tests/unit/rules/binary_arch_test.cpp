// The binary_arch rules (src/rules/binary_arch_rules.cpp) over reports whose
// `binaries` key is written by hand: which outcome, which severity, how GPUs
// and libraries are grouped, and what the remediation names. The scenarios
// (tests/scenarios/nccl-*.json) cover the public cases; the collect tests
// (tests/unit/collect/binaries_test.cpp) the probe on nvcc-built libraries.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/json.h"
#include "kb/knowledge_base.h"
#include "report/assume.h"
#include "report/collect.h"
#include "rules/engine.h"

namespace cudiag {
namespace {

struct Lib {
  std::string library = "nccl";
  std::string name = "NCCL";
  std::string path = "/usr/lib/x86_64-linux-gnu/libnccl.so.2";
  std::string version = "2.21.5";
  std::vector<std::string> sass;
  std::vector<std::pair<std::string, std::string>> ptx;  // arch, ISA
  Json loader_pick = true;
  std::vector<std::string> components_sass;  // a second file beside it (cuDNN's libcudnn_*.so)
};

Json file_json(const std::string& path, const std::vector<std::string>& sass,
               const std::vector<std::pair<std::string, std::string>>& ptx) {
  Json ptxs = Json::array();
  for (const auto& [arch, isa] : ptx) ptxs.push_back({{"arch", arch}, {"ptx_isa", isa}});
  return {{"path", path},
          {"needed", Json::array()},
          {"rpath", Json::array()},
          {"runpath", Json::array()},
          {"architectures", {{"sass", sass}, {"ptx", ptxs}, {"source", "fatbin headers of " + path}}}};
}

Json report_with(const std::vector<Lib>& libs, const std::vector<std::string>& assume) {
  Json report = report::new_report();
  Json list = Json::array();
  for (std::size_t i = 0; i < libs.size(); ++i) {
    const Lib& l = libs[i];
    Json files = Json::array();
    files.push_back(file_json(l.path, l.sass, l.ptx));
    if (!l.components_sass.empty()) files.push_back(file_json(l.path + ".component", l.components_sass, {}));
    Json j = {{"library", l.library}, {"name", l.name},       {"instance", i}, {"path", l.path},
              {"real_path", l.path},  {"version", l.version}, {"files", files}};
    if (!l.loader_pick.is_null()) j["loader_pick"] = l.loader_pick;
    list.push_back(j);
  }
  report["binaries"] = {{"libraries", list}};
  report::apply_assumptions(report, assume, kb::KnowledgeBase::builtin());
  return report;
}

std::vector<rules::Finding> binary_arch_findings(const Json& report) {
  auto d = rules::diagnose(report, kb::KnowledgeBase::builtin());
  std::vector<rules::Finding> out;
  for (const auto& f : d.findings)
    if (f.id.starts_with("libraries.binary_arch")) out.push_back(f);
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(BinaryArchRules, NoBinariesKeyMeansNoFinding) {
  Json report = report::new_report();
  report::apply_assumptions(report, {"gpu=sm_120", "driver=570.86.10"}, kb::KnowledgeBase::builtin());
  EXPECT_TRUE(binary_arch_findings(report).empty());
}

TEST(BinaryArchRules, NativeSassGivesNothing) {
  Lib l;
  l.sass = {"sm_80", "sm_90", "sm_120"};
  // sm_86 runs sm_80 SASS (same major, higher minor); sm_121 runs sm_120.
  for (const char* gpu : {"gpu=sm_86", "gpu=sm_121", "gpu=sm_90"})
    EXPECT_TRUE(binary_arch_findings(report_with({l}, {gpu, "driver=580.65.06"})).empty()) << gpu;
}

TEST(BinaryArchRules, ArchSpecificSassDoesNotCarryToTheNextGpu) {
  Lib l;
  l.sass = {"sm_80", "sm_90a"};
  auto fs = binary_arch_findings(report_with({l}, {"gpu=sm_100", "driver=580.65.06"}));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "libraries.binary_arch_missing");
  EXPECT_TRUE(fs[0].independent) << "a GPU newer than the build is not a consequence of another layer";
  EXPECT_TRUE(has(fs[0].remediation, "sm_100")) << fs[0].remediation;
  EXPECT_TRUE(has(fs[0].remediation, "CUDA 12.8")) << fs[0].remediation;
}

TEST(BinaryArchRules, PtxNewerThanTheDriverIsItsOwnError) {
  Lib l;
  l.sass = {"sm_80", "sm_90"};
  l.ptx = {{"compute_90", "8.8"}};  // a CUDA 12.9 build
  // R570 reports CUDA 12.8, whose JIT takes PTX ISA up to 8.7.
  auto fs = binary_arch_findings(report_with({l}, {"gpu=RTX 5090", "driver=570.86.10"}));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "libraries.binary_arch_ptx_too_new");
  EXPECT_EQ(fs[0].severity, rules::Severity::kError);
  EXPECT_TRUE(has(fs[0].message, "PTX ISA 8.8")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].message, "8.7")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].remediation, "CUDA 12.9")) << fs[0].remediation;
  // The same library on a driver whose JIT accepts 8.8 only costs JIT time.
  auto later = binary_arch_findings(report_with({l}, {"gpu=RTX 5090", "driver=575.51.03"}));
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].id, "libraries.binary_arch_jit");
  EXPECT_EQ(later[0].severity, rules::Severity::kWarning);
}

TEST(BinaryArchRules, UnknownDriverStillSaysJit) {
  Lib l;
  l.ptx = {{"compute_80", "9.0"}};
  auto fs = binary_arch_findings(report_with({l}, {"gpu=sm_120"}));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "libraries.binary_arch_jit");
}

TEST(BinaryArchRules, GpuOlderThanTheBuildNamesTheLastCudaForIt) {
  Lib l;
  l.library = "cublas";
  l.name = "cuBLAS";
  l.version = "13.1.0";
  l.path = "/usr/local/cuda-13.0/lib64/libcublas.so.13";
  l.sass = {"sm_75", "sm_80", "sm_90", "sm_100", "sm_120"};
  l.ptx = {{"compute_120", "9.0"}};
  auto fs = binary_arch_findings(report_with({l}, {"gpu=V100", "driver=580.65.06"}));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "libraries.binary_arch_missing");
  EXPECT_TRUE(has(fs[0].message, "every architecture it carries is newer")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].remediation, "CUDA 12.9 or earlier")) << fs[0].remediation;
  // The toolkit dropped the GPU: the cuda_runtime rules say so first.
  EXPECT_FALSE(fs[0].independent);
}

TEST(BinaryArchRules, OneFindingPerArchitectureAndOutcome) {
  Lib nccl;
  nccl.sass = {"sm_80", "sm_90"};
  Lib cublas;
  cublas.library = "cublas";
  cublas.name = "cuBLAS";
  cublas.path = "/usr/lib/x86_64-linux-gnu/libcublas.so.12";
  cublas.version = "12.1.3";
  cublas.sass = {"sm_80", "sm_90"};
  // Two sm_120 GPUs and one sm_90: one finding (sm_120) naming both libraries.
  auto fs = binary_arch_findings(
      report_with({nccl, cublas}, {"gpu=RTX 5090", "gpu=RTX 5090", "gpu=H100", "driver=580.65.06"}));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_TRUE(has(fs[0].message, "2 libraries")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].message, "NCCL 2.21.5")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].message, "cuBLAS 12.1.3")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].message, "sm_120")) << fs[0].message;
  // A second architecture that also lacks code is its own finding.
  auto two = binary_arch_findings(report_with({nccl}, {"gpu=RTX 5090", "gpu=B200", "driver=580.65.06"}));
  EXPECT_EQ(two.size(), 2u);
}

TEST(BinaryArchRules, ACopyNothingLoadsIsAWarningAndTheOneThatRunsIsNamed) {
  Lib old_copy;
  old_copy.path = "/opt/old/lib/libnccl.so.2";
  old_copy.sass = {"sm_80", "sm_90"};
  old_copy.loader_pick = false;
  Lib good;
  good.path = "/usr/lib/x86_64-linux-gnu/libnccl.so.2";
  good.version = "2.26.2";
  good.sass = {"sm_80", "sm_90", "sm_120"};
  auto fs = binary_arch_findings(report_with({old_copy, good}, {"gpu=RTX 5090", "driver=580.65.06"}));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, rules::Severity::kWarning);
  EXPECT_TRUE(has(fs[0].message, "not the copy the loader picks")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].remediation, "/usr/lib/x86_64-linux-gnu/libnccl.so.2")) << fs[0].remediation;

  // The same copy is an error once a framework loads it.
  Json report = report_with({old_copy, good}, {"gpu=RTX 5090", "driver=580.65.06"});
  report["frameworks"] = {
      {"environments",
       {{{"prefix", "/venv"},
         {"frameworks",
          {{{"name", "torch"}, {"loads", {{{"soname", "libnccl.so.2"}, {"path", old_copy.path}}}}}}}}}}};
  auto loaded = binary_arch_findings(report);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].severity, rules::Severity::kError);
}

TEST(BinaryArchRules, CudnnComponentsCountAsTheInstancesCode) {
  Lib cudnn;
  cudnn.library = "cudnn";
  cudnn.name = "cuDNN";
  cudnn.path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9";
  cudnn.version = "9.1.0";
  cudnn.components_sass = {"sm_80", "sm_90"};  // the shim itself carries none
  EXPECT_TRUE(binary_arch_findings(report_with({cudnn}, {"gpu=H100", "driver=580.65.06"})).empty());
  auto fs = binary_arch_findings(report_with({cudnn}, {"gpu=RTX 5090", "driver=580.65.06"}));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_TRUE(has(fs[0].evidence.front().source, "1 more file")) << fs[0].evidence.front().source;
}

}  // namespace
}  // namespace cudiag
