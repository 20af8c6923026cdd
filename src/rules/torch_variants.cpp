#include "rules/torch_variants.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "kb/framework_matrix.h"
#include "kb/torch_arch_list.h"

namespace cudiag::rules {

namespace {

struct Row {
  Version release;
  std::vector<std::string> variants;  // CUDA versions whose wheel runs on the GPU, in matrix order
};

// Whether an arch list ("5.0;6.0;...;12.0+PTX") runs on compute capability `cc`: SASS of the same
// major and a minor not above it, or PTX of an architecture not above it.
bool runs_on(const std::string& list, const Version& cc) {
  for (const auto& a : kb::parse_torch_arch_list(list)) {
    if (a.cc.major() == cc.major() && a.cc.minor() <= cc.minor()) return true;
    if (a.ptx && a.cc <= cc) return true;
  }
  return false;
}

std::vector<Row> rows_for(const kb::KnowledgeBase& kb, const Version& cc) {
  std::vector<Row> rows;
  const Json& table = kb.raw("framework_matrix");
  if (!table.is_object() || !table.contains("entries")) return rows;
  for (const auto& e : table["entries"]) {
    if (e.value("framework", "") != "torch" || !e.contains("arch_lists") || !e["arch_lists"].is_object())
      continue;
    auto release = Version::parse(e.value("release", ""));
    if (!release) continue;
    Row row{*release, {}};
    for (const auto& [cuda, list] : e["arch_lists"].items()) {
      if (list.is_string() && runs_on(list.get<std::string>(), cc)) row.variants.push_back(cuda);
    }
    if (!row.variants.empty()) rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.release < b.release; });
  return rows;
}

// "12.8" -> "cu128".
std::string tag(const std::string& cuda) {
  auto v = Version::parse(cuda);
  return v ? v->cuda_tag() : "cu" + cuda;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out += (i == 0 ? "" : (i + 1 == v.size() ? " or " : ", ")) + v[i];
  return out;
}

}  // namespace

std::optional<std::string> torch_wheel_for_gpu(const kb::KnowledgeBase& kb, const Version& torch,
                                               const Version& cc, const std::optional<Version>& driver_cuda) {
  auto rows = rows_for(kb, cc);
  if (rows.empty()) return std::nullopt;
  auto same = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
    return r.release.major() == torch.major() && r.release.minor() == torch.minor();
  });
  // Otherwise the oldest newer release that has one (the smallest upgrade), else the newest older one.
  bool same_release = same != rows.end();
  const Row* pick = same_release ? &*same : nullptr;
  for (const auto& r : rows) {
    if (!pick && torch < r.release) pick = &r;
  }
  if (!pick) pick = &rows.back();
  std::string pin = same_release ? torch.text() : pick->release.text() + ".*";
  std::string sm = fmt::format("sm_{}{}", cc.major(), cc.minor());
  std::string index = pick->variants.back();
  std::string driver_note;
  if (driver_cuda) {
    // The newest variant not newer than the driver's CUDA, else the newest of its major; the oldest
    // for the note when the driver runs none.
    std::optional<Version> not_newer, same_major, oldest;
    for (const auto& v : pick->variants) {
      auto cuda = Version::parse(v);
      if (!cuda) continue;
      if (*cuda <= *driver_cuda && (!not_newer || *not_newer < *cuda)) not_newer = cuda;
      if (cuda->major() == driver_cuda->major() && cuda->major() >= 11 &&
          (!same_major || *same_major < *cuda))
        same_major = cuda;
      if (!oldest || *cuda < *oldest) oldest = cuda;
    }
    if (not_newer) {
      index = not_newer->text();
    } else if (same_major) {
      index = same_major->text();
    } else if (oldest) {
      driver_note = fmt::format("; your driver supports CUDA {} only: upgrade it to one for CUDA {} first",
                                driver_cuda->text(), oldest->text());
    }
  }
  std::vector<std::string> cudas;
  for (const auto& v : pick->variants) cudas.push_back("CUDA " + v);
  return fmt::format(
      "torch {} for {} has kernels that run on {}: pip install torch=={} --index-url https://download.pytorch.org/whl/{} "
      "(torchvision and torchaudio from the same index){}",
      pick->release.text(), joined(cudas), sm, pin, tag(index), driver_note);
}

std::optional<std::string> torch_newest_wheel_for_gpu(const kb::KnowledgeBase& kb, const Version& cc) {
  auto rows = rows_for(kb, cc);
  if (rows.empty()) return std::nullopt;
  return torch_wheel_for_gpu(kb, rows.back().release, cc);
}

