#include "probes/frameworks/framework_loader.h"

#include <algorithm>
#include <array>
#include <utility>

#include "inspect/elf.h"
#include "inspect/mapped_file.h"

namespace cudiag::probes {

namespace {

// glibc's built-in search path on Debian's x86_64 multiarch layout (as in library_search.cpp).
constexpr std::array<const char*, 6> kDefaultDirs = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"};

// Soname prefixes of CUDA's user-space libraries, longest first where one
// prefix starts another (libcublasLt before libcublas, libcusparseLt before libcusparse).
constexpr std::array<std::pair<const char*, const char*>, 19> kCudaLibraries = {{
    {"libcudart.so", "cudart"},
    {"libcublasLt.so", "cublas"},
    {"libcublas.so", "cublas"},
    {"libcudnn", "cudnn"},
    {"libnccl.so", "nccl"},
    {"libnvrtc.so", "nvrtc"},
    {"libnvrtc-builtins.so", "nvrtc"},
    {"libnvJitLink.so", "nvjitlink"},
    {"libcusparseLt.so", "cusparselt"},
    {"libcusparse.so", "cusparse"},
    {"libcusolver.so", "cusolver"},
    {"libcufft.so", "cufft"},
    {"libcurand.so", "curand"},
    {"libcupti.so", "cupti"},
    {"libnvToolsExt.so", "nvtx"},
    {"libcufile.so", "cufile"},
    {"libnvshmem_host.so", "nvshmem"},
    {"libcutensor.so", "cutensor"},
    {"libnvinfer.so", "tensorrt"},
}};

std::string expand_origin(const std::string& dir, const std::string& origin) {
  std::string out = dir;
  for (const char* token : {"${ORIGIN}", "$ORIGIN"}) {
    std::string t = token;
    for (auto pos = out.find(t); pos != std::string::npos; pos = out.find(t))
      out.replace(pos, t.size(), origin);
  }
  return out;
}

}  // namespace

std::string cuda_library_of(const std::string& soname) {
  for (const auto& [prefix, name] : kCudaLibraries) {
    if (soname.starts_with(prefix)) return name;
  }
  return "";
}

DynamicObject read_dynamic_object(const FsRoot& root, const std::string& path) {
  DynamicObject obj;
  obj.path = path;
  auto real = root.resolve(path);
  if (!real) {
    obj.error = path + ": " + real.error;
    return obj;
  }
  try {
    // Mapped, never loaded: only the ELF and dynamic headers are touched.
    inspect::MappedFile file(root.host_path(*real.path));
    if (!inspect::looks_like_elf(file.view())) {
      obj.error = path + ": not an ELF file";
      return obj;
    }
    auto elf = inspect::parse_elf(file.view());
    auto dyn = inspect::read_dynamic(elf, file.view());
    obj.soname = dyn.soname;
    obj.needed = std::move(dyn.needed);
    obj.rpath = std::move(dyn.rpath);
    obj.runpath = std::move(dyn.runpath);
  } catch (const std::exception& e) {
    obj.error = e.what();
  }
  return obj;
}

LoaderEmulation::LoaderEmulation(const FsRoot& root, const machine::LibrarySearch& search,
                                 std::vector<std::string> ld_library_path)
    : root_(root), search_(search), ld_library_path_(std::move(ld_library_path)) {}

void LoaderEmulation::load(const DynamicObject& object, int depth) {
  if (!object.soname.empty() &&
      std::find(loaded_sonames_.begin(), loaded_sonames_.end(), object.soname) == loaded_sonames_.end())
    loaded_sonames_.push_back(object.soname);
  objects_.push_back(object);
  std::vector<const DynamicObject*> chain{&objects_.back()};
  resolve_needed(objects_.back(), chain, depth);
}

void LoaderEmulation::dlopen_from(const DynamicObject& caller, const std::string& soname, int depth) {
  objects_.push_back(caller);
  std::vector<const DynamicObject*> chain{&objects_.back()};
  resolve_one(objects_.back(), chain, soname, "dlopen", depth);
}

void LoaderEmulation::resolve_needed(const DynamicObject& object, std::vector<const DynamicObject*>& chain,
                                     int depth) {
  for (const auto& soname : object.needed) {
    if (cuda_library_of(soname).empty()) continue;
    resolve_one(object, chain, soname, "DT_NEEDED", depth);
  }
}

std::string LoaderEmulation::search_dirs(const std::vector<std::string>& dirs, const DynamicObject& owner,
                                         const std::string& soname, bool listed) const {
  for (const auto& d : dirs) {
    auto dir = expand_origin(d, dir_name(owner.path));
    if (dir.empty()) continue;
    dir = normalize_path(dir);
    if (listed) {
      // One listing per directory instead of a failed lookup per soname: a
      // torch RPATH names 15 small wheel directories, each asked for a dozen sonames.
      auto it = listings_.find(dir);
      if (it == listings_.end()) it = listings_.emplace(dir, root_.list_dir(dir)).first;
      if (!std::binary_search(it->second.begin(), it->second.end(), soname)) continue;
    }
    auto path = join_path(dir, soname);
    if (root_.is_regular_file(path)) return path;
  }
  return "";
}

void LoaderEmulation::resolve_one(const DynamicObject& requester,
                                  const std::vector<const DynamicObject*>& chain, const std::string& soname,
                                  const std::string& how, int depth) {
  if (std::find(loaded_sonames_.begin(), loaded_sonames_.end(), soname) != loaded_sonames_.end()) return;
  loaded_sonames_.push_back(soname);
  ResolvedLibrary r;
  r.soname = soname;
  r.library = cuda_library_of(soname);
  r.needed_by = requester.path;
  r.how = how;
  auto found = [&](std::string path, std::string via) {
    r.path = std::move(path);
    r.via = std::move(via);
  };
  if (requester.runpath.empty()) {
    // DT_RPATH of the requester, then of each object that loaded it.
    for (auto it = chain.rbegin(); it != chain.rend() && r.path.empty(); ++it) {
      const auto* obj = *it;
      if (!obj->runpath.empty()) continue;
      for (const auto& d : obj->rpath) {
        auto p = search_dirs({d}, *obj, soname, true);
        if (!p.empty()) {
          found(p, "RPATH " + d + (obj == &requester ? "" : " of " + obj->path));
          break;
        }
      }
    }
  }
  if (r.path.empty()) {
    auto p = search_dirs(ld_library_path_, requester, soname, false);
    if (!p.empty()) found(p, "LD_LIBRARY_PATH");
  }
  if (r.path.empty()) {
    for (const auto& d : requester.runpath) {
      auto p = search_dirs({d}, requester, soname, true);
      if (!p.empty()) {
        found(p, "RUNPATH " + d);
        break;
      }
    }
  }
  if (r.path.empty()) {
    for (const auto& e : search_.ld_cache().entries) {
      if (e.x86_64() && e.soname == soname && root_.is_regular_file(e.path)) {
        found(e.path, "ld.so.cache");
        break;
      }
    }
  }
  if (r.path.empty()) {
    std::vector<std::string> defaults(kDefaultDirs.begin(), kDefaultDirs.end());
    auto p = search_dirs(defaults, requester, soname, false);
    if (!p.empty()) found(p, "default path");
  }
  if (!r.path.empty()) {
    auto real = root_.resolve(r.path);
    r.real_path = real ? *real.path : r.path;
  }
  resolved_.push_back(r);
  if (r.path.empty() || depth <= 1) return;
  objects_.push_back(read_dynamic_object(root_, r.path));
  auto& child = objects_.back();
  auto next = chain;
  next.push_back(&child);
  resolve_needed(child, next, depth - 1);
}

}  // namespace cudiag::probes
