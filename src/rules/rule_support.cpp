#include "rules/rule_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace cudiag::rules {

bool present(const Json& report, const std::string& path) { return !model::fact_at(report, path).is_null(); }

Evidence evidence(std::string fact, Json value, std::string source) {
  return Evidence{std::move(fact), std::move(value), std::move(source)};
}

void add_docs(Finding& f, const std::vector<kb::Source>& sources) {
  for (const auto& s : sources) {
    bool dup = std::any_of(f.docs.begin(), f.docs.end(),
                           [&](const DocRef& d) { return d.url == s.url && d.section == s.section; });
    if (!dup) f.docs.push_back({s.url, s.section});
  }
}

void add_docs(Finding& f, const kb::Provenance& p) { add_docs(f, p.sources); }

HostDriver host_driver(const Json& report, const kb::KnowledgeBase& kb) {
  return model::derive_host_driver(report, &kb);
}

void add_driver_evidence(Finding& f, const Json& report, const HostDriver& d) {
  if (!d.version_fact.empty()) f.evidence.push_back(evidence_from(report, d.version_fact));
  if (!d.cuda_fact.empty()) f.evidence.push_back(evidence_from(report, d.cuda_fact));
}

std::vector<GpuView> gpus(const Json& report, const kb::KnowledgeBase& kb) {
  return model::derive_gpus(report, &kb);
}

std::optional<std::string> env(const Json& report, const std::string& name) {
  const Json& e = model::fact_at(report, "host.environment");
  if (!e.is_object() || !e.contains(name)) return std::nullopt;
  const Json& v = e[name].is_object() && e[name].contains("value") ? e[name]["value"] : e[name];
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

bool env_collected(const Json& report) { return model::fact_at(report, "host.environment").is_object(); }

bool is_wsl(const Json& report) { return bool_at(report, "host.wsl.detected").value_or(false); }

std::optional<std::string> container_kind(const Json& report) {
  return string_at(report, "host.container.kind");
}

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string file_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<long> soname_major(const std::string& file_name) {
  auto pos = file_name.find(".so.");
  if (pos == std::string::npos) return std::nullopt;
  std::string_view rest(file_name);
  rest.remove_prefix(pos + 4);
  long v = 0;
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
  if (ec != std::errc()) return std::nullopt;
  return v;
}

std::optional<long> first_branch_for_cuda(const kb::KnowledgeBase& kb, const Version& cuda) {
  for (const auto& b : kb.driver_branches()) {
    if (b.cuda.major() > cuda.major() || (b.cuda.major() == cuda.major() && b.cuda.minor() >= cuda.minor()))
      return b.branch;
  }
  return std::nullopt;
}

namespace {

Finding finding_of(const std::string& id, std::string layer, std::optional<Severity> severity,
                   const std::vector<TemplateArg>& args) {
  const RuleSpec* spec = rule_spec(id);
  if (spec == nullptr) throw std::logic_error("finding " + id + ": no rules table declares it");
  auto allowed = declared_severities(*spec);
  if (!severity) {
    if (allowed.size() != 1)
      throw std::logic_error("finding " + id + ": its table allows " + spec->severity + ", so pass one");
    for (auto s : {Severity::kError, Severity::kWarning, Severity::kInfo})
      if (allowed[0] == severity_name(s)) severity = s;
  }
  if (!severity || std::find(allowed.begin(), allowed.end(), severity_name(*severity)) == allowed.end())
    throw std::logic_error("finding " + id + ": severity not among " + spec->severity);
  if (layer.empty() == (spec->layer == "*"))
    throw std::logic_error("finding " + id + ": pass a layer exactly when its table says \"*\"");
  Finding f;
  f.id = id;
  f.layer = layer.empty() ? spec->layer : std::move(layer);
  f.severity = *severity;
  std::vector<bool> used;
  f.message = format_template(spec->message, args, &used);
  std::vector<bool> used_too;
  f.remediation = format_template(spec->remediation, args, &used_too);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!used[i] && !used_too[i])
      throw std::logic_error("finding " + id + ": no template uses {" + std::string(args[i].name) + "}");
  }
  return f;
}

}  // namespace

Finding finding(const std::string& id, std::vector<TemplateArg> args) {
  return finding_of(id, "", std::nullopt, args);
}

Finding finding(const std::string& id, Severity severity, std::vector<TemplateArg> args) {
  return finding_of(id, "", severity, args);
}

Finding finding(const std::string& id, std::string layer, Severity severity, std::vector<TemplateArg> args) {
  return finding_of(id, std::move(layer), severity, args);
}

void add_doc(Finding& f, std::string url, std::string section) {
  for (const auto& d : f.docs) {
    if (d.url == url && d.section == section) return;
  }
  f.docs.push_back({std::move(url), std::move(section)});
}

std::string CallFailure::describe() const {
  return name.empty() ? fmt::format("error {}", code) : fmt::format("{} ({})", name, code);
}

std::optional<CallFailure> failed_call(const Json& report, const std::string& path) {
  auto code = code_at(report, path);
  if (!code || *code == 0) return std::nullopt;
  CallFailure c;
  c.code = *code;
  if (auto name = string_at(report, path)) c.name = *name;
  return c;
}

std::string fact_error(const Json& report, const std::string& path) {
  const Json& node = model::fact_at(report, path);
  if (!node.is_object() || !node.contains("error") || !node["error"].is_string()) return "";
  return node["error"].get<std::string>();
}

std::string sentence_body(std::string text) {
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text;
}

long branch_of(const Version& driver) { return driver.major(); }

long branch_of(const Version& driver, const kb::KnowledgeBase& kb) {
  auto listed = kb.branch_for_driver(driver);
  return listed ? listed->branch->branch : driver.major();
}

}  // namespace cudiag::rules
