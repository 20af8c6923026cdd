#include "model/facts.h"

namespace cudiag::model {

const Json& value_at(const Json& report, const std::string& path) {
  const Json& node = fact_at(report, path);
  if (node.is_object() && node.contains("value")) return node["value"];
  return node;
}

std::optional<std::string> string_at(const Json& report, const std::string& path) {
  const Json& v = value_at(report, path);
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

std::optional<Version> version_at(const Json& report, const std::string& path) {
  auto s = string_at(report, path);
  if (!s) return std::nullopt;
  return Version::parse(*s);
}

std::optional<bool> bool_at(const Json& report, const std::string& path) {
  const Json& v = value_at(report, path);
  if (!v.is_boolean()) return std::nullopt;
  return v.get<bool>();
}

std::optional<long> code_at(const Json& report, const std::string& path) {
  const Json& node = fact_at(report, path);
  if (!node.is_object() || !node.contains("code") || !node["code"].is_number_integer()) return std::nullopt;
  return node["code"].get<long>();
}

bool is_assumed(const Json& report, const std::string& path) {
  const Json& node = fact_at(report, path);
  return node.is_object() && node.contains("source") && node["source"].is_string() &&
         node["source"].get<std::string>().starts_with("assume:");
}

std::string str_field(const Json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key)) return "";
  const Json& v = obj[key].is_object() && obj[key].contains("value") ? obj[key]["value"] : obj[key];
  return v.is_string() ? v.get<std::string>() : "";
}

}  // namespace cudiag::model
