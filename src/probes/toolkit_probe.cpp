#include "probes/toolkit_probe.h"

#include "core/fact.h"
#include "core/version.h"
#include "inspect/elf.h"
#include "inspect/mapped_file.h"
#include "machine/text_util.h"

namespace cudiag::probes {

namespace {

// nvcc is 30 MB: map it, and look for its banner in .rodata only (2.5 MB)
// when the section table says where that is.
Json nvcc_version_fact(const FsRoot& root, const std::string& path) {
  try {
    inspect::MappedFile file(root.host_path_followed(path));
    auto bytes = file.view();
    std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (inspect::looks_like_elf(bytes)) {
      try {
        auto elf = inspect::parse_elf(bytes);
        if (const auto* ro = elf.find_section(".rodata"); ro && ro->offset + ro->size <= bytes.size()) {
          auto v = find_nvcc_version(text.substr(ro->offset, ro->size));
          if (!v.empty()) return fact(v, file_source(path));
        }
      } catch (const inspect::FormatError&) {
        // A damaged section table: fall back to the whole file.
      }
    }
    auto v = find_nvcc_version(text);
    if (v.empty())
      return unknown_fact(file_source(path), "no \"Cuda compilation tools\" banner in the binary");
    return fact(v, file_source(path));
  } catch (const std::exception& e) {
    return unknown_fact(file_source(path), e.what());
  }
}

Json toolkit_version(const FsRoot& root, const std::string& dir) {
  auto json_path = dir + "/version.json";
  if (auto data = root.read_file(json_path); data) {
    auto j = Json::parse(*data.data, nullptr, false);
    if (!j.is_discarded() && j.contains("cuda") && j["cuda"].is_object() && j["cuda"].contains("version") &&
        j["cuda"]["version"].is_string()) {
      return fact(machine::sanitize(j["cuda"]["version"].get<std::string>()), file_source(json_path));
    }
    return unknown_fact(file_source(json_path), "malformed version.json (no cuda.version)");
  }
  auto txt_path = dir + "/version.txt";
  if (auto data = root.read_file(txt_path); data) {
    auto text = machine::trim(*data.data);
    auto pos = text.rfind(' ');
    auto token = pos == std::string_view::npos ? text : text.substr(pos + 1);
    if (Version::parse(token)) return fact(std::string(token), file_source(txt_path));
    return unknown_fact(file_source(txt_path), "unrecognised version.txt");
  }
  // A toolkit assembled from NVIDIA's pip wheels keeps their dist-info.
  for (const auto& name : root.list_dir(dir + "/dist-info")) {
    const std::string prefix = "nvidia_cuda_runtime-";
    if (name.starts_with(prefix) && name.ends_with(".dist-info")) {
      auto v = name.substr(prefix.size(), name.size() - prefix.size() - 10);
      if (Version::parse(v)) return fact(v, file_source(dir + "/dist-info/" + name));
    }
  }
  return unknown_fact(file_source(json_path), "no version.json, version.txt or runtime dist-info");
}

}  // namespace

std::string find_nvcc_version(std::string_view bytes) {
  constexpr std::string_view kBanner = "Cuda compilation tools, release ";
  auto pos = bytes.find(kBanner);
  if (pos == std::string_view::npos) return "";
  auto rest = bytes.substr(pos + kBanner.size(), 64);
  auto v = rest.find(", V");
  if (v == std::string_view::npos) return "";
  auto tail = rest.substr(v + 3);
  std::size_t n = 0;
  while (n < tail.size() && ((tail[n] >= '0' && tail[n] <= '9') || tail[n] == '.')) ++n;
  auto version = tail.substr(0, n);
  return Version::parse(version) ? std::string(version) : "";
}

Json probe_toolkits(const ProbeContext& ctx) {
  Json out = Json::object();
  Json toolkits = Json::array();
  std::vector<std::string> real_roots;
  for (const auto& dir : ctx.search.toolkit_roots()) {
    auto real = ctx.machine.root.resolve(dir);
    std::string real_dir = real ? *real.path : dir;
    bool seen = false;
    for (auto& t : toolkits) {
      if (t["real_path"] == real_dir) {
        t["also_as"].push_back(dir);
        seen = true;
      }
    }
    if (seen) continue;
    Json t = Json::object();
    t["path"] = dir;
    t["real_path"] = real_dir;
    t["also_as"] = Json::array();
    t["version"] = toolkit_version(ctx.machine.root, real_dir);
    auto nvcc = real_dir + "/bin/nvcc";
    if (ctx.machine.root.is_regular_file(nvcc)) {
      t["nvcc"] = nvcc_version_fact(ctx.machine.root, nvcc);
    } else {
      t["nvcc"] = fact(nullptr, file_source(nvcc));
    }
    toolkits.push_back(t);
  }
  out["toolkits"] = toolkits;
  // nvcc the shell would run, and which toolkit it belongs to.
  Json on_path = fact(nullptr, "env:PATH");
  for (const auto& dir : ctx.machine.env.list("PATH")) {
    auto path = join_path(dir, "nvcc");
    if (!ctx.machine.root.is_regular_file(path)) continue;
    auto real = ctx.machine.root.resolve(path);
    Json n = Json::object();
    n["path"] = path;
    n["real_path"] = real ? *real.path : path;
    n["version"] = nvcc_version_fact(ctx.machine.root, n["real_path"].get<std::string>());
    n["toolkit"] = dir_name(dir_name(n["real_path"].get<std::string>()));
    on_path = fact(n, "env:PATH");
    break;
  }
  out["nvcc_on_path"] = on_path;
  return out;
}

}  // namespace cudiag::probes
