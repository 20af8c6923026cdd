#include "core/fact.h"
#include "core/version.h"
#include "machine/library_search.h"
#include "probes/layer_probe.h"

namespace cudiag::probes {

Json instance_json(const machine::LibraryInstance& inst, const std::string& picked_path) {
  Json j = Json::object();
  j["path"] = inst.path;
  j["real_path"] = inst.real_path;
  j["found_via"] = inst.found_via;
  j["file_version"] = inst.file_version.empty() ? Json(nullptr) : Json(inst.file_version);
  j["picked_by_loader"] = !picked_path.empty() && (inst.path == picked_path || inst.real_path == picked_path);
  if (inst.is_stub) j["is_stub"] = true;
  if (!inst.error.empty()) j["error"] = inst.error;
  return j;
}

Json result_fact(const Json& call, const std::string& source, std::string_view api, const ErrorNamer& namer) {
  if (!call.is_object()) return unknown_fact(source, "not called");
  if (call.contains("missing_symbol")) return unknown_fact(source, "the library has no such function");
  if (!call.contains("result") || !call["result"].is_number_integer())
    return unknown_fact(source, "no result");
  long code = call["result"].get<long>();
  std::string name = namer ? namer(api, code) : "";
  Json f = fact(name.empty() ? Json(nullptr) : Json(name), source);
  f["code"] = code;
  if (call.contains("ms")) f["ms"] = call["ms"];
  return f;
}

std::string child_failure(const Json& answer) {
  if (!answer.is_object()) return "answered something that is not a JSON object";
  auto text = [&](const char* k) {
    return answer[k].is_string() ? answer[k].get<std::string>() : answer[k].dump();
  };
  if (answer.contains("child_error")) return text("child_error");
  if (answer.contains("load_error")) return "could not be loaded: " + text("load_error");
  return "";
}

std::string driver_release_in_file_name(const machine::LibraryInstance& inst) {
  // NVIDIA's driver releases are numbered from R100 up; a smaller first
  // component is the soname's suffix, not a release.
  auto v = Version::parse(inst.file_version);
  return v && v->major() >= 100 ? inst.file_version : std::string();
}

}  // namespace cudiag::probes
