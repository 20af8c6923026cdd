#include "workflow/stack.h"

#include <fmt/format.h>

#include <algorithm>

#include "kb/knowledge_base.h"
#include "model/cuda_runtimes.h"
#include "model/gpus.h"
#include "model/host_driver.h"
#include "model/kernel_test_view.h"
#include "model/report_path.h"

namespace cudiag::workflow {

namespace {

// A fact's value ({"value": ...}) or a bare value, as text; "" when unknown.
std::string text_of(const Json& node) {
  const Json& v = node.is_object() && node.contains("value") ? node["value"] : node;
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  return "";
}

void add_distinct(std::vector<std::string>& list, const std::string& v) {
  if (!v.empty() && std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

StackValue value(std::string layer, std::string key, std::string from, ValueKind kind = ValueKind::kVersion) {
  StackValue s;
  s.layer = std::move(layer);
  s.key = std::move(key);
  s.kind = kind;
  s.from = std::move(from);
  return s;
}

}  // namespace

const StackValue* Stack::find(const std::string& key) const {
  for (const auto& v : values) {
    if (v.key == key) return &v;
  }
  return nullptr;
}

std::optional<bool> kernel_test_passed(const Json& report) {
  auto view = model::kernel_test_view(report);
  if (view.status == "pass") return true;
  if (view.status == "fail") return false;
  return std::nullopt;  // not run (`check --deep` under --root), or no kernel test
}

std::string layer_of_key(const std::string& key) {
  if (key == "driver") return "kernel_driver";
  if (key == "driver.cuda") return "driver_api";
  if (key == "cuda_runtime" || key == "cuda_toolkit") return "cuda_runtime";
  if (key.starts_with("gpu.")) return "kernel_driver";
  if (key == "kernel_test" || key == "kernel-test") return "kernel_test";
  if (find_if(key.begin(), key.end(), [](char c) { return c == '.'; }) != key.end()) return "frameworks";
  static const char* kFrameworks[] = {"torch", "pytorch",     "tensorflow", "jax",  "jaxlib",
                                      "cupy",  "onnxruntime", "paddle",     "mxnet"};
  for (const char* f : kFrameworks) {
    if (key == f) return "frameworks";
  }
  return "libraries";
}

Stack read_stack(const Json& report, const kb::KnowledgeBase& kb) {
  Stack s;
  auto driver = model::derive_host_driver(report, &kb);
  auto d = value("kernel_driver", "driver", driver.version_fact);
  if (driver.version) d.values.push_back(driver.version->text());
  s.values.push_back(d);
  auto dc = value("driver_api", "driver.cuda",
                  driver.cuda_fact.empty() ? "knowledge base (driver branch)" : driver.cuda_fact);
  if (driver.cuda) dc.values.push_back(driver.cuda->text());
  s.values.push_back(dc);

  auto gpus_known = model::gpus_known(report);
  auto gpu_list = model::derive_gpus(report, &kb);
  auto count = value("kernel_driver", "gpu.count", "kernel_driver.pci_devices");
  auto cc = value("kernel_driver", "gpu.cc", "GPUs' compute capabilities");
  auto names = value("kernel_driver", "gpu.name", "GPUs' names", ValueKind::kText);
  if (gpus_known || !gpu_list.empty()) count.values.push_back(std::to_string(gpu_list.size()));
  for (const auto& g : gpu_list) {
    if (g.cc) add_distinct(cc.values, g.cc->text());
    add_distinct(names.values, g.name);
  }
  s.values.push_back(count);
  s.values.push_back(cc);
  s.values.push_back(names);

  auto rt = value("cuda_runtime", "cuda_runtime", "cuda_runtime.runtimes");
  for (const auto& r : model::derive_cuda_runtimes(report, &kb)) {
    // Only cudaRuntimeGetVersion's answer is pinned, not a version read from a file name.
    RuntimeInstance inst{r.version_fact.ends_with(".runtime_version") ? r.version->text() : "",
                         r.real_path.empty() ? r.path : r.real_path};
    add_distinct(rt.values, inst.version);
    s.runtimes.push_back(inst);
  }
  s.values.push_back(rt);
  auto tk = value("cuda_runtime", "cuda_toolkit", "cuda_runtime.toolkits");
  const Json& toolkits = model::fact_at(report, "cuda_runtime.toolkits");
  if (toolkits.is_array()) {
    for (const auto& t : toolkits) add_distinct(tk.values, text_of(t.value("version", Json())));
  }
  s.values.push_back(tk);

  const Json& libs = model::fact_at(report, "libraries");
  if (libs.is_object()) {
    for (const auto& [key, lib] : libs.items()) {
      auto lv = value("libraries", key, "libraries." + key);
      if (lib.is_object() && lib.contains("distinct_versions") && lib["distinct_versions"].is_array()) {
        // Only versions can be pinned: CUPTI reports an API number ("API 130001").
        for (const auto& v : lib["distinct_versions"]) {
          auto text = text_of(v);
          if (Version::parse(text)) add_distinct(lv.values, text);
        }
      }
      s.values.push_back(lv);
    }
  }

  s.frameworks_collected = report.is_object() && report.contains("frameworks");
  std::vector<std::string> order;
  auto builds = framework_builds(report);
  for (const auto& b : builds) add_distinct(order, b.name);
  for (const auto& name : order) {
    auto version = value("frameworks", name, "frameworks");
    auto cuda = value("frameworks", name + ".cuda", "frameworks");
    auto cudnn = value("frameworks", name + ".cudnn", "frameworks");
    for (const auto& b : builds) {
      if (b.name != name) continue;
      version.from = cuda.from = cudnn.from = b.where;
      add_distinct(version.values, b.version);
      add_distinct(cuda.values, b.cuda);
      add_distinct(cudnn.values, b.cudnn);
    }
    s.values.push_back(version);
    s.values.push_back(cuda);
    s.values.push_back(cudnn);
  }

  auto kt = kernel_test_passed(report);
  s.kernel_test_collected = kt.has_value();
  auto ktv = value("kernel_test", "kernel_test", "kernel_test", ValueKind::kBool);
  if (kt) ktv.values.push_back(*kt ? "passed" : "failed");
  s.values.push_back(ktv);
  return s;
}

}  // namespace cudiag::workflow
