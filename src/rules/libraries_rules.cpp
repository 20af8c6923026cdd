// Rules for the libraries layer (cuDNN, cuBLAS, NCCL, NVRTC, …) and for what
// the loader would pick: several versions of one library, LD_LIBRARY_PATH
// putting an older copy ahead of a newer one (runtimes too), and CUDA
// libraries of a major the driver does not support when no runtime of that
// major already says so.
#include <fmt/format.h>

#include <map>
#include <set>

#include "rules/engine.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"
#include "rules/runtime_compat.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "cuda_runtime.ld_library_path_shadows_newer",
     .layer = "cuda_runtime",
     .severity = "warning",
     .when = "LD_LIBRARY_PATH makes the loader pick an older libcudart of the same soname",
     .covered_by = "scenario ld-library-path-puts-older-cudart-first",
     .message =
         "LD_LIBRARY_PATH puts {what} {version} ({path}) ahead of the newer {newer} ({newer_path}); programs load the older one.",
     .remediation = "Remove {dir} from LD_LIBRARY_PATH (or put the newer toolkit's directory first)."},
    {.id = "libraries.multiple_versions",
     .layer = "libraries",
     .severity = "warning",
     .when = "several versions of one library reachable; names the loader's pick",
     .covered_by = "scenario two-cudnn-versions-reachable",
     .message =
         "Several {library} versions are reachable ({versions}); a program without RPATH loads {picked}.",
     .remediation =
         "Keep one {library} per CUDA major on the loader path; frameworks that bundle their own (pip wheels) find theirs through RPATH, so remove stray copies from LD_LIBRARY_PATH."},
    {.id = "libraries.ld_library_path_shadows_newer",
     .layer = "libraries",
     .severity = "warning",
     .when = "LD_LIBRARY_PATH makes the loader pick an older copy of the same soname",
     .covered_by = "test unit/rules/rule_cases_test.cpp",
     .message =
         "LD_LIBRARY_PATH puts {what} {version} ({path}) ahead of the newer {newer} ({newer_path}); programs load the older one.",
     .remediation = "Remove {dir} from LD_LIBRARY_PATH (or put the newer toolkit's directory first)."},
    {.id = "libraries.need_newer_driver",
     .layer = "libraries",
     .severity = "error (independent)",
     .when = "libraries of a CUDA major (from their soname) the driver does not support, when no runtime of "
             "that major already says so",
     .covered_by = "scenario cuda13-libraries-on-r535",
     .message = "CUDA {major} libraries ({libraries}) need {minimum}; the installed driver is {driver}.",
     .remediation = "{remedy}"},
};

constexpr const char* kLdSo = "https://man7.org/linux/man-pages/man8/ld.so.8.html";

// The soname a file answers to: "libcudnn.so.9.1.0" -> "libcudnn.so.9".
std::string soname_of(const std::string& file) {
  auto pos = file.find(".so.");
  if (pos == std::string::npos) return file;
  auto end = file.find('.', pos + 4);
  return end == std::string::npos ? file : file.substr(0, end);
}

std::optional<Version> instance_version(const Json& inst) {
  for (const char* key : {"version", "runtime_version"}) {
    const Json& v = inst.contains(key) ? (inst[key].is_object() ? inst[key]["value"] : inst[key]) : Json();
    if (v.is_string()) {
      if (auto parsed = Version::parse(v.get<std::string>())) return parsed;
    }
  }
  const Json& file = inst.contains("file_version") ? inst["file_version"] : Json();
  if (file.is_string()) {
    auto v = Version::parse(file.get<std::string>());
    if (v && v->parts().size() >= 2) return v;
  }
  return std::nullopt;
}

bool via_ld_library_path(const Json& inst) {
  const Json& via = inst.contains("found_via") ? inst["found_via"] : Json();
  if (!via.is_array()) return false;
  for (const auto& v : via) {
    if (v.is_string() && v.get<std::string>() == "LD_LIBRARY_PATH") return true;
  }
  return false;
}

