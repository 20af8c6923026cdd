#include "core/fact.h"

namespace cudiag {

Json fact(Json value, std::string_view source) {
  Json j = Json::object();
  j["value"] = std::move(value);
  j["source"] = std::string(source);
  return j;
}

Json unknown_fact(std::string_view source, std::string_view why) {
  Json j = Json::object();
  j["value"] = nullptr;
  j["source"] = std::string(source);
  j["error"] = std::string(why);
  return j;
}

std::string file_source(std::string_view path) { return "file:" + std::string(path); }
std::string env_source(std::string_view name) { return "env:" + std::string(name); }
std::string call_source(std::string_view lib, std::string_view fn) {
  return "call:" + std::string(lib) + "!" + std::string(fn);
}

const Json& fact_value(const Json& maybe_fact) {
  static const Json null_json = nullptr;
  if (!maybe_fact.is_object()) return null_json;
  auto it = maybe_fact.find("value");
  return it == maybe_fact.end() ? null_json : *it;
}

}  // namespace cudiag
