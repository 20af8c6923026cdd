// Every layer's state can be stated with --assume and the rules that exist
// then judge it: the finding each stated state must produce.
#include "report/assume_layers.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "report/assume.h"
#include "report/collect.h"
#include "rules/engine.h"
#include "rules/finding.h"
#include "rules/rule_support.h"
#include "stated_findings.h"

namespace cudiag {
namespace {

using test::findings_for;
const auto& find = test::find_finding;

TEST(AssumeLayersTest, FrameworkBuildsFromTheKnowledgeBaseMatrix) {
  auto fs = findings_for({"torch=2.1.0+cu121", "driver=470.82.01"});
  const auto* f = find(fs, "frameworks.cuda_build_needs_newer_driver");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, rules::Severity::kError);
  EXPECT_NE(f->message.find("12.1"), std::string::npos);
  // tensorflow=2.15.0 is the CUDA 12.2 build (tested configurations), jaxlib+cuda12 the CUDA 12 plugin.
  EXPECT_NE(find(findings_for({"tensorflow=2.15.0", "driver=470.82.01"}),
                 "frameworks.cuda_build_needs_newer_driver"),
            nullptr);
  EXPECT_NE(find(findings_for({"jaxlib=0.4.31+cuda12", "driver=470.82.01"}),
                 "frameworks.cuda_build_needs_newer_driver"),
            nullptr);
  EXPECT_NE(find(findings_for({"cupy-cuda12x=13.0.0", "driver=470.82.01"}),
                 "frameworks.cuda_build_needs_newer_driver"),
            nullptr);
  EXPECT_EQ(find(findings_for({"torch=2.1.0+cu118", "driver=535.104.05"}),
                 "frameworks.cuda_build_needs_newer_driver"),
            nullptr);
  EXPECT_NE(find(findings_for({"torch=2.3.0+cpu", "gpu=RTX 4090"}), "frameworks.cpu_only_build_with_gpu"),
            nullptr);
  EXPECT_NE(find(findings_for({"onnxruntime=1.17.0"}), "frameworks.cpu_only_build"), nullptr);
  EXPECT_EQ(find(findings_for({"onnxruntime-gpu=1.17.0"}), "frameworks.cpu_only_build"), nullptr);
}

TEST(AssumeLayersTest, KernelModuleDeviceNodesAndGpus) {
  EXPECT_NE(
      find(findings_for({"kernel_module=not_loaded", "gpu=RTX 4090"}), "kernel_driver.module_not_loaded"),
      nullptr);
  EXPECT_NE(find(findings_for({"kernel_module=535.129.03", "userspace_driver=535.154.05"}),
                 "driver_api.user_kernel_mismatch"),
            nullptr);
  EXPECT_EQ(find(findings_for({"kernel_module=535.129.03", "userspace_driver=535.129.03"}),
                 "driver_api.user_kernel_mismatch"),
            nullptr);
  EXPECT_NE(find(findings_for({"nouveau=bound"}), "kernel_driver.nouveau_bound"), nullptr);
  EXPECT_NE(find(findings_for({"driver=550.54.15", "device_nodes=not_permitted"}),
                 "kernel_driver.device_node_not_accessible"),
            nullptr);
  EXPECT_NE(find(findings_for({"driver=550.54.15", "device_nodes=uvm_missing"}),
                 "kernel_driver.uvm_device_missing"),
            nullptr);
  EXPECT_NE(find(findings_for({"gpu=none"}), "kernel_driver.no_gpu"), nullptr);
  // Pascal's last branch is R580: Windows numbers its drivers 580.xx-582.xx, R590 is too new.
  EXPECT_EQ(find(findings_for({"driver=582.66", "gpu=GeForce GTX 1060"}),
                 "kernel_driver.gpu_unsupported_by_driver"),
            nullptr);
  EXPECT_NE(find(findings_for({"driver=591.74", "gpu=GeForce GTX 1060"}),
                 "kernel_driver.gpu_unsupported_by_driver"),
            nullptr);
}

TEST(AssumeLayersTest, ToolkitOsWslAndContainers) {
  EXPECT_NE(find(findings_for({"nvcc=11.8", "torch=2.1.0+cu121"}), "frameworks.extension_toolkit_mismatch"),
            nullptr);
  EXPECT_EQ(find(findings_for({"nvcc=12.4", "torch=2.1.0+cu121"}), "frameworks.extension_toolkit_mismatch"),
            nullptr);
  EXPECT_NE(
      find(findings_for({"nvcc=11.8", "cuda_home=/usr/local/cuda-12.4"}), "cuda_runtime.toolkit_conflict"),
      nullptr);
  EXPECT_NE(find(findings_for({"os=windows", "tensorflow=2.15.0"}),
                 "frameworks.tensorflow_no_gpu_on_native_windows"),
            nullptr);
  EXPECT_EQ(find(findings_for({"os=windows", "wsl=2", "tensorflow=2.15.0"}),
                 "frameworks.tensorflow_no_gpu_on_native_windows"),
            nullptr);
  EXPECT_NE(find(findings_for({"wsl=1"}), "host.wsl1_no_gpu"), nullptr);
  // A container started without the NVIDIA runtime, whichever order the keys come in.
  EXPECT_NE(
      find(findings_for({"container=docker", "nvidia_runtime=no"}), "host.container_without_gpu_access"),
      nullptr);
  EXPECT_NE(
      find(findings_for({"nvidia_runtime=no", "container=docker"}), "host.container_without_gpu_access"),
      nullptr);
  EXPECT_EQ(find(findings_for({"container=docker"}), "host.container_without_gpu_access"), nullptr);
  EXPECT_NE(find(findings_for({"libcuda=missing"}), "driver_api.library_missing"), nullptr);
}

TEST(AssumeLayersTest, ImageForwardCompatPackage) {
  auto fs = findings_for({"driver=535.104.05", "env.NV_CUDA_COMPAT_PACKAGE=cuda-compat-12-4"});
  const auto* f = find(fs, "host.image_needs_forward_compat");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->remediation.find("550."), std::string::npos) << f->remediation;
  EXPECT_EQ(find(findings_for({"driver=550.54.15", "env.NV_CUDA_COMPAT_PACKAGE=cuda-compat-12-4"}),
                 "host.image_needs_forward_compat"),
            nullptr);
}

