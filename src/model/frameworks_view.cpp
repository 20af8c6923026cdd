#include "model/frameworks_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "model/facts.h"

namespace cudiag::model {

namespace {

// A fact's value or a bare value as text ("12.4", 12 -> "12"); "" when unknown.
std::string text_of(const Json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key)) return "";
  const Json& v = obj[key].is_object() && obj[key].contains("value") ? obj[key]["value"] : obj[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  return "";
}

// "pytorch" and "torch" are the same framework to a user writing --require torch>=2.4.
std::string framework_key(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name == "pytorch" ? "torch" : name;
}

}  // namespace

std::vector<FrameworkBuild> framework_builds(const Json& report) {
  std::vector<FrameworkBuild> out;
  const Json& envs = fact_at(report, "frameworks.environments");
  if (!envs.is_array()) return out;
  for (std::size_t e = 0; e < envs.size(); ++e) {
    const Json& env = envs[e];
    if (!env.is_object() || !env.contains("frameworks") || !env["frameworks"].is_array()) continue;
    const Json& list = env["frameworks"];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Json& fw = list[i];
      FrameworkBuild b;
      b.name = framework_key(text_of(fw, "name"));
      b.version = text_of(fw, "version");
      if (b.name.empty() || b.version.empty()) continue;  // not installed, or unreadable
      const Json& build = fw.is_object() && fw.contains("build") ? fw["build"] : Json::object();
      b.cuda = text_of(build, "cuda");
      b.cuda_major = text_of(build, "cuda_major");
      b.cudnn = text_of(build, "cudnn");
      b.cpu_only = bool_at(build, "cpu_only").value_or(false);
      b.environment = text_of(env, "prefix");
      b.where = fmt::format("frameworks.environments[{}].frameworks[{}]", e, i);
      out.push_back(std::move(b));
    }
  }
  return out;
}

}  // namespace cudiag::model
