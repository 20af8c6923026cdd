// explain's machine checks for build failures: each hands the message's
// values and what the report states to the pure fixes of build_fixes.h.
#include <optional>
#include <string>

#include "core/fact.h"
#include "explain/build_fixes.h"
#include "explain/captures.h"
#include "explain/machine_context.h"
#include "rules/framework_support.h"
#include "rules/rule_support.h"

namespace cudiag::explain {

using rules::value_at;

// The values of the explanation's captures of one kind.
std::vector<std::string> values_of_kind(const Context& c, CaptureKind kind) {
  std::vector<std::string> out;
  for (const auto& cap : c.sig.captures) {
    if (cap.kind != kind) continue;
    auto v = value_of(c.e, cap.name);
    if (!v.empty() && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

// The version of the nvcc on PATH, collected or stated.
std::optional<Version> nvcc_version(const Json& report) {
  const Json& nvcc = value_at(report, "cuda_runtime.nvcc_on_path");
  const Json& nv = nvcc.is_object() && nvcc.contains("version") ? fact_value(nvcc["version"]) : nvcc;
  return nv.is_string() ? Version::parse(nv.get<std::string>()) : std::nullopt;
}

std::optional<Version> torch_release(const Json& report) {
  std::optional<Version> release;
  for (const auto& r : rules::frameworks_in(report)) {
    if (r.fw->value("name", "") == "torch") release = Version::parse(rules::version_text(*r.fw));
  }
  return release;
}

// nvcc rejecting an architecture the build names (explain/build_fixes.h).
void check_nvcc_arch(const Context& c) {
  if (!c.fix.empty()) return;
  auto gpus = rules::gpus(c.report, c.kb);
  std::optional<Version> cc;
  std::string label;
  if (!gpus.empty() && gpus.front().cc) {
    cc = gpus.front().cc;
    label = gpus.front().label;
  }
  bool from_ptxas = ascii_lower(c.e.matched_text).find("gpu-name") != std::string::npos;
  for (const auto& arch : values_of_kind(c, CaptureKind::kArch)) {
    if (auto f = nvcc_arch_fix(c.kb, arch, from_ptxas, nvcc_version(c.report), cc, label)) {
      c.fix = f->fix;
      c.layer = f->layer;
      return;
    }
  }
}

// A PyTorch extension built with a toolkit of another CUDA major than torch's (explain/build_fixes.h).
void check_extension_cuda(const Context& c) {
  if (!c.fix.empty()) return;
  auto toolkit = Version::parse(value_of(c.e, "found"));
  auto torch_cuda = Version::parse(value_of(c.e, "built"));
  if (!toolkit || !torch_cuda) return;
  auto f = extension_cuda_fix(c.kb, *toolkit, *torch_cuda, torch_release(c.report));
  c.fix = f.fix;
  c.layer = f.layer;
}

// A torch of another CUDA than the one wanted: the CUDA the message names, else the toolkit stated.
void check_torch_variant(const Context& c) {
  if (!c.fix.empty()) return;
  auto wanted = Version::parse(value_of(c.e, "wanted"));
  if (!wanted) wanted = nvcc_version(c.report);
  if (auto f = torch_variant_fix(c.kb, torch_release(c.report), wanted)) {
    c.fix = f->fix;
    c.layer = f->layer;
  }
}

// A compile error naming a CUDA identifier the toolkit lacks (explain/build_fixes.h).
void check_toolkit_identifier(const Context& c) {
  if (!c.fix.empty()) return;
  auto name = value_of(c.e, "identifier");
  if (name.empty()) return;
  if (auto f = identifier_fix(c.kb, name, nvcc_version(c.report))) {
    c.fix = f->fix;
    c.layer = f->layer;
  }
}

}  // namespace cudiag::explain
