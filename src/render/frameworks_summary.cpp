// The frameworks layer in the human summaries (text, Markdown, HTML): one line
// per Python environment, under it one per framework (version · the CUDA it
// was built for or CPU-only · its GPU architectures), and under each
// framework the CUDA libraries the loader would give it — those a finding
// names on lines of their own with the finding's mark and id, the rest
// grouped by where they come from. Only formats what the report says.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "core/fact.h"
#include "core/text_wrap.h"
#include "render/text_summary.h"

namespace cudiag::render {

namespace {

// A fact's value, or a plain value, at obj[key]; null when absent.
const Json& value_of(const Json& obj, const char* key) {
  static const Json null_json;
  if (!obj.is_object() || !obj.contains(key)) return null_json;
  const Json& v = obj[key];
  if (v.is_object() && v.contains("value")) return v["value"];
  return v;
}

std::string text_of(const Json& obj, const char* key) {
  const Json& v = value_of(obj, key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return json_text(v, -1);
  return "";
}

// One piece of evidence a finding cites.
struct Cited {
  std::string fact;
  std::size_t finding;  // index into the report's findings
};

struct Findings {
  std::vector<Cited> cited;
  std::vector<std::string> severity;  // per finding
  std::vector<std::string> id;        // per finding
};

Findings read_findings(const Json& report) {
  Findings out;
  if (!report.contains("findings") || !report["findings"].is_array()) return out;
  for (const auto& f : report["findings"]) {
    if (!f.is_object()) continue;
    std::size_t index = out.id.size();
    out.id.push_back(f.value("id", ""));
    out.severity.push_back(f.value("severity", "info"));
    for (const auto& e : f.value("evidence", Json::array())) {
      if (e.is_object() && e.contains("fact") && e["fact"].is_string())
        out.cited.push_back({e["fact"].get<std::string>(), index});
    }
  }
  return out;
}

// Whether the fact path `fact` is `path` or inside it.
bool under(const std::string& fact, const std::string& path) {
  if (!fact.starts_with(path)) return false;
  return fact.size() == path.size() || fact[path.size()] == '.' || fact[path.size()] == '[';
}

// The error and warning findings whose evidence is inside `path`, in report order.
std::vector<std::size_t> findings_about(const Findings& fs, const std::string& path) {
  std::vector<std::size_t> out;
  for (const auto& c : fs.cited) {
    const auto& sev = fs.severity[c.finding];
    if (sev != "error" && sev != "warning") continue;
    if (under(c.fact, path) && std::find(out.begin(), out.end(), c.finding) == out.end())
      out.push_back(c.finding);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string worst(const Findings& fs, const std::vector<std::size_t>& which) {
  std::string mark;
  for (auto i : which) {
    if (fs.severity[i] == "error") return "error";
    mark = "warning";
  }
  return mark;
}

std::string ids_of(const Findings& fs, const std::vector<std::size_t>& which) {
  std::vector<std::string> ids;
  for (auto i : which) {
    if (std::find(ids.begin(), ids.end(), fs.id[i]) == ids.end()) ids.push_back(fs.id[i]);
  }
  return join_nonempty(ids, ", ");
}

// "cuDNN" for libcudnn.so.9, "cuBLASLt" for libcublasLt.so.12; the soname's stem for others.
std::string library_name(const Json& load) {
  static const std::map<std::string, std::string> names = {
      {"cudart", "cudart"},         {"cudnn", "cuDNN"},   {"cublas", "cuBLAS"},
      {"cublaslt", "cuBLASLt"},     {"nccl", "NCCL"},     {"nvjitlink", "nvJitLink"},
      {"nvrtc", "NVRTC"},           {"cufft", "cuFFT"},   {"cusparse", "cuSPARSE"},
      {"cusolver", "cuSOLVER"},     {"curand", "cuRAND"}, {"cupti", "CUPTI"},
      {"cusparselt", "cuSPARSELt"}, {"cufile", "cuFile"}, {"nvshmem_host", "NVSHMEM"},
      {"nvinfer", "TensorRT"}};
  auto stem = load.value("soname", "");
  if (stem.starts_with("lib")) stem = stem.substr(3);
  stem = stem.substr(0, stem.find(".so"));
  std::string key;
  for (char c : stem) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (auto it = names.find(key); it != names.end()) return it->second;
  return stem.empty() ? load.value("library", "?") : stem;
}

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? path : path.substr(0, slash);
}

// "RPATH" for "RPATH $ORIGIN/../../nvidia/cudnn/lib"; other ways ("default path") as they are.
std::string way_of(const Json& load) {
  auto via = load.value("via", "");
  if (via.starts_with("RPATH ") || via.starts_with("RUNPATH ")) return via.substr(0, via.find(' '));
  return via;
}

std::string load_text(const Json& load) {
  auto version = text_of(load, "version");
  return version.empty() ? library_name(load) : library_name(load) + " " + version;
}

// Where a library the finding does not name comes from, to group them by.
std::string load_origin(const Json& load) {
  if (load.contains("wheel") && load["wheel"].is_string()) return "nvidia-* wheels";
  if (!load.contains("path") || !load["path"].is_string()) return "";
  return fmt::format("{} ({})", dir_of(load["path"].get<std::string>()), way_of(load));
}

// "sm_75,80,86 + PTX compute_86" from the first binary whose fatbin headers
// were read, else from a build record's compute capabilities (TensorFlow).
std::string architectures(const Json& fw) {
  std::vector<std::string> sass;
  std::vector<std::string> ptx;
  for (const auto& b : fw.value("binaries", Json::array())) {
    if (!b.is_object() || !b.contains("architectures")) continue;
    for (const auto& s : b["architectures"].value("sass", Json::array()))
      if (s.is_string()) sass.push_back(s.get<std::string>());
    for (const auto& p : b["architectures"].value("ptx", Json::array()))
      if (p.is_object() && p.contains("arch") && p["arch"].is_string()) ptx.push_back(p["arch"]);
    if (!sass.empty() || !ptx.empty()) break;
  }
  if (sass.empty() && ptx.empty() && fw.contains("build")) {
    const Json& caps = value_of(fw["build"], "cuda_compute_capabilities");
    for (const auto& c : caps.is_array() ? caps : Json::array()) {
      if (!c.is_string()) continue;
      auto s = c.get<std::string>();
      (s.starts_with("compute_") ? ptx : sass).push_back(s);
    }
  }
  // By architecture, as a reader compares them with a GPU's compute capability: 89 before 90 before 90a.
  auto by_arch = [](const std::string& a, const std::string& b) {
    auto key = [](const std::string& s) {
      auto digits = s.find_first_of("0123456789");
      std::size_t end = digits == std::string::npos ? s.size() : s.find_first_not_of("0123456789", digits);
      long n = digits == std::string::npos ? 0 : std::atol(s.c_str() + digits);
      return std::make_pair(n, end == std::string::npos ? std::string() : s.substr(end));
    };
    return key(a) < key(b);
  };
  std::sort(sass.begin(), sass.end(), by_arch);
  std::sort(ptx.begin(), ptx.end(), by_arch);
  std::vector<std::string> numbers;
  for (const auto& s : sass) numbers.push_back(s.starts_with("sm_") ? s.substr(3) : s);
  std::string out = numbers.empty() ? "" : "sm_" + join_nonempty(numbers, ",");
  if (!ptx.empty()) out += (out.empty() ? "PTX " : " + PTX ") + join_nonempty(ptx, ",");
  return out;
}

// "CUDA 12.4", "CUDA 12.2, cuDNN 8", "ROCm 6.1", "CPU-only"; "" when the build is not known.
std::string built_for(const Json& fw) {
  const Json& build = fw.contains("build") && fw["build"].is_object() ? fw["build"] : Json::object();
  if (auto hip = text_of(build, "hip"); !hip.empty()) return "ROCm " + hip;
  std::string cuda = text_of(build, "cuda");
  if (cuda.empty() && value_of(build, "cuda_major").is_number()) cuda = text_of(build, "cuda_major");
  if (cuda.empty()) return value_of(build, "cpu_only") == true ? "CPU-only" : "";
  std::string out = "CUDA " + cuda;
  auto cudnn = text_of(build, "cudnn");
  if (cudnn.empty()) cudnn = text_of(build, "cudnn_major");
  if (!cudnn.empty()) out += ", cuDNN " + cudnn;
  std::vector<std::string> plugins;
  for (const auto& p : fw.value("plugins", Json::array())) {
    auto package = p.is_object() ? p.value("package", "") : "";
    if (package.ends_with("-plugin")) plugins.push_back(package + " " + text_of(p, "version"));
  }
  if (!plugins.empty()) out += " (" + join_nonempty(plugins, ", ") + ")";
  return out;
}

// The name a user installed: the distribution when it says more than the
// import name (cupy-cuda12x, onnxruntime-gpu), else the import name.
std::string display_name(const Json& fw) {
  auto name = fw.value("name", "?");
  auto package = fw.value("package", "");
  return package.starts_with(name + "-") ? package : name;
}

std::string environment_line(const Json& env) {
  auto prefix = env.value("prefix", "?");
  std::vector<std::string> about = {env.value("kind", "")};
  if (auto py = text_of(env, "python_version"); !py.empty()) about.push_back("Python " + py);
  std::string line = fmt::format("{} ({})", prefix, join_nonempty(about, ", "));
  std::map<std::string, int> wheels;  // "cu12" -> count
  for (const auto& w : env.value("nvidia_wheels", Json::array())) {
    const Json& major = value_of(w, "cuda_major");
    ++wheels[major.is_number() ? "cu" + json_text(major, -1) : "other"];
  }
  std::vector<std::string> counts;
  int total = 0;
  for (const auto& [major, n] : wheels) {
    counts.push_back(fmt::format("{} {}", n, major));
    total += n;
  }
  if (total > 0)
    line += fmt::format(" · nvidia-* wheel{}: {}", total == 1 ? "" : "s", join_nonempty(counts, ", "));
  return line;
}

// Whether finding `f` cites something inside `path`.
bool cites(const Findings& fs, std::size_t f, const std::string& path) {
  return std::any_of(fs.cited.begin(), fs.cited.end(),
                     [&](const Cited& c) { return c.finding == f && under(c.fact, path); });
}

// How many frameworks finding `f` cites ("frameworks.environments[0].frameworks[2]" counts once).
std::size_t framework_count(const Findings& fs, std::size_t f) {
  std::vector<std::string> seen;
  for (const auto& c : fs.cited) {
    if (c.finding != f) continue;
    auto at = c.fact.find(".frameworks[");
    if (!c.fact.starts_with("frameworks.") || at == std::string::npos) continue;
    auto end = c.fact.find(']', at);
    auto which = c.fact.substr(0, end);
    if (std::find(seen.begin(), seen.end(), which) == seen.end()) seen.push_back(which);
  }
  return seen.size();
}

// torch's companions in its environment ("with torchvision 0.19.0, torchaudio 2.4.0"): their releases
// pair with one torch release each. "" for other frameworks, or none installed.
std::string companions_of(const Json& env, const Json& fw) {
  if (fw.value("name", "") != "torch" || !env.contains("torch_companions") ||
      !env["torch_companions"].is_object())
    return "";
  std::vector<std::string> named;
  for (const auto& [name, f] : env["torch_companions"].items()) {
    auto version = text_of(env["torch_companions"], name.c_str());
    named.push_back(version.empty() ? name : name + " " + version);
  }
  return named.empty() ? "" : "with " + join_nonempty(named, ", ");
}

void framework_lines(const Json& fw, const std::string& path, const std::string& companions,
                     const Findings& fs, std::vector<SummaryLine>& out) {
  auto about = findings_about(fs, path);
  std::string build = built_for(fw);
  std::string mark = worst(fs, about);
  if (mark.empty()) mark = build.empty() ? "unknown" : "ok";
  // torch's version.py says "2.8.0+cu128" where its PyPI dist-info says "2.8.0".
  auto version = text_of(fw, "version");
  if (fw.contains("build")) {
    auto built = text_of(fw["build"], "version");
    if (built.starts_with(version + "+")) version = built;
  }
  // The findings about the framework itself (its build, its architectures) are
  // named on its line; those about one library, on the library's.
  std::vector<std::size_t> own;
  for (auto f : about) {
    if (!cites(fs, f, path + ".loads") && framework_count(fs, f) == 1) own.push_back(f);
  }
  std::vector<std::string> parts = {display_name(fw) + (version.empty() ? "" : " " + version),
                                    build.empty() ? "build not known" : build, architectures(fw), companions,
                                    ids_of(fs, own)};
  out.push_back({join_nonempty(parts, " · "), 1, mark});

  const Json& loads = fw.contains("loads") && fw["loads"].is_array() ? fw["loads"] : Json::array();
  // Lines gathered by what they say: the libraries no finding names by where
  // they come from; those not found by how they are needed and the findings.
  struct Group {
    std::string key;
    std::string mark;
    std::vector<std::string> items;
    std::string tail;
  };
  std::vector<Group> fine;
  std::vector<Group> flagged;
  auto add = [](std::vector<Group>& groups, Group g, std::string item) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.key == g.key; });
    if (it == groups.end()) it = groups.insert(groups.end(), std::move(g));
    it->items.push_back(std::move(item));
  };
  for (std::size_t k = 0; k < loads.size(); ++k) {
    const Json& load = loads[k];
    if (!load.is_object()) continue;
    auto named = findings_about(fs, fmt::format("{}.loads[{}]", path, k));
    bool found = load.contains("path") && load["path"].is_string();
    auto ids = ids_of(fs, named);
    if (named.empty() && found) {
      add(fine, {load_origin(load), "", {}, "from " + load_origin(load)}, load_text(load));
    } else if (found) {
      // A copy other than the one expected: one line each, with where it comes from.
      flagged.push_back({fmt::format("{}", k),
                         worst(fs, named),
                         {load_text(load)},
                         fmt::format("from {} · {}", load_origin(load), ids)});
    } else {
      auto how = load.value("how", "") == "dlopen" ? "opened at run time" : "needed at load time";
      auto tail = fmt::format("not found ({})", how) + (ids.empty() ? "" : " · " + ids);
      auto m = named.empty() ? std::string("unknown") : worst(fs, named);
      add(flagged, {tail + m, m, {}, tail}, load.value("soname", library_name(load)));
    }
  }
  // The libraries people compare first, first.
  static const std::vector<std::string> order = {"cudart",    "cuDNN",  "cuBLAS", "cuBLASLt", "NCCL",
                                                 "nvJitLink", "NVRTC",  "cuFFT",  "cuSPARSE", "cuSPARSELt",
                                                 "cuSOLVER",  "cuRAND", "CUPTI",  "cuFile",   "NVSHMEM"};
  auto rank = [&](const std::string& text) {
    auto name = text.substr(0, text.find(' '));
    return std::find(order.begin(), order.end(), name) - order.begin();
  };
  for (auto& g : fine) {
    std::stable_sort(g.items.begin(), g.items.end(),
                     [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
    out.push_back({fmt::format("loads {} {}", join_nonempty(g.items, ", "), g.tail), 2, ""});
  }
  for (const auto& g : flagged)
    out.push_back({fmt::format("{} {}", join_nonempty(g.items, ", "), g.tail), 2, g.mark});
}

}  // namespace

std::vector<SummaryLine> framework_summary_lines(const Json& report) {
  std::vector<SummaryLine> out;
  const Json& envs = value_of(report["frameworks"], "environments");
  if (!envs.is_array() || envs.empty()) return {{"no Python environment found", 0, ""}};
  auto fs = read_findings(report);
  std::vector<std::string> without;  // environments without a framework
  for (std::size_t i = 0; i < envs.size(); ++i) {
    const Json& env = envs[i];
    if (!env.is_object()) continue;
    const Json& fws =
        env.contains("frameworks") && env["frameworks"].is_array() ? env["frameworks"] : Json::array();
    auto env_path = fmt::format("frameworks.environments[{}]", i);
    // Findings about the environment as a whole: those that name none of its
    // frameworks (its wheels, say) or several (two CUDA majors side by side).
    std::vector<std::size_t> env_only;
    for (auto f : findings_about(fs, env_path)) {
      if (!cites(fs, f, env_path + ".frameworks") || framework_count(fs, f) > 1) env_only.push_back(f);
    }
    if (fws.empty() && env_only.empty()) {
      auto wheels = env.value("nvidia_wheels", Json::array()).size();
      without.push_back(
          env.value("prefix", "?") +
          (wheels == 0 ? "" : fmt::format(" ({} nvidia-* wheel{})", wheels, wheels == 1 ? "" : "s")));
      continue;
    }
    out.push_back({environment_line(env), 0, ""});
    for (std::size_t j = 0; j < fws.size(); ++j)
      framework_lines(fws[j], fmt::format("{}.frameworks[{}]", env_path, j), companions_of(env, fws[j]), fs,
                      out);
    for (auto f : env_only) out.push_back({fs.id[f], 1, fs.severity[f]});
  }
  if (!without.empty())
    out.push_back({fmt::format("no framework in {}", join_nonempty(without, ", ")), 0, ""});
  return out;
}

}  // namespace cudiag::render