// LD_LIBRARY_PATH is searched before the cache and the default directories,
// so an older copy there wins over a newer one installed properly.
void shadowed(const Json& instances, const std::string& fact, const std::string& layer,
              const std::string& what, std::vector<Finding>& out) {
  if (!instances.is_array()) return;
  for (const auto& picked : instances) {
    if (!picked.value("picked_by_loader", false) || !via_ld_library_path(picked)) continue;
    auto pv = instance_version(picked);
    auto psoname = soname_of(file_of(picked.value("path", "")));
    if (!pv) continue;
    for (const auto& other : instances) {
      if (&other == &picked || soname_of(file_of(other.value("path", ""))) != psoname) continue;
      auto ov = instance_version(other);
      if (!ov || !(*ov > *pv)) continue;
      auto f =
          finding(layer + ".ld_library_path_shadows_newer", {{"what", what},
                                                             {"version", pv->text()},
                                                             {"path", picked.value("real_path", "")},
                                                             {"newer", ov->text()},
                                                             {"newer_path", other.value("real_path", "")},
                                                             {"dir", dir_of(picked.value("path", ""))}});
      f.evidence.push_back(evidence(fact, instances, "search"));
      add_doc(f, kLdSo, "Search order: LD_LIBRARY_PATH before /etc/ld.so.cache and the default paths");
      out.push_back(std::move(f));
      break;
    }
  }
}

void several_versions(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  shadowed(fact_at(report, "cuda_runtime.runtimes"), "cuda_runtime.runtimes", "cuda_runtime",
           "the CUDA runtime", out);
  const Json& libs = fact_at(report, "libraries");
  if (!libs.is_object()) return;
  for (const auto& [key, lib] : libs.items()) {
    if (!lib.is_object()) continue;
    std::string name = lib.value("name", key);
    std::string fact = "libraries." + key + ".instances";
    shadowed(lib.contains("instances") ? lib["instances"] : Json(), fact, "libraries", name, out);
    if (!lib.value("multiple_versions", false)) continue;
    std::string list, picked;
    for (const auto& v : lib["distinct_versions"]) list += (list.empty() ? "" : ", ") + v.get<std::string>();
    for (const auto& inst : lib["instances"]) {
      if (inst.value("picked_by_loader", false))
        picked += (picked.empty() ? "" : ", ") + inst.value("real_path", "");
    }
    auto f = finding("libraries.multiple_versions",
                     {{"library", name},
                      {"versions", list},
                      {"picked", picked.empty() ? "none of them by default" : picked}});
    f.evidence.push_back(evidence(fact, lib["instances"], "search"));
    add_doc(f, kLdSo, "Search order of a program without RPATH");
    out.push_back(std::move(f));
  }
}

// CUDA libraries carry their CUDA major in the soname (libcublas.so.13):
// they need a driver of that major like the runtime does. Said once per
// major, and only when no runtime of that major already says it.
void libraries_need_driver(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  const Json& libs = fact_at(report, "libraries");
  if (!libs.is_object()) return;
  auto driver = host_driver(report, kb);
  if (!driver.cuda && !driver.version) return;
  std::set<long> runtime_majors;
  const Json& runtimes = fact_at(report, "cuda_runtime.runtimes");
  if (runtimes.is_array()) {
    for (std::size_t i = 0; i < runtimes.size(); ++i) {
      if (auto v = runtime_version_of(report, fmt::format("cuda_runtime.runtimes[{}]", i)))
        runtime_majors.insert(v->major());
    }
  }
  std::map<long, std::vector<std::string>> by_major;
  for (const auto& [key, lib] : libs.items()) {
    if (!lib.is_object() || !lib.contains("instances")) continue;
    for (const auto& inst : lib["instances"]) {
      auto file = file_of(inst.value("real_path", inst.value("path", "")));
      auto soname = soname_of(file);
      // The CUDA major whose soname table lists this exact soname, when only one does.
      std::set<long> majors;
      for (const auto* l : kb.libraries_named(key)) {
        for (const auto& s : l->linux_sonames) {
          if (s == soname) majors.insert(l->cuda_major);
        }
      }
      if (majors.size() != 1) continue;
      auto v = instance_version(inst);
      by_major[*majors.begin()].push_back(lib.value("name", key) + (v ? " " + v->text() : ""));
    }
  }
  for (const auto& [major, names] : by_major) {
    if (runtime_majors.count(major)) continue;
    auto c = check_runtime_against_driver(kb, Version::from_cuda_int(major * 1000), driver, report, "");
    if (c.verdict != RuntimeVerdict::kNeedsNewerDriver) continue;
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    auto f =
        finding("libraries.need_newer_driver",
                {{"major", major},
                 {"libraries", list},
                 {"minimum", describe_minimum(c)},
                 {"driver", describe(driver)},
                 {"remedy", remedy_for_newer_driver(c, Version::from_cuda_int(major * 1000), driver, true)}});
    f.independent = true;
    add_driver_evidence(f, report, driver);
    if (c.requirement) add_docs(f, c.requirement->sources);
    out.push_back(std::move(f));
  }
}

const RegisterRule kSeveral{{"libraries.several", several_versions}};
const RegisterRule kDriver{{"libraries.driver", libraries_need_driver}};

}  // namespace
}  // namespace cudiag::rules
