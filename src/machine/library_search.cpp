#include "machine/library_search.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace cudiag::machine {

namespace {

// glibc's built-in search path on Debian's x86_64 multiarch layout.
constexpr const char* kDefaultDirs[] = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"};

bool is_stub_dir(const std::string& path) { return path.ends_with("/stubs"); }

}  // namespace

std::string version_from_file_name(const std::string& file_name, const std::string& prefix) {
  if (!file_name.starts_with(prefix)) return "";
  std::string rest = file_name.substr(prefix.size());
  if (rest.empty() || rest.front() != '.') return "";
  rest.erase(0, 1);
  // Accept only dotted digits: libcudnn.so.9.1.0, not libcudnn.so.9.backup.
  if (rest.empty() ||
      !std::all_of(rest.begin(), rest.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }))
    return "";
  return rest;
}

LibrarySearch::LibrarySearch(const FsRoot& root, const Environment& env) : root_(root), env_(env) {
  auto cache_bytes = root_.read_file("/etc/ld.so.cache", 64u << 20);
  if (cache_bytes) {
    cache_ = parse_ld_cache(*cache_bytes.data);
    cache_error_ = cache_.error;
  } else {
    cache_error_ = cache_bytes.error;
  }
  ld_library_path_ = env_.list("LD_LIBRARY_PATH");
}

// The directories are worked out on first use: loader_pick() needs only the
// cache and LD_LIBRARY_PATH, and the report starts its libcuda child from it
// before anything lists a directory.
void LibrarySearch::ensure_dirs() const {
  if (!dirs_found_) const_cast<LibrarySearch*>(this)->find_dirs();
}

void LibrarySearch::find_dirs() {
  dirs_found_ = true;
  for (const auto& dir : ld_library_path_) add_dir(normalize_path(dir), "LD_LIBRARY_PATH");
  std::set<std::string> cache_dirs;
  for (const auto& e : cache_.entries) {
    if (e.x86_64()) cache_dirs.insert(dir_name(e.path));
  }
  for (const auto& d : cache_dirs) add_dir(d, "ld.so.cache");
  for (const char* d : kDefaultDirs) add_dir(d, "default loader path");
  // Debian's NVIDIA packages put the real driver libraries here, behind alternatives.
  add_dir("/usr/lib/x86_64-linux-gnu/nvidia/current", "Debian nvidia alternatives");
  // WSL2 maps the Windows driver's libcuda here (listed in ld.so.conf.d by WSL).
  add_dir("/usr/lib/wsl/lib", "WSL driver libraries");
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (auto v = env_.get(var); v && !v->empty()) add_toolkit(normalize_path(*v), var);
  }
  add_toolkit("/usr/local/cuda", "toolkit /usr/local/cuda");
  for (const auto& name : root_.list_dir("/usr/local")) {
    if (name.starts_with("cuda-")) add_toolkit("/usr/local/" + name, "toolkit /usr/local/" + name);
  }
  add_toolkit("/opt/cuda", "toolkit /opt/cuda");
  find_site_packages();
  for (const auto& sp : site_packages_) {
    auto nvidia = join_path(sp.path, "nvidia");
    for (const auto& pkg : root_.list_dir(nvidia)) {
      add_dir(join_path(nvidia, pkg + "/lib"), "wheel nvidia/" + pkg + " in " + sp.path);
    }
    add_dir(join_path(sp.path, "tensorrt_libs"), "wheel tensorrt_libs in " + sp.path);
  }
  std::vector<std::pair<std::string, std::string>> conda;
  if (auto p = env_.get("CONDA_PREFIX"); p && !p->empty()) conda.emplace_back(*p, "CONDA_PREFIX");
  for (const char* base : {"/opt/conda", "/root/miniconda3", "/root/anaconda3", "/root/miniforge3"}) {
    if (root_.is_dir(std::string(base) + "/envs")) {
      for (const auto& e : root_.list_dir(std::string(base) + "/envs")) {
        conda.emplace_back(std::string(base) + "/envs/" + e, "conda env " + e);
      }
    }
    if (root_.is_dir(std::string(base) + "/lib")) conda.emplace_back(base, std::string("conda base ") + base);
  }
  for (const auto& [prefix, via] : conda) add_dir(join_path(prefix, "lib"), via);
}

void LibrarySearch::add_dir(const std::string& path, const std::string& via) {
  std::string key = path + '\0' + via;
  if (dir_keys_.contains(key) || !root_.is_dir(path)) return;
  dir_keys_.insert(std::move(key));
  dirs_.push_back({path, via});
}

void LibrarySearch::add_toolkit(const std::string& root, const std::string& via) {
  if (!root_.is_dir(root)) return;
  if (std::find(toolkit_roots_.begin(), toolkit_roots_.end(), root) == toolkit_roots_.end()) {
    toolkit_roots_.push_back(root);
  }
  for (const char* sub : {"lib64", "lib", "targets/x86_64-linux/lib", "compat", "extras/CUPTI/lib64"}) {
    add_dir(join_path(root, sub), via);
  }
}