std::optional<std::string> torch_widest_wheel(const kb::KnowledgeBase& kb, const Version& torch,
                                              const std::string& installed_cuda) {
  const Json* row = kb::framework_matrix_row(kb, "torch", torch.text());
  if (!row || !row->contains("arch_lists") || !(*row)["arch_lists"].is_object()) return std::nullopt;
  std::string best_cuda;
  std::optional<Version> best_low;
  std::optional<Version> best_high;
  std::optional<Version> installed_high;
  for (const auto& [cuda, list] : (*row)["arch_lists"].items()) {
    if (!list.is_string()) continue;
    std::optional<Version> low;
    std::optional<Version> high;
    for (const auto& a : kb::parse_torch_arch_list(list.get<std::string>())) {
      if (!low || a.cc < *low) low = a.cc;
      if (!high || *high < a.cc) high = a.cc;
    }
    if (cuda == installed_cuda) installed_high = high;
    if (high && (!best_high || *best_high < *high || *best_high == *high)) {
      best_cuda = cuda;
      best_low = low;
      best_high = high;
    }
  }
  // The installed variant already reaches the newest architecture: another variant adds nothing.
  if (best_cuda.empty() || best_cuda == installed_cuda || (installed_high && *installed_high == *best_high))
    return std::nullopt;
  return fmt::format(
      "torch {} for CUDA {} carries sm_{}{} to sm_{}{}: pip install torch=={} --index-url "
      "https://download.pytorch.org/whl/{} (torchvision and torchaudio from the same index)",
      row->value("release", ""), best_cuda, best_low->major(), best_low->minor(), best_high->major(),
      best_high->minor(), torch.text(), tag(best_cuda));
}

std::optional<std::string> torch_cuda_wheel(const kb::KnowledgeBase& kb, const Version& torch,
                                            const std::optional<Version>& driver_cuda) {
  const Json* row = kb::framework_matrix_row(kb, "torch", torch.text());
  if (!row || !row->contains("release")) return std::nullopt;
  auto variants = kb::framework_cuda_variants(*row);
  if (variants.empty()) return std::nullopt;
  std::sort(variants.begin(), variants.end());
  // The newest variant of a CUDA the driver runs (its own major; minor-version compatibility covers a
  // newer minor from CUDA 11 on), else the newest.
  const Version* pick = &variants.back();
  if (driver_cuda) {
    const Version* fits = nullptr;
    for (const auto& v : variants) {
      bool runs = v <= *driver_cuda || (v.major() == driver_cuda->major() && v.major() >= 11);
      if (runs) fits = &v;
    }
    if (fits) pick = fits;
  }
  std::string tags;
  for (std::size_t i = 0; i < variants.size(); ++i)
    tags += (i == 0 ? "" : (i + 1 == variants.size() ? " and " : ", ")) + variants[i].cuda_tag();
  std::string why =
      driver_cuda ? fmt::format(", the newest your driver's CUDA {} runs", driver_cuda->text()) : "";
  return fmt::format(
      "torch {}'s CUDA builds are {}: pip install --force-reinstall torch=={} --index-url "
      "https://download.pytorch.org/whl/{}{} (torchvision and torchaudio from the same index; with conda, remove "
      "cpuonly and install pytorch-cuda)",
      row->value("release", ""), tags, torch.text(), pick->cuda_tag(), why);
}

}  // namespace cudiag::rules

namespace cudiag::rules {

std::optional<std::string> torch_wheel_for_driver(const kb::KnowledgeBase& kb, const Version& driver_cuda) {
  std::optional<Version> best_release;
  std::optional<Version> best_cuda;
  for (const auto& row : kb.raw("framework_matrix")["entries"]) {
    if (row.value("framework", "") != "torch") continue;
    auto release = Version::parse(row.value("release", ""));
    if (!release) continue;
    std::optional<Version> fits;
    for (const auto& v : kb::framework_cuda_variants(row)) {
      bool runs = v <= driver_cuda || (v.major() == driver_cuda.major() && v.major() >= 11);
      if (runs && (!fits || *fits < v)) fits = v;
    }
    if (fits && (!best_release || *best_release < *release)) best_release = release, best_cuda = fits;
  }
  if (!best_release) return std::nullopt;
  return fmt::format(
      "torch {} for CUDA {}: pip install torch=={}.* --index-url https://download.pytorch.org/whl/{} "
      "(torchvision and torchaudio from the same index)",
      best_release->text(), best_cuda->text(), best_release->text(), best_cuda->cuda_tag());
}

}  // namespace cudiag::rules
