#include "explain/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <map>
#include <optional>

#include "explain/matcher.h"
#include "explain/wrapped_lines.h"

namespace cudiag::explain {

namespace {

std::string api_layer(const std::string& api) {
  if (api == "driver") return "driver_api";
  if (api == "nvml") return "nvml";
  if (api == "cublas" || api == "cudnn" || api == "nccl") return "libraries";
  return "cuda_runtime";
}

std::string api_label(const std::string& api) {
  if (api == "driver") return "driver API";
  if (api == "nvml") return "NVML";
  if (api == "cublas") return "cuBLAS";
  if (api == "cudnn") return "cuDNN";
  if (api == "nccl") return "NCCL";
  return "runtime API";
}

std::optional<long> to_long(const std::string& s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  long v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// "libcudart.so.11.0" -> "libcudart"; "libnvidia-ml.so.1" -> "libnvidia-ml".
// "libcudart.so.11.0" -> "libcudart"; a Windows DLL "cudart64_110.dll" -> "cudart64_110".
std::string soname_stem(const std::string& soname) {
  auto so = soname.find(".so");
  if (so == std::string::npos) so = soname.find(".dll");
  return so == std::string::npos ? soname : soname.substr(0, so);
}

// "libcudart.so.11.0" -> "cudart"; "cudart64_110.dll" -> "cudart" (CUDA's DLLs are NAME64_VERSION).
std::string soname_base(const std::string& soname) {
  auto stem = soname_stem(soname);
  if (stem.rfind("lib", 0) == 0) return stem.substr(3);
  if (auto w = stem.find("64_"); w != std::string::npos && soname.find(".dll") != std::string::npos)
    return stem.substr(0, w);
  return stem;
}

// What a soname says of its release: "libcublas.so.9.1" -> "9.1", "libcudnn.so.8" -> "8", a
// Windows DLL's suffix (dll_version), "" for an unversioned name.
std::string dll_version(const std::string& name);
std::string soname_version(const std::string& soname) {
  if (auto so = soname.find(".so."); so != std::string::npos) return soname.substr(so + 4);
  return dll_version(soname);
}

// The release a CUDA Windows DLL's suffix names: "cudart64_110.dll" -> "11.x"
// (every CUDA 11 runtime ships it), "cudart64_101.dll" -> "10.1",
// "cublas64_12.dll" -> "12.x", "cudnn64_8.dll" -> "8.x"; "" for other names.
std::string dll_version(const std::string& name) {
  auto w = name.find("64_");
  auto dot = name.find(".dll");
  if (w == std::string::npos || dot == std::string::npos || dot <= w + 3) return "";
  std::string digits = name.substr(w + 3, dot - w - 3);
  if (digits.empty() || digits.size() > 3 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return "";
  if (digits.size() == 3 && digits[0] == '1' && digits[1] >= '1') return digits.substr(0, 2) + ".x";
  if (digits.size() == 3) return digits.substr(0, 2) + "." + digits.substr(2);
  if (digits.size() == 2 && digits[0] == '9') return "9." + digits.substr(1);
  return digits + ".x";
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The API a bare number most likely comes from, by the words around it:
// NVML names itself, driver API calls are cuXxx, anything else is the runtime
// (cudaGetErrorString is what applications print).
std::string likely_api(const std::string& line_lower) {
  if (line_lower.find("nvml") != std::string::npos) return "nvml";
  static const char* driver_words[] = {"cuinit", "cudriver", "cudevice", "cumodule",
                                       "culink", "cuctx",    "cumem",    "cuda_error_"};
  for (const char* w : driver_words) {
    if (line_lower.find(w) != std::string::npos) return "driver";
  }
  return "runtime";
}

// Of the errors several APIs define with one number or message, those of the API the line most
// likely comes from; all of them when none is.
std::vector<const kb::ErrorCode*> of_likely_api(std::vector<const kb::ErrorCode*> all,
                                                const std::string& line_lower) {
  std::string api = likely_api(line_lower);
  std::vector<const kb::ErrorCode*> picked;
  for (const auto* e : all) {
    if (e->api == api) picked.push_back(e);
  }
  if (!picked.empty()) return picked;
  // Another API's code of that number only counts outside NVML: a bare "error=30" on a line that
  // does not name NVML is not NVML_ERROR_RESET_TYPE_NOT_SUPPORTED.
  for (const auto* e : all) {
    if (e->api != "nvml") picked.push_back(e);
  }
  return picked;
}

// pynvml names its exception classes "NVMLError_" + the NVML_ERROR_ name in capitalised words without
// underscores (string.capwords(name, "_").replace("_", "")): NVML_ERROR_LIB_RM_VERSION_MISMATCH is
// NVMLError_LibRmVersionMismatch. The same transform over the table finds the error.
const kb::ErrorCode* nvml_error_for_exception(const kb::KnowledgeBase& kb, const std::string& suffix) {
  static const std::string kPrefix = "NVML_ERROR_";
  for (const auto& e : kb.errors()) {
    if (e.api != "nvml" || e.name.rfind(kPrefix, 0) != 0) continue;
    std::string class_name;
    bool word_start = true;
    for (char c : e.name.substr(kPrefix.size())) {
      if (c == '_') {
        word_start = true;
        continue;
      }
      auto u = static_cast<unsigned char>(c);
      class_name += static_cast<char>(word_start ? std::toupper(u) : std::tolower(u));
      word_start = false;
    }
    if (class_name == suffix) return &e;
  }
  return nullptr;
}

struct Resolved {
  std::vector<Value> values;
  std::vector<std::string> notes;
  std::vector<ResolvedError> errors;
};

ResolvedError from_kb(const kb::ErrorCode& e) { return {e.api, e.code, e.name, e.meaning, e.note, e.layer}; }

void add_value(Resolved& r, const std::string& name, const std::string& text) {
  for (const auto& v : r.values) {
    if (v.name == name) return;
  }
  r.values.push_back({name, text});
}

// A compiled extension's top-level module: the path's first component after
// site-packages or dist-packages (else the file's own stem), without the
// ".cpython-310-x86_64-linux-gnu.so" tail.
std::string extension_module(const std::string& path) {
  std::string rest = path;
  bool in_packages = false;
  for (const char* dir : {"site-packages/", "dist-packages/"}) {
    if (auto pos = rest.rfind(dir); pos != std::string::npos) {
      rest = rest.substr(pos + std::strlen(dir));
      in_packages = true;
    }
  }
  if (in_packages) {
    if (auto slash = rest.find('/'); slash != std::string::npos) return rest.substr(0, slash);
  } else if (auto slash = rest.rfind('/'); slash != std::string::npos) {
    rest = rest.substr(slash + 1);
  }
  return rest.substr(0, rest.find('.'));
}

// The pip package that ships an extension module: the signature table's
// "extension_packages" (import name -> distribution), else the module itself.
std::string extension_package(const kb::KnowledgeBase& kb, const std::string& module) {
  const Json& doc = kb.raw("error_signatures");
  if (auto m = doc.find("extension_packages"); m != doc.end() && m->is_object()) {
    if (auto it = m->find(module); it != m->end() && it->is_string()) return it->get<std::string>();
  }
  return module;
}

void resolve_capture(Resolved& r, const CaptureDef& def, const std::string& text,
                     const std::string& line_lower, const kb::KnowledgeBase& kb) {
  const std::string& n = def.name;
  switch (def.kind) {
    case CaptureKind::kText:
      break;
    case CaptureKind::kDriverCudaInt: {
      auto code = to_long(text);
      if (!code) break;
      auto cuda = Version::from_cuda_int(*code);
      add_value(r, n + "_cuda", cuda.text());
      std::string branches;
      for (const auto& b : kb.driver_branches()) {
        if (b.cuda == cuda) branches += (branches.empty() ? "R" : ", R") + std::to_string(b.branch);
      }
      r.notes.push_back(fmt::format(
          "found version {}: the driver supports CUDA up to {} (cudaDriverGetVersion){}", text, cuda.text(),
          branches.empty() ? "" : fmt::format("; drivers of branch {} report it", branches)));
      break;
    }
    case CaptureKind::kRequiredCuda: {
      auto cuda = Version::parse(text);
      if (!cuda) break;
      auto req = kb.driver_for_cuda(*cuda);
      std::string driver = req && req->full_min ? req->full_min->text() : "unknown";
      add_value(r, n + "_driver", driver);
      if (req && req->full_min) {
        r.notes.push_back(
            fmt::format("CUDA {}: needs a driver that supports CUDA {}, i.e. {} or newer on Linux (cudiag kb "
                        "driver-for {})",
                        text, cuda->text(), driver, cuda->text()));
      } else {
        r.notes.push_back(fmt::format("CUDA {}: a release the knowledge base does not list", text));
      }
      break;
    }
    case CaptureKind::kSoname: {
      add_value(r, n + "_stem", soname_stem(text));
      add_value(r, n + "_base", soname_base(text));
      add_value(r, n + "_version", soname_version(text));
      std::vector<const kb::Library*> owners;
      for (const auto& l : kb.libraries()) {
        if (std::find(l.linux_sonames.begin(), l.linux_sonames.end(), text) != l.linux_sonames.end())
          owners.push_back(&l);
      }
      if (!owners.empty()) {
        const auto& name = owners.front()->library;
        if (name == "cuda" || name == "nvml") {
          r.notes.push_back(fmt::format("{}: part of the NVIDIA driver, not of the CUDA toolkit", text));
        } else {
          std::string majors;
          for (const auto* l : owners)
            majors += (majors.empty() ? "" : " and ") + fmt::format("{}.x", l->cuda_major);
          r.notes.push_back(fmt::format("{}: the soname of {} in CUDA {}", text, name, majors));
        }
      } else if (auto v = dll_version(text); !v.empty()) {
        bool cudnn = soname_base(text) == "cudnn";
        r.notes.push_back(fmt::format(
            "{}: the Windows DLL of {} {}; its directory must be on PATH (from Python 3.8 on, Python "
            "packages also need os.add_dll_directory)",
            text, cudnn ? "cuDNN" : soname_base(text) + " from CUDA", v));
      } else if (text.size() >= 3 && text.compare(text.size() - 3, 3, ".so") == 0) {
        r.notes.push_back(fmt::format(
            "{}: a name without version, the development symlink that only -dev packages and toolkits ship",
            text));
      }
      break;
    }
    case CaptureKind::kErrorCode: {
      auto code = to_long(text);
      if (!code) break;
      auto picked = of_likely_api(kb.errors_with_code(*code), line_lower);
      if (picked.empty()) break;
      for (const auto* e : picked) r.errors.push_back(from_kb(*e));
      const auto& first = *picked.front();
      add_value(r, n + "_name", first.name);
      add_value(r, n + "_meaning", first.meaning);
      add_value(r, n + "_note", first.note);
      for (const auto* e : picked)
        r.notes.push_back(
            fmt::format("error {}: {} ({}): {}", *code, e->name, api_label(e->api), e->meaning));
      break;
    }
    case CaptureKind::kErrorName: {
      const auto* e = kb.error_named(text);
      if (!e) break;
      r.errors.push_back(from_kb(*e));
      add_value(r, n + "_code", std::to_string(e->code));
      add_value(r, n + "_meaning", e->meaning);
      add_value(r, n + "_note", e->note);
      r.notes.push_back(fmt::format("{}: {} error {}: {}", e->name, api_label(e->api), e->code, e->meaning));
      break;
    }
    case CaptureKind::kErrorMessage: {
      auto picked = of_likely_api(kb.errors_with_message(text), line_lower);
      if (picked.empty()) break;  // not a message any API prints: the generic entry does not count
      for (const auto* e : picked) r.errors.push_back(from_kb(*e));
      const auto& first = *picked.front();
      add_value(r, n + "_name", first.name);
      add_value(r, n + "_code", std::to_string(first.code));
      add_value(r, n + "_meaning", first.meaning);
      add_value(r, n + "_note", first.note);
      for (const auto* e : picked)
        r.notes.push_back(fmt::format("\"{}\" is what {} prints for {} (error {})", e->message,
                                      api_label(e->api), e->name, e->code));
      break;
    }
    case CaptureKind::kArch: {
      auto m = kb.arch_match(text);
      if (!m) {
        add_value(r, n + "_name", "not an architecture the knowledge base knows");
        add_value(r, n + "_first_cuda", "a release the knowledge base does not know");
        add_value(r, n + "_first_tag", "the tag of a CUDA release that targets it");
        r.notes.push_back(fmt::format("{}: not an architecture in the knowledge base", text));
        break;
      }
      const auto& a = *m->arch;
      add_value(r, n + "_name", a.name);
      std::string first =
          a.first_cuda ? a.first_cuda->text()
                       : (a.first_cuda_at_most ? a.first_cuda_at_most->text() + " or earlier" : "unknown");
      add_value(r, n + "_first_cuda", first);
      add_value(r, n + "_first_tag",
                a.first_cuda ? fmt::format("cu{}{}", a.first_cuda->major(), a.first_cuda->minor())
                             : "the tag of a CUDA release that targets it");
      std::string last = a.last_cuda ? fmt::format("; last targeted by CUDA {}", a.last_cuda->text()) : "";
      r.notes.push_back(fmt::format("{}: compute capability {}, {}; compilers target it from CUDA {}{}", text,
                                    a.cc.text(), a.name, first, last));
      break;
    }
    case CaptureKind::kCudnnVersion: {
      std::string version;
      if (auto code = to_long(text)) {
        if (auto v = kb.decode_version("cudnn", *code)) version = v->text();
      } else {
        for (char c : text) {
          if (std::isdigit(static_cast<unsigned char>(c))) {
            version += c;
          } else if (c == ',' || c == '.') {  // "(8, 5, 0)" and "7.6.5"
            version += '.';
          }
        }
      }
      if (version.empty()) version = text;
      add_value(r, n + "_version", version);
      r.notes.push_back(fmt::format("{}: cuDNN {}", text, version));
      break;
    }
    case CaptureKind::kPtxIsa: {
      auto isa = Version::parse(text);
      auto cuda = isa ? kb.cuda_for_ptx_isa(*isa) : std::nullopt;
      add_value(r, n + "_cuda", cuda ? cuda->text() : "a newer release than the knowledge base lists");
      if (cuda)
        r.notes.push_back(
            fmt::format("PTX ISA {}: written by CUDA {} tools; a ptxas or driver older than that cannot "
                        "read it",
                        text, cuda->text()));
      break;
    }
    case CaptureKind::kUnderscoreVersion: {
      std::string version = text;
      std::replace(version.begin(), version.end(), '_', '.');
      add_value(r, n + "_version", version);
      break;
    }
    case CaptureKind::kCudaVersion: {
      auto cuda = Version::parse(text);
      if (!cuda || cuda->parts().size() < 2) break;
      auto tag = fmt::format("cu{}{}", cuda->parts()[0], cuda->parts()[1]);
      add_value(r, n + "_tag", tag);
      r.notes.push_back(
          fmt::format("CUDA {}: the wheels built for it carry the tag {} (PyTorch's index "
                      "https://download.pytorch.org/whl/{})",
                      text, tag, tag));
      break;
    }
    case CaptureKind::kExtension: {
      auto module = extension_module(text);
      if (module.empty()) break;
      auto package = extension_package(kb, module);
      add_value(r, n + "_module", module);
      add_value(r, n + "_package", package);
      if (package != module)
        r.notes.push_back(fmt::format("{}: the module {} of the pip package {}", text, module, package));
      break;
    }
    case CaptureKind::kGccMax: {
      auto max = to_long(text);
      if (!max) break;
      add_value(r, n + "_next_gcc", std::to_string(*max + 1));
      auto cuda = kb.first_cuda_for_gcc(*max + 1);
      add_value(r, n + "_next_cuda", cuda ? cuda->text() : "a release the knowledge base does not list yet");
      // Which toolkits print this limit: the rows whose newest GCC is exactly `max`.
      std::string first, last;
      for (const auto& h : kb.host_compilers()) {
        if (h.gcc_max != *max) continue;
        if (first.empty()) first = h.cuda.text();
        last = h.cuda.text();
      }
      if (!first.empty())
        r.notes.push_back(fmt::format("gcc versions later than {}: the limit of nvcc in CUDA {}{}", *max,
                                      first, last == first ? "" : " to " + last));
      if (cuda)
        r.notes.push_back(fmt::format("GCC {}: nvcc accepts it from CUDA {} on", *max + 1, cuda->text()));
      break;
    }
    case CaptureKind::kNvmlException: {
      const auto* e = nvml_error_for_exception(kb, text);
      if (!e) break;
      r.errors.push_back(from_kb(*e));
      add_value(r, n + "_name", e->name);
      add_value(r, n + "_code", std::to_string(e->code));
      add_value(r, n + "_meaning", e->meaning);
      add_value(r, n + "_note", e->note);
      r.notes.push_back(
          fmt::format("pynvml's NVMLError_{} is {} (NVML error {}): {}", text, e->name, e->code, e->meaning));
      break;
    }
  }
}

std::string substitute(const std::string& text, const std::vector<Value>& values) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto open = text.find('{', pos);
    auto close = open == std::string::npos ? std::string::npos : text.find('}', open);
    if (close == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, open - pos);
    std::string name = text.substr(open + 1, close - open - 1);
    auto it = std::find_if(values.begin(), values.end(), [&](const Value& v) { return v.name == name; });
    out += it != values.end() ? it->text : "(not in the message)";
    pos = close + 1;
  }
  return out;
}

const Signature* signature_for_errors(const std::vector<Signature>& sigs,
                                      const std::vector<ResolvedError>& errors) {
  for (const auto& e : errors) {
    for (const auto& s : sigs) {
      if (s.generic) continue;
      for (const auto& ref : s.errors) {
        if (ref.api == e.api && ref.code == e.code) return &s;
      }
    }
  }
  return nullptr;
}

// How far back a signature's `preceded_by` words are looked for: a Python
// traceback's last frames, each line cut to its start.
constexpr std::size_t kBeforeLines = 8;
constexpr std::size_t kBeforeLineBytes = 400;

struct Candidate {
  std::string key;
  Explanation explanation;
};

// The signature's first context whose words the text has and whose libraries (if any) the match names.
const ContextLayer* context_layer(const Signature& s, const RawMatch& m, std::string_view text_lower) {
  for (const auto& cl : s.context_layers) {
    bool in_text = std::any_of(cl.words.begin(), cl.words.end(), [&](const std::string& w) {
      return text_lower.find(w) != std::string_view::npos;
    });
    if (!in_text) continue;
    if (cl.libraries.empty()) return &cl;
    for (std::size_t i = 0; i < s.captures.size() && i < m.groups.size(); ++i) {
      if (!m.matched[i] || s.captures[i].kind != CaptureKind::kSoname) continue;
      if (std::find(cl.libraries.begin(), cl.libraries.end(), soname_base(m.groups[i])) != cl.libraries.end())
        return &cl;
    }
  }
  return nullptr;
}

std::optional<Candidate> build(const RawMatch& m, const std::string& line_lower, std::string_view text_lower,
                               const std::vector<Signature>& sigs, const kb::KnowledgeBase& kb) {
  const Signature& matched = *m.sig;
  Resolved r;
  for (std::size_t i = 0; i < matched.captures.size() && i < m.groups.size(); ++i) {
    if (m.matched[i]) add_value(r, matched.captures[i].name, m.groups[i]);
  }
  for (std::size_t i = 0; i < matched.captures.size() && i < m.groups.size(); ++i) {
    if (m.matched[i]) resolve_capture(r, matched.captures[i], m.groups[i], line_lower, kb);
  }
  const Signature* explaining = &matched;
  std::string key;
  std::string layer = matched.layer;
  if (matched.generic) {
    if (r.errors.empty()) return std::nullopt;  // a number or name no API defines: not recognised
    if (const auto* specific = signature_for_errors(sigs, r.errors)) {
      explaining = specific;
      layer = specific->layer;
      key = specific->id;
    } else {
      layer = r.errors.front().layer.empty() ? api_layer(r.errors.front().api) : r.errors.front().layer;
      key = matched.id;
      for (const auto& e : r.errors) key += fmt::format("|{}:{}", e.api, e.code);
    }
  } else {
    key = matched.id;
    for (const auto& v : r.values) key += "|" + v.name + "=" + v.text;
    for (const auto& ref : matched.errors) {
      if (const auto* e = kb.error(ref.api, ref.code)) r.errors.push_back(from_kb(*e));
    }
    for (std::size_t i = 0; i < matched.captures.size() && i < m.groups.size(); ++i) {
      if (!m.matched[i] || matched.captures[i].kind != CaptureKind::kSoname) continue;
      auto it = matched.layer_for_library.find(soname_base(m.groups[i]));
      if (it != matched.layer_for_library.end()) layer = it->second;
    }
  }
  const ContextLayer* context = context_layer(*explaining, m, text_lower);
  if (context) layer = context->layer;
  // Generic matches resolved to a specific signature keep their own notes
  // (what the number or name is) but the specific text explains.
  Explanation e;
  e.id = explaining->id;
  e.matched_by = matched.id;
  e.layer = layer;
  e.title = substitute(explaining->title, r.values);
  e.meaning = substitute(explaining->meaning, r.values);
  if (context && !context->cause.empty()) e.causes.push_back(substitute(context->cause, r.values));
  for (const auto& c : explaining->causes) {
    auto t = substitute(c, r.values);
    if (!t.empty()) e.causes.push_back(std::move(t));
  }
  for (const auto& c : explaining->checks) e.checks.push_back(substitute(c, r.values));
  e.environment = explaining->environment;
  e.symptom = explaining->symptom;
  e.values = std::move(r.values);
  e.notes = std::move(r.notes);
  e.errors = std::move(r.errors);
  e.matched_text = m.text;
  e.sources = explaining->provenance.sources;
  e.confidence = explaining->provenance.confidence;
  return Candidate{std::move(key), std::move(e)};
}

void merge_into(Explanation& into, Explanation&& from) {
  // Show the message in its own words rather than a bare number found first.
  if (into.matched_by != into.id && from.matched_by == from.id) {
    into.matched_by = from.matched_by;
    into.matched_text = from.matched_text;
  }
  for (auto& v : from.values) {
    bool have =
        std::any_of(into.values.begin(), into.values.end(), [&](const Value& x) { return x.name == v.name; });
    if (!have) into.values.push_back(std::move(v));
  }
  for (auto& n : from.notes) {
    if (std::find(into.notes.begin(), into.notes.end(), n) == into.notes.end())
      into.notes.push_back(std::move(n));
  }
  for (auto& er : from.errors) {
    bool have = std::any_of(into.errors.begin(), into.errors.end(),
                            [&](const ResolvedError& x) { return x.api == er.api && x.code == er.code; });
    if (!have) into.errors.push_back(std::move(er));
  }
}

}  // namespace

std::vector<Explanation> explain_text(std::string_view text, const kb::KnowledgeBase& kb,
                                      const ExplainOptions& options) {
  const auto& sigs = signatures(kb);
  std::vector<Explanation> out;
  std::map<std::string, std::size_t> by_key;
  // The whole text, lower-cased, for signatures whose layer depends on the setting it shows.
  const std::string text_lower = lower(std::string(text));
  // The last few lines, lower-cased, for signatures that need a traceback's frame before the error.
  std::deque<std::string> before;
  for (const auto& logical : logical_lines(text, sigs, options.require_context)) {
    std::string_view line = logical.text;
    std::size_t line_no = logical.first;
    if (!line.empty()) {
      std::string line_lower = lower(std::string(line));
      std::string before_lower;
      for (const auto& b : before) before_lower += b + "\n";
      before.push_back(line_lower.substr(0, kBeforeLineBytes));
      if (before.size() > kBeforeLines) before.pop_front();
      for (const auto& m : match_line(line, sigs, options.require_context, before_lower)) {
        auto c = build(m, line_lower, text_lower, sigs, kb);
        if (!c) continue;
        auto it = by_key.find(c->key);
        if (it == by_key.end()) {
          c->explanation.lines.push_back(line_no);
          c->explanation.occurrences = 1;
          by_key.emplace(c->key, out.size());
          out.push_back(std::move(c->explanation));
        } else {
          // Two matches on one line (an error name next to its number) are one occurrence.
          auto& e = out[it->second];
          if (e.lines.empty() || e.lines.back() != line_no) {
            e.lines.push_back(line_no);
            ++e.occurrences;
          }
          merge_into(e, std::move(c->explanation));
        }
      }
    }
  }
  return out;
}

std::string value_of(const Explanation& e, std::string_view name) {
  for (const auto& v : e.values) {
    if (v.name == name) return v.text;
  }
  return "";
}

}  // namespace cudiag::explain
