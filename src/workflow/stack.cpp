#include "workflow/stack.h"

#include <fmt/format.h>

#include <algorithm>

#include "kb/knowledge_base.h"
#include "rules/rule_support.h"

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

std::string field_text(const Json& obj, std::initializer_list<const char*> names) {
  if (!obj.is_object()) return "";
  for (const char* n : names) {
    if (obj.contains(n)) {
      auto t = text_of(obj[n]);
      if (!t.empty()) return t;
    }
  }
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

// "pytorch" and "torch" are the same framework to a user writing --require torch>=2.4.
std::string framework_key(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name == "pytorch") return "torch";
  return name;
}

FrameworkBuild build_from(const std::string& name, const Json& obj, const std::string& where) {
  FrameworkBuild b;
  b.name = framework_key(name);
  b.where = where;
  b.version = field_text(obj, {"version", "__version__"});
  b.cuda = field_text(obj, {"cuda", "cuda_version", "built_with_cuda", "cuda_build", "build_cuda"});
  b.cudnn = field_text(obj, {"cudnn", "cudnn_version", "built_with_cudnn"});
  if (obj.contains("build") && obj["build"].is_object()) {
    if (b.cuda.empty()) b.cuda = field_text(obj["build"], {"cuda", "cuda_version"});
    if (b.cudnn.empty()) b.cudnn = field_text(obj["build"], {"cudnn", "cudnn_version"});
  }
  return b;
}

bool looks_like_build(const Json& obj) {
  return obj.is_object() && (obj.contains("version") || obj.contains("__version__"));
}

void collect_builds(const Json& node, const std::string& where, const std::string& name_hint,
                    std::vector<FrameworkBuild>& out) {
  if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      const Json& e = node[i];
      std::string name = field_text(e, {"name", "framework", "package"});
      if (name.empty()) name = name_hint;
      std::string at = fmt::format("{}[{}]", where, i);
      if (looks_like_build(e) && !name.empty()) {
        out.push_back(build_from(name, e, at));
      } else if (e.is_object()) {
        collect_builds(e, at, name, out);
      }
    }
    return;
  }
  if (!node.is_object()) return;
  for (const auto& [k, v] : node.items()) {
    // Wheels, binaries and plugins of an environment have names and versions too, but are not frameworks.
    if (k == "nvidia_wheels" || k == "binaries" || k == "loads" || k == "plugins" || k == "requires")
      continue;
    std::string at = where + "." + k;
    if (looks_like_build(v)) {
      std::string name = field_text(v, {"name", "framework", "package"});
      out.push_back(build_from(name.empty() ? k : name, v, at));
    } else if (v.is_array() || (v.is_object() && !v.contains("value"))) {
      // {"torch": [install, install]} or {"installs": [...]}: the key names the framework only when it is
      // one.
      bool container = k == "installs" || k == "frameworks" || k == "packages" || k == "interpreters" ||
                       k == "environments" || k == "items";
      collect_builds(v, at, container ? name_hint : k, out);
    }
  }
}

}  // namespace

const StackValue* Stack::find(const std::string& key) const {
  for (const auto& v : values) {
    if (v.key == key) return &v;
  }
  return nullptr;
}

std::vector<FrameworkBuild> framework_builds(const Json& report) {
  std::vector<FrameworkBuild> out;
  if (report.is_object() && report.contains("frameworks"))
    collect_builds(report["frameworks"], "frameworks", "", out);
  out.erase(std::remove_if(out.begin(), out.end(), [](const FrameworkBuild& b) { return b.version.empty(); }),
            out.end());
  return out;
}

std::optional<bool> kernel_test_passed(const Json& report) {
  if (!report.is_object() || !report.contains("kernel_test")) return std::nullopt;
  const Json& kt = report["kernel_test"];
  if (!kt.is_object()) return std::nullopt;
  for (const char* key : {"passed", "ok", "success"}) {
    if (kt.contains(key)) {
      const Json& v = kt[key].is_object() && kt[key].contains("value") ? kt[key]["value"] : kt[key];
      if (v.is_boolean()) return v.get<bool>();
    }
  }
  std::string status = field_text(kt, {"status", "result", "outcome", "verdict"});
  std::transform(status.begin(), status.end(), status.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (status == "passed" || status == "pass" || status == "ok" || status == "success") return true;
  // `cudiag check --deep` writes "not run" under --root; any other status is a kernel that did not pass.
  if (status.empty() || status == "not run" || status == "skipped") return std::nullopt;
  return false;
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
  auto driver = rules::host_driver(report, kb);
  auto d = value("kernel_driver", "driver", driver.version_fact);
  if (driver.version) d.values.push_back(driver.version->text());
  s.values.push_back(d);
  auto dc = value("driver_api", "driver.cuda",
                  driver.cuda_fact.empty() ? "knowledge base (driver branch)" : driver.cuda_fact);
  if (driver.cuda) dc.values.push_back(driver.cuda->text());
  s.values.push_back(dc);

  auto gpus_known = rules::gpus_known(report);
  auto gpu_list = rules::gpus(report, kb);
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
  const Json& runtimes = fact_at(report, "cuda_runtime.runtimes");
  if (runtimes.is_array()) {
    for (const auto& r : runtimes) {
      RuntimeInstance inst{text_of(r.value("runtime_version", Json())),
                           r.value("real_path", r.value("path", ""))};
      add_distinct(rt.values, inst.version);
      s.runtimes.push_back(inst);
    }
  }
  s.values.push_back(rt);
  auto tk = value("cuda_runtime", "cuda_toolkit", "cuda_runtime.toolkits");
  const Json& toolkits = fact_at(report, "cuda_runtime.toolkits");
  if (toolkits.is_array()) {
    for (const auto& t : toolkits) add_distinct(tk.values, text_of(t.value("version", Json())));
  }
  s.values.push_back(tk);

  const Json& libs = fact_at(report, "libraries");
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