void LibrarySearch::find_site_packages() {
  std::vector<std::pair<std::string, std::string>> prefixes;  // interpreter prefix, via
  for (const auto& dir : env_.list("PATH")) {
    for (const char* exe : {"python3", "python"}) {
      auto path = join_path(dir, exe);
      if (!root_.is_regular_file(path)) continue;
      auto real = root_.resolve(path);
      if (!real) continue;
      // <prefix>/bin/python3.11 -> <prefix>
      prefixes.emplace_back(dir_name(dir_name(*real.path)), std::string("python on PATH (") + path + ")");
    }
  }
  if (auto v = env_.get("VIRTUAL_ENV"); v && !v->empty()) prefixes.emplace_back(*v, "VIRTUAL_ENV");
  if (auto v = env_.get("CONDA_PREFIX"); v && !v->empty()) prefixes.emplace_back(*v, "CONDA_PREFIX");
  prefixes.emplace_back("/usr", "system python");
  prefixes.emplace_back("/usr/local", "system python");
  auto add = [&](const std::string& path, const std::string& via) {
    if (!root_.is_dir(path)) return;
    auto real = root_.resolve(path);
    std::string key = real ? *real.path : path;
    for (const auto& sp : site_packages_) {
      if (sp.path == key) return;
    }
    site_packages_.push_back({key, via});
  };
  for (const auto& [prefix, via] : prefixes) {
    for (const char* lib : {"lib", "lib64"}) {
      auto libdir = join_path(prefix, lib);
      for (const auto& name : root_.list_dir(libdir)) {
        if (!name.starts_with("python3")) continue;
        add(join_path(libdir, name + "/site-packages"), via);
        add(join_path(libdir, name + "/dist-packages"), via);
      }
    }
    add(join_path(prefix, "lib/python3/dist-packages"), via);
  }
}

std::vector<LibraryInstance> LibrarySearch::find_all(const std::string& prefix) const {
  ensure_dirs();
  std::vector<LibraryInstance> found;
  std::unordered_map<std::string, std::size_t> found_at;  // real_path -> index: linear in files found
  auto record = [&](const std::string& path, const std::string& via) {
    LibraryInstance inst;
    inst.path = path;
    auto real = root_.resolve(path);
    if (real) {
      inst.real_path = *real.path;
    } else {
      // The file itself does not resolve (a symlink loop), but its directory
      // may be reached by two names (/lib -> usr/lib): name it by the real
      // directory so both finds are one instance.
      auto dir = root_.resolve(dir_name(path));
      inst.real_path = dir ? join_path(*dir.path, base_name(path)) : path;
      inst.error = real.error;
    }
    if (auto it = found_at.find(inst.real_path); it != found_at.end()) {
      auto& existing = found[it->second];
      if (std::find(existing.found_via.begin(), existing.found_via.end(), via) == existing.found_via.end())
        existing.found_via.push_back(via);
      return;
    }
    if (inst.error.empty() && !root_.is_regular_file(inst.real_path)) return;  // dangling link
    inst.found_via.push_back(via);
    inst.file_version = version_from_file_name(base_name(inst.real_path), prefix);
    if (inst.file_version.empty()) inst.file_version = version_from_file_name(base_name(inst.path), prefix);
    inst.is_stub = is_stub_dir(dir_name(path));
    found_at.emplace(inst.real_path, found.size());
    found.push_back(std::move(inst));
  };
  auto matches = [&](const std::string& name) {
    // "libcudart.so.13" yes; "libcudart.so" (the unversioned dev link) only
    // counts when nothing versioned exists beside it; "libcudart_static.a" no.
    return name.starts_with(prefix) && (name.size() == prefix.size() || name[prefix.size()] == '.');
  };
  // Loader order first: LD_LIBRARY_PATH, then the cache, then directories.
  for (const auto& d : dirs_) {
    if (d.via != "LD_LIBRARY_PATH") continue;
    for (const auto& name : listing(d.path)) {
      if (matches(name)) record(join_path(d.path, name), d.via);
    }
  }
  for (const auto& e : cache_.entries) {
    if (e.x86_64() && matches(e.soname)) record(e.path, "ld.so.cache");
  }
  for (const auto& d : dirs_) {
    if (d.via == "LD_LIBRARY_PATH" || d.via == "ld.so.cache") continue;
    for (const auto& name : listing(d.path)) {
      if (matches(name)) record(join_path(d.path, name), d.via);
    }
  }
  return found;
}

const std::vector<std::string>& LibrarySearch::listing(const std::string& dir) const {
  auto it = listings_.find(dir);
  if (it == listings_.end()) it = listings_.emplace(dir, root_.list_dir(dir)).first;
  return it->second;
}

std::optional<std::string> LibrarySearch::loader_pick(const std::string& soname) const {
  for (const auto& dir : ld_library_path_) {
    auto path = join_path(normalize_path(dir), soname);
    if (root_.is_regular_file(path)) return path;
  }
  for (const auto& e : cache_.entries) {
    if (e.x86_64() && e.soname == soname && root_.is_regular_file(e.path)) return e.path;
  }
  for (const char* d : kDefaultDirs) {
    auto path = join_path(d, soname);
    if (root_.is_regular_file(path)) return path;
  }
  return std::nullopt;
}

}  // namespace cudiag::machine