TEST(AssumeLayersTest, UnknownKeysAndBadValuesAreUsageErrors) {
  Json report = report::new_report();
  const auto& kb = kb::KnowledgeBase::builtin();
  EXPECT_THROW(report::apply_assumptions(report, {"torchh=2.1.0"}, kb), InputError);
  EXPECT_THROW(report::apply_assumptions(report, {"torch=latest"}, kb), InputError);
  EXPECT_THROW(report::apply_assumptions(report, {"kernel_module=maybe"}, kb), InputError);
  EXPECT_THROW(report::apply_assumptions(report, {"device_nodes=broken"}, kb), InputError);
  EXPECT_THROW(report::apply_assumptions(report, {"wsl=perhaps"}, kb), InputError);
  EXPECT_THROW(report::apply_assumptions(report, {"libcuda=somewhere"}, kb), InputError);
}

// Issue 12 §5: a driver older than the knowledge base's oldest branch stays unknown, and the table reaches
// back to CUDA 7.0 (R346) from Table 3.
TEST(AssumeLayersTest, OldDriversAreUnknownBelowR346) {
  const auto& kb = kb::KnowledgeBase::builtin();
  EXPECT_FALSE(kb.cuda_for_driver(*Version::parse("340.93")).has_value());
  EXPECT_EQ(kb.cuda_for_driver(*Version::parse("346.46"))->text(), "7.0");
  EXPECT_EQ(kb.cuda_for_driver(*Version::parse("352.31"))->text(), "7.5");
  auto req = kb.driver_for_cuda(*Version::parse("7.0"));
  ASSERT_TRUE(req && req->full_min);
  EXPECT_EQ(req->full_min->text(), "346.46");
}

}  // namespace
}  // namespace cudiag
