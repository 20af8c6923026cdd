#include "explain/build_fixes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "explain/captures.h"
#include "kb/framework_matrix.h"
#include "kb/newest_cuda.h"

namespace cudiag::explain {

namespace {

long minor_of(const Version& v) { return v.major() * 100 + v.minor(); }

// "2.1" for a torch row's release; the release's variants as versions.
struct TorchRow {
  std::string release;
  std::vector<Version> variants;
};

std::vector<TorchRow> torch_rows(const kb::KnowledgeBase& kb) {
  std::vector<TorchRow> out;
  const Json& table = kb.raw("framework_matrix");
  if (!table.contains("entries")) return out;
  for (const auto& row : table["entries"]) {
    if (row.value("framework", "") != "torch" || !row.contains("cuda_variants")) continue;
    out.push_back({row.value("release", ""), kb::framework_cuda_variants(row)});
  }
  return out;
}

bool same_release(const std::string& row_release, const Version& release) {
  auto row = Version::parse(row_release);
  return row && row->major() == release.major() && row->minor() == release.minor();
}

}  // namespace

std::optional<BuildFix> nvcc_arch_fix(const kb::KnowledgeBase& kb, const std::string& arch, bool from_ptxas,
                                      const std::optional<Version>& nvcc,
                                      const std::optional<Version>& gpu_cc, const std::string& gpu_label) {
  std::string nvcc_said = nvcc ? fmt::format(" (yours is {})", nvcc->text()) : "";
  std::string xy = "XY";
  std::string example = ", XY being the GPU's compute capability without the dot (86 for an RTX 3090)";
  if (gpu_cc) {
    xy = fmt::format("{}{}", gpu_cc->major(), gpu_cc->minor());
    example = fmt::format(" for the {}", gpu_label);
  }
  if (ascii_lower(arch).find("native") != std::string::npos) {
    return BuildFix{
        fmt::format(
            "Name the architecture instead of native: -arch=sm_{0} (-gencode arch=compute_{0},code=sm_{0}) or "
            "CMAKE_CUDA_ARCHITECTURES={0}{1}. nvcc accepts -arch=native from CUDA 11.6 on{2} and "
            "CMAKE_CUDA_ARCHITECTURES=native needs CMake 3.24, so a newer toolkit or CMake also works.",
            xy, example, nvcc_said),
        "binaries"};
  }
  // "compute_" or "compute_No" ("No CUDA devices found." from a detection script): the build asked the
  // GPU for its architecture and found none, as in a docker build, which sees no GPU.
  auto number = arch.substr(std::min(arch.find('_') + 1, arch.size()));
  if (number.empty() || number[0] < '0' || number[0] > '9') {
    return BuildFix{
        fmt::format(
            "The build detects the GPU's architecture and found none (a docker build sees no GPU; nvcc got "
            "'{0}' with no number): name it explicitly: CMAKE_CUDA_ARCHITECTURES={1} (or the build's own "
            "variable: CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST, an SM= or CUDA_ARCH setting), -arch=sm_{1}{2}.",
            arch, xy, example),
        "binaries"};
  }
  // ptxas's --gpu-name comes from nvcc: an nvcc that accepted an architecture its ptxas rejects
  // means two toolkits mixed (an old distribution nvcc with a newer ptxas), the signature's own answer.
  if (from_ptxas) return std::nullopt;
  // An architecture newer than the GPU the build is for (a build script's Blackwell default on an RTX
  // 4090): the GPU cannot run it anyway, so the list is what to change, not the toolkit.
  long digits = std::strtol(number.c_str(), nullptr, 10);
  auto m = kb.arch_match(arch);
  if (gpu_cc && digits >= 10) {
    long wanted = gpu_cc->major() * 10 + gpu_cc->minor();
    if (digits > wanted) {
      // Another GPU of the machine may be the one that needs it: then the toolkit is what to change.
      auto since = m && m->arch->first_cuda ? m->arch->first_cuda : std::nullopt;
      std::string other =
          since
              ? fmt::format(" If another GPU of the machine needs {}, build with CUDA {} or newer instead{}.",
                            arch, since->text(), nvcc_said)
              : "";
      return BuildFix{
          fmt::format(
              "{0} is newer than the {1} (sm_{2}) the build is for, which cannot run it: build for the GPU's own "
              "architecture: CMAKE_CUDA_ARCHITECTURES={2}, -arch=sm_{2}, TORCH_CUDA_ARCH_LIST={3}.{4} (or the "
              "build script's SM= / CUDA_ARCH setting) instead of {0}.{5}",
              arch, gpu_label, wanted, gpu_cc->major(), gpu_cc->minor(), other),
          "binaries"};
    }
  }
  // Older than every architecture the knowledge base has (compute_12, compute_13: Tesla, dropped with
  // compute capability 1.x by CUDA 7.0): no toolkit in use accepts it, so the list is what changes.
  if (!m && digits >= 10 && !kb.archs().empty()) {
    const auto& oldest = kb.archs().front();
    long oldest_digits = oldest.cc.major() * 10 + oldest.cc.minor();
    if (digits < oldest_digits) {
      return BuildFix{
          fmt::format(
              "{} (compute capability {}.{}) is older than every architecture a current toolkit builds for (the "
              "oldest, {}, was last targeted by CUDA {}; compute capability 1.x by CUDA 6.5): remove it from the build's "
              "architecture list (the -gencode or -arch flags of the Makefile or build script, "
              "CMAKE_CUDA_ARCHITECTURES) and build for the GPU's own architecture instead.",
              arch, digits / 10, digits % 10, oldest.sm,
              oldest.last_cuda ? oldest.last_cuda->text() : std::string("8.0")),
          "binaries"};
    }
  }
  if (!m || !m->arch->last_cuda) return std::nullopt;
  const auto& last = *m->arch->last_cuda;
  if (nvcc && minor_of(*nvcc) <= minor_of(last)) return std::nullopt;  // this nvcc still targets it
  if (!nvcc) {
    // Which side of the window an unknown nvcc is on: an architecture dropped before the previous
    // CUDA major (Kepler, after 11.8) is rejected by every toolkit in use; one dropped by the newest
    // major (Pascal in CUDA 13) as readily by a toolkit older than it, so that stays the toolkit answer.
    if (last.major() >= kb::newest_cuda_major(kb) - 1) return std::nullopt;
  }
  return BuildFix{
      fmt::format(
          "{} ({}, compute capability {}) was last targeted by CUDA {}; newer toolkits{} reject it: remove it "
          "from the build's architecture list (the -gencode or -arch flags of the Makefile or build script, "
          "CMAKE_CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST), or build with CUDA {} or older if that GPU must be "
          "supported.",
          arch, m->arch->name, m->arch->cc.text(), last.text(), nvcc_said, last.text()),
      "binaries"};
}

BuildFix extension_cuda_fix(const kb::KnowledgeBase& kb, const Version& toolkit, const Version& torch_cuda,
                            const std::optional<Version>& release) {
  // The torch releases in question, and among their variants of the toolkit's major the one nearest
  // the toolkit (cpp_extension only refuses another major; a minor difference is a warning).
  std::vector<std::string> releases;
  std::optional<Version> best;
  // Nearest at or below the toolkit first (what the thread fixes install), else nearest above.
  auto rank = [&](const Version& x) {
    long d = minor_of(x) - minor_of(toolkit);
    return d <= 0 ? -d : 1000 + d;
  };
  for (const auto& row : torch_rows(kb)) {
    bool in_question = release ? same_release(row.release, *release)
                               : std::any_of(row.variants.begin(), row.variants.end(), [&](const Version& v) {
                                   return minor_of(v) == minor_of(torch_cuda);
                                 });
    if (!in_question) continue;
    bool has_major = false;
    for (const auto& v : row.variants) {
      if (v.major() != toolkit.major()) continue;
      has_major = true;
      if (!best || rank(v) < rank(*best)) best = v;
    }
    if (has_major) releases.push_back(row.release);
  }
  std::string toolkit_fix = fmt::format(
      "build with a CUDA {0} toolkit, torch's: export CUDA_HOME=/usr/local/cuda-{0} PATH=/usr/local/cuda-{0}/bin:$PATH "
      "(or conda install cuda-nvcc={0}), then rebuild; or install a prebuilt wheel of the extension",
      torch_cuda.text());
  if (toolkit.major() == torch_cuda.major()) {
    // Older cpp_extension refuses a minor difference, newer releases only warn; the thread fixes
    // line the toolkit up with torch (CUDA_HOME), so that comes first.
    std::string variant = best && minor_of(*best) == minor_of(toolkit)
                              ? fmt::format(
                                    " Or install torch's {} build (--index-url "
                                    "https://download.pytorch.org/whl/{}).",
                                    best->cuda_tag(), best->cuda_tag())
                              : "";
    return BuildFix{
        fmt::format("The toolkit's CUDA {} and torch's {} differ only in the minor version (older "
                    "torch releases refuse that, newer ones warn): {}.{}",
                    toolkit.text(), torch_cuda.text(), toolkit_fix, variant),
        "cuda_runtime"};
  }
  if (!best) {
    std::string which = release
                            ? fmt::format("torch {} has no build", release->text())
                            : fmt::format("no torch release with a CUDA {} build has one", torch_cuda.text());
    return BuildFix{fmt::format("Match the toolkit to torch: {} for CUDA {}.x, your toolkit's; {}.", which,
                                toolkit.major(), toolkit_fix),
                    ""};
  }
  std::string tag = best->cuda_tag();
  // The table lists the newest release first.
  std::string span = releases.size() > 1 ? releases.back() + " to " + releases.front() : releases.front();
  std::string scope = release ? fmt::format("torch {} has a {} build", release->text(), tag)
                              : fmt::format("torch {} publish{} a {} build beside the CUDA {} one", span,
                                            releases.size() > 1 ? "" : "es", tag, torch_cuda.text());
  return BuildFix{
      fmt::format(
          "Install the PyTorch build for your toolkit's CUDA {}: {}: pip install --force-reinstall "
          "torch=={} torchvision --index-url https://download.pytorch.org/whl/{} (the same release, its "
          "{} variant). Or {}.",
          toolkit.text(), scope, release ? release->text() : "<your version>", tag, tag, toolkit_fix),
      "frameworks"};
}

std::optional<BuildFix> torch_variant_fix(const kb::KnowledgeBase& kb, const std::optional<Version>& release,
                                          const std::optional<Version>& wanted) {
  if (!wanted) return std::nullopt;
  std::optional<Version> variant;
  const Json* row = release ? kb::framework_matrix_row(kb, "torch", release->text()) : nullptr;
  for (const auto& v : row ? kb::framework_cuda_variants(*row) : std::vector<Version>{}) {
    if (v.major() != wanted->major()) continue;
    if (!variant ||
        std::labs(minor_of(v) - minor_of(*wanted)) < std::labs(minor_of(*variant) - minor_of(*wanted)))
      variant = v;
  }
  Version pick = variant ? *variant : *wanted;
  std::string tag = pick.cuda_tag();
  std::string pin = release ? fmt::format("torch=={}+{}", release->text(), tag) : "torch";
  std::string note = release && !variant
                         ? fmt::format(" (torch {} has no CUDA {}.x build: pick a release that has one)",
                                       release->text(), wanted->major())
                         : "";
  // Releases before 1.11 are served from the torch_stable.html page, where the +cuXY pin decides.
  bool stable_page = release && *release < Version::parse("1.11").value();
  std::string source = stable_page ? "-f https://download.pytorch.org/whl/torch_stable.html"
                                   : "--index-url https://download.pytorch.org/whl/" + tag;
  return BuildFix{
      fmt::format(
          "Install the CUDA {} build explicitly: pip install --force-reinstall {} {} (with torchvision and "
          "torchaudio of the same CUDA){}. "
          "Without the +cuXY pin, pip's -f torch_stable.html and a plain PyPI install pick whatever wheel "
          "sorts first or PyPI's default build; with conda, check the build string (conda list torch) for cuda rather than cpu.",
          pick.text(), pin, source, note),
      "frameworks"};
}

namespace {

// The toolkit_identifiers entry that lists `name`.
const Json* identifier_entry(const kb::KnowledgeBase& kb, const std::string& name) {
  const Json& table = kb.raw("toolkit_identifiers");
  if (!table.contains("entries")) return nullptr;
  for (const auto& e : table["entries"]) {
    for (const auto& n : e.value("names", Json::array())) {
      if (n.is_string() && n.get<std::string>() == name) return &e;
    }
  }
  return nullptr;
}

// The newest toolkit release of the KB before `removed` ("11.8" before 12.0).
std::optional<Version> last_release_before(const kb::KnowledgeBase& kb, const Version& removed) {
  std::optional<Version> last;
  for (const auto& r : kb.toolkit_releases()) {
    auto minor = Version::parse(fmt::format("{}.{}", r.cuda.major(), r.cuda.minor()));
    if (minor && *minor < removed && (!last || *last < *minor)) last = minor;
  }
  return last;
}

}  // namespace

std::optional<BuildFix> identifier_fix(const kb::KnowledgeBase& kb, const std::string& identifier,
                                       const std::optional<Version>& nvcc) {
  const Json* e = identifier_entry(kb, identifier);
  if (!e) return std::nullopt;
  std::string what = e->value("what", "");
  const std::string layer = "cuda_runtime";  // every name in the table is the toolkit's
  std::string used = nvcc ? fmt::format(" (nvcc {} here)", nvcc->text()) : "";
  if (auto since = Version::parse(e->value("since", ""))) {
    if (nvcc && !(*nvcc < *since))
      return BuildFix{fmt::format("{} came with CUDA {} ({}), and nvcc {} has it: the build compiles against "
                                  "another, older toolkit's headers (a distribution's nvidia-cuda-dev in "
                                  "/usr/include, or CUDA_HOME / CUDA_PATH / -I pointing at an old toolkit); "
                                  "point them at the toolkit of nvcc {}",
                                  identifier, since->text(), what, nvcc->text(), nvcc->text()),
                      layer};
    return BuildFix{
        fmt::format("{} came with CUDA {} ({}): the toolkit compiling this is older{}. Build with "
                    "CUDA {} or newer: install that toolkit and point PATH and CUDA_HOME at it "
                    "(nvcc --version must show it)",
                    identifier, since->text(), what, used, since->text()),
        layer};
  }
  auto removed = Version::parse(e->value("removed", ""));
  if (!removed) return std::nullopt;
  std::string only = e->contains("removed_for") ? " for " + e->value("removed_for", "") : "";
  if (nvcc && *nvcc < *removed && only.empty()) return std::nullopt;
  auto last = last_release_before(kb, *removed);
  std::string older = last ? fmt::format("CUDA {} (the last before {})", last->text(), removed->text())
                           : fmt::format("a CUDA older than {}", removed->text());
  return BuildFix{fmt::format("{} is gone from CUDA {}{} ({}): the code was written for an older toolkit{}. "
                              "Build it with {}, or use a release of the project ported to the newer API",
                              identifier, removed->text(), only, what, used, older),
                  layer};
}

}  // namespace cudiag::explain
