// Findings that no scenario covers, because no public bug report shows the
// machine state (a library that hangs or crashes on load, a missing
// /dev/nvidiactl, a kernel test that failed without a failed step, one under
// --root). Each case is a report shape a probe writes, built by hand, run
// through the real engine and knowledge base; the rules tables
// (rules/rule_table.h) name this file as what covers these ids.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/json.h"
#include "kb/knowledge_base.h"
#include "report/collect.h"
#include "rules/engine.h"

namespace cudiag {
namespace {

std::vector<rules::Finding> findings_of(const Json& patch) {
  Json report = report::new_report();
  report.merge_patch(patch);
  return rules::diagnose(report, kb::KnowledgeBase::builtin()).findings;
}

const rules::Finding* find(const std::vector<rules::Finding>& findings, const std::string& id) {
  for (const auto& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

Json instance(const std::string& path, const std::string& file_version) {
  return {
      {"path", path}, {"real_path", path}, {"found_via", {"ld.so.cache"}}, {"file_version", file_version}};
}

// A child that gave no answer: what report/child_batch writes for a timeout or a crash.
Json failed_load(const std::string& path, const std::string& error) {
  return {{"value", nullptr}, {"source", "call:" + path + "!dlopen"}, {"error", error}};
}

TEST(RuleCases, NvmlLoadFailed) {
  const std::string lib = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15";
  auto fs = findings_of({{"nvml",
                          {{"candidates", {instance(lib, "550.54.15")}},
                           {"picked", {{"value", lib}, {"source", "search"}}},
                           {"load", failed_load(lib, "timed out after 10 s")}}}});
  const rules::Finding* f = find(fs, "nvml.load_failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, rules::Severity::kError);
  EXPECT_NE(f->message.find("timed out after 10 s"), std::string::npos) << f->message;
  EXPECT_EQ(find(fs, "nvml.init_failed"), nullptr) << "no init finding for a library that never loaded";
}

TEST(RuleCases, DriverApiLoadFailed) {
  const std::string lib = "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15";
  auto fs = findings_of({{"driver_api",
                          {{"candidates", {instance(lib, "550.54.15")}},
                           {"picked", {{"value", lib}, {"source", "search"}}},
                           {"load", failed_load(lib, "crashed (signal 11)")}}}});
  const rules::Finding* f = find(fs, "driver_api.load_failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, rules::Severity::kError);
  EXPECT_NE(f->message.find("crashed (signal 11)"), std::string::npos) << f->message;
}

TEST(RuleCases, CudaRuntimeLoadFailed) {
  const std::string lib = "/usr/local/cuda-12.4/lib64/libcudart.so.12";
  Json rt = instance(lib, "12");
  rt["load"] = failed_load(lib, "timed out after 10 s");
  auto fs = findings_of({{"cuda_runtime", {{"runtimes", {rt}}, {"toolkits", Json::array()}}}});
  const rules::Finding* f = find(fs, "cuda_runtime.load_failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, rules::Severity::kError);
}

TEST(RuleCases, DeviceNodeMissing) {
  auto node = [](const std::string& path, bool exists) {
    return Json{{"path", path}, {"exists", exists}, {"char_device", exists}, {"accessible", exists}};
  };
  auto fs = findings_of(
      {{"kernel_driver",
        {{"version", {{"value", "550.54.15"}, {"source", "file:/proc/driver/nvidia/version"}}},
         {"device_nodes",
          {node("/dev/nvidiactl", false), node("/dev/nvidia-uvm", true), node("/dev/nvidia0", true)}}}}});
  const rules::Finding* f = find(fs, "kernel_driver.device_node_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, rules::Severity::kError);
  EXPECT_NE(f->message.find("/dev/nvidiactl"), std::string::npos) << f->message;
  EXPECT_EQ(find(fs, "kernel_driver.uvm_device_missing"), nullptr) << "/dev/nvidia-uvm is there";
}

TEST(RuleCases, LibraryOnLdLibraryPathShadowsANewerCopy) {
  Json old_copy = instance("/opt/old/lib/libcudnn.so.9", "9.1.0");
  old_copy["found_via"] = {"LD_LIBRARY_PATH"};
  old_copy["picked_by_loader"] = true;
  old_copy["version"] = {{"value", "9.1.0"}, {"source", "file:/opt/old/lib/libcudnn_version"}};
  Json new_copy = instance("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "9.5.0");
  new_copy["version"] = {{"value", "9.5.0"}, {"source", "file:/usr/include/cudnn_version.h"}};
  auto fs = findings_of({{"libraries",
                          {{"cudnn",
                            {{"name", "cuDNN"},
                             {"instances", {old_copy, new_copy}},
                             {"distinct_versions", {"9.1.0", "9.5.0"}},
                             {"multiple_versions", true}}}}}});
  const rules::Finding* f = find(fs, "libraries.ld_library_path_shadows_newer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, rules::Severity::kWarning);
  EXPECT_EQ(f->layer, "libraries");
  EXPECT_NE(f->message.find("9.1.0"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("9.5.0"), std::string::npos) << f->message;
}

TEST(RuleCases, KernelTestFailedWithoutAFailedStep) {
  auto fs = findings_of({{"kernel_test", {{"status", "fail"}, {"driver", {{"steps", Json::array()}}}}}});
  const rules::Finding* f = find(fs, "kernel_test.failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, rules::Severity::kError);
}

TEST(RuleCases, KernelTestNotRunIsInfoAndTheLayerUnknown) {
  Json report = report::new_report();
  report["kernel_test"] = {{"status", "not run"}, {"reason", "a machine read with --root is not this one"}};
  auto d = rules::diagnose(report, kb::KnowledgeBase::builtin());
  const rules::Finding* f = find(d.findings, "kernel_test.not_run");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, rules::Severity::kInfo);
  EXPECT_NE(f->message.find("--root"), std::string::npos) << f->message;
  EXPECT_EQ(d.layer_status["kernel_test"], "unknown");
}

}  // namespace
}  // namespace cudiag
