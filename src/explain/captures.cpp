#include "explain/captures.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <optional>

#include "kb/records.h"
#include "rules/torch_variants.h"

namespace cudiag::explain {

namespace {

std::string api_label(const std::string& api) {
  const auto* known = kb::error_api(api);
  return std::string(known ? known->label : "runtime API");
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

// What a soname says of its release: "libcublas.so.9.1" -> "9.1", "libcudnn.so.8" -> "8", a
// Windows DLL's suffix (dll_version), "" for an unversioned name.
std::string dll_version(const std::string& name);

std::string soname_version(const std::string& soname) {
  if (auto so = soname.find(".so."); so != std::string::npos) return soname.substr(so + 4);
  return dll_version(soname);
}

// The release a CUDA Windows DLL's suffix names: "cudart64_110.dll" -> "11.x"
// (every CUDA 11 runtime ships it), "cudart64_101.dll" -> "10.1",
// "cublas64_12.dll" -> "12.x", "cudart64_80.dll" -> "8.0", "cudnn64_8.dll" -> "8.x"; "" for other names.
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
  // CUDA 6.5 to 9.2 wrote major and minor: cudart64_65, _70, _75, _80, _90, _92.
  if (digits.size() == 2 && digits[0] >= '6') return digits.substr(0, 1) + "." + digits.substr(1);
  return digits + ".x";
}

// The math libraries, whose statuses are small numbers too: a bare number is one of theirs only on a
// line that names the library.
constexpr std::array<std::string_view, 4> kNamedOnlyLibraries = {"cufft", "curand", "cusolver", "cusparse"};

// The API a bare number most likely comes from, by the words around it:
// NVML names itself, driver API calls are cuXxx, anything else is the runtime
// (cudaGetErrorString is what applications print).
std::string likely_api(const std::string& line_lower) {
  if (line_lower.find("nvml") != std::string::npos) return "nvml";
  for (std::string_view library : kNamedOnlyLibraries) {
    if (line_lower.find(library) != std::string::npos) return std::string(library);
  }
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
  // Another API's code of that number only counts outside NVML and the math libraries: a bare
  // "error=30" on a line that names neither is not NVML_ERROR_RESET_TYPE_NOT_SUPPORTED nor
  // CUSOLVER_STATUS_IRS_MATRIX_SINGULAR.
  for (const auto* e : all) {
    bool named_only = e->api == "nvml" || std::find(kNamedOnlyLibraries.begin(), kNamedOnlyLibraries.end(),
                                                    e->api) != kNamedOnlyLibraries.end();
    if (!named_only) picked.push_back(e);
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

// A build's list ("sm_70 sm_75 sm_80 sm_86") against the GPU's architecture (capture `gpu_capture`):
// {n}_oldest and {n}_newest; {n}_gpu "older" (below every entry: only an older build runs it), "newer"
// (above every entry: a newer CUDA build), "between" or "unknown"; {n}_wheel, for an older GPU, the
// newest torch wheel that still carries its kernels.
void resolve_arch_list(Resolved& r, const std::string& n, const std::string& list,
                       const std::string& gpu_capture, const kb::KnowledgeBase& kb) {
  std::optional<Version> oldest, newest;
  std::string oldest_sm, newest_sm;
  auto consider = [&](const std::string& token) {
    auto m = token.empty() ? std::nullopt : kb.arch_match(token);
    if (!m) return;
    const Version& cc = m->arch->cc;
    if (!oldest || cc < *oldest) oldest = cc, oldest_sm = m->arch->sm;
    if (!newest || *newest < cc) newest = cc, newest_sm = m->arch->sm;
  };
  std::string word;
  for (char c : list + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else {
      consider(word);
      word.clear();
    }
  }
  add_value(r, n + "_oldest", oldest ? oldest_sm : "unknown");
  add_value(r, n + "_newest", newest ? newest_sm : "unknown");
  auto gpu = kb.arch_match(value_of(r, gpu_capture));
  std::string relation = "unknown";
  if (gpu && oldest) {
    const Version& cc = gpu->arch->cc;
    relation = cc < *oldest ? "older" : (*newest < cc ? "newer" : "between");
  }
  add_value(r, n + "_gpu", relation);
  std::optional<std::string> wheel;
  if (relation == "older") wheel = rules::torch_newest_wheel_for_gpu(kb, gpu->arch->cc);
  add_value(r, n + "_wheel",
            wheel ? *wheel
                  : "no torch release the knowledge base lists carries its kernels: build from source with "
                    "TORCH_CUDA_ARCH_LIST naming it");
  if (relation == "older" || relation == "newer")
    r.notes.push_back(fmt::format("this build targets {} to {}: the GPU ({}) is {} than all of them",
                                  oldest_sm, newest_sm, gpu->arch->sm, relation));
}

}  // namespace

// "libcudart.so.11.0" -> "cudart"; "cudart64_110.dll" -> "cudart" (CUDA's DLLs are NAME64_VERSION).
std::string soname_base(const std::string& soname) {
  auto stem = soname_stem(soname);
  if (stem.rfind("lib", 0) == 0) return stem.substr(3);
  if (auto w = stem.find("64_"); w != std::string::npos && soname.find(".dll") != std::string::npos)
    return stem.substr(0, w);
  return stem;
}

std::string api_layer(const std::string& api) {
  if (api == "driver") return "driver_api";
  if (api == "nvml") return "nvml";
  if (api == "cublas" || api == "cudnn" || api == "nccl") return "libraries";
  return "cuda_runtime";
}

std::string ascii_lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

ResolvedError from_kb(const kb::ErrorCode& e) { return {e.api, e.code, e.name, e.meaning, e.note, e.layer}; }

std::string value_of(const Resolved& r, const std::string& name) {
  for (const auto& v : r.values) {
    if (v.name == name) return v.text;
  }
  return "";
}

void add_value(Resolved& r, const std::string& name, const std::string& text) {
  for (const auto& v : r.values) {
    if (v.name == name) return;
  }
  r.values.push_back({name, text});
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
      // The other way out than a newer driver: the newest torch build this driver runs.
      auto wheel = rules::torch_wheel_for_driver(kb, cuda);
      // A build of the driver's CUDA or older always runs; from CUDA 11 on, minor-version compatibility
      // also runs a newer build of the same major, which the wheel names.
      std::string older = "a build for CUDA " + cuda.text() + " or older";
      if (wheel) {
        older += cuda.major() >= 11 ? fmt::format(", or within CUDA {} (minor-version compatibility) {}",
                                                  cuda.major(), *wheel)
                                    : ": " + *wheel;
      }
      add_value(r, n + "_torch_wheel", older);
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
      // "0x8" from a CUDA call's hexadecimal return value ("cudaLaunch returns 0x8").
      auto code =
          text.size() > 2 && text.size() <= 6 && (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0)
              ? std::optional<long>(std::stol(text.substr(2), nullptr, 16))
              : to_long(text);
      if (!code) break;
      auto picked = of_likely_api(kb.errors_with_code(*code), line_lower);
      // A runtime number today's numbering lacks, or gives to a profiler error deprecated since
      // CUDA 5.0, is one of CUDA 10.0 and older (Caffe's "cudaSuccess (30 vs. 0)" is cudaErrorUnknown).
      bool current = std::any_of(picked.begin(), picked.end(), [](const kb::ErrorCode* e) {
        return e->api != "runtime" || e->meaning.rfind("Deprecated", 0) != 0;
      });
      if (!current && likely_api(line_lower) == "runtime") {
        if (const auto* old = kb.runtime_error_with_legacy_code(*code)) {
          picked = {old};
          r.notes.push_back(
              fmt::format("error {} is {} in CUDA 10.0 and older, before CUDA 10.1 renumbered the "
                          "runtime's errors (it is {} today)",
                          *code, old->name, old->code));
        }
      }
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
      if (!m && ascii_lower(text).find("native") != std::string::npos) {
        add_value(r, n + "_name", "the build machine's own GPUs");
        add_value(r, n + "_first_cuda", "11.6");
        add_value(r, n + "_first_tag", "cu116");
        r.notes.push_back(fmt::format(
            "{}: the GPUs of the machine that builds; nvcc accepts -arch=native from CUDA 11.6 on, CMake's "
            "CMAKE_CUDA_ARCHITECTURES=native from CMake 3.24 on (older CMake passes compute_native through)",
            text));
        break;
      }
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
                a.first_cuda ? a.first_cuda->cuda_tag() : "the tag of a CUDA release that targets it");
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
      auto tag = cuda->cuda_tag();
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
    case CaptureKind::kArchList:
      resolve_arch_list(r, n, text, def.of, kb);
      break;
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

}  // namespace cudiag::explain
