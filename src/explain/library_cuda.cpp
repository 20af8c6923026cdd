#include "explain/library_cuda.h"

#include <fmt/format.h>

#include <algorithm>

#include "explain/captures.h"

namespace cudiag::explain {

namespace {

// Toolkit libraries whose sonames followed the CUDA release up to 10.2.
bool toolkit_library(const std::string& base) {
  static const std::vector<std::string> names = {"cudart",   "cublas",     "cublaslt", "cufft", "curand",
                                                 "cusolver", "cusparse",   "nvrtc",    "nppc",  "nvjpeg",
                                                 "nvgraph",  "nvtoolsext", "cupti"};
  return std::find(names.begin(), names.end(), base) != names.end();
}

}  // namespace

std::optional<SonameCuda> cuda_of_soname(const kb::KnowledgeBase& kb, const std::string& soname_in) {
  std::string soname = ascii_lower(soname_in);
  std::string base = soname_base(soname);
  if (!toolkit_library(base)) return std::nullopt;
  SonameCuda out;
  for (const auto& l : kb.libraries()) {
    bool ships = std::any_of(l.linux_sonames.begin(), l.linux_sonames.end(),
                             [&](const std::string& s) { return ascii_lower(s) == soname; });
    if (ships && std::find(out.majors.begin(), out.majors.end(), l.cuda_major) == out.majors.end())
      out.majors.push_back(l.cuda_major);
  }
  if (!out.majors.empty()) {
    std::sort(out.majors.begin(), out.majors.end());
    return out;
  }
  // "libcudart.so.10.0": a release of CUDA 10.2 or older in the name.
  auto at = soname.find(".so.");
  if (at == std::string::npos) return std::nullopt;
  auto v = Version::parse(soname.substr(at + 4));
  if (!v || v->parts().size() < 2 || v->major() > 10 || v->major() < 7) return std::nullopt;
  out.release = Version::parse(fmt::format("{}.{}", v->major(), v->minor()));
  return out;
}

bool provides(const SonameCuda& wanted, const Version& have) {
  if (wanted.release)
    return wanted.release->major() == have.major() && wanted.release->minor() == have.minor();
  return std::find(wanted.majors.begin(), wanted.majors.end(), have.major()) != wanted.majors.end();
}

std::string describe(const SonameCuda& wanted) {
  if (wanted.release) return "CUDA " + wanted.release->text();
  std::string out;
  for (std::size_t i = 0; i < wanted.majors.size(); ++i)
    out += fmt::format("{}{}.x", i == 0 ? "CUDA " : " or ", wanted.majors[i]);
  return out;
}

}  // namespace cudiag::explain
