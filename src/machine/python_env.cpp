#include "machine/python_env.h"

#include <algorithm>

#include "core/errors.h"
#include "machine/text_util.h"

namespace cudiag::machine {

namespace {

// A conda installation holds a few dozen environments at most; the cap only
// stops a pathological envs/ directory from dominating the report.
constexpr std::size_t kMaxCondaEnvs = 64;

struct Candidate {
  std::string path;
  std::string via;
  bool is_prefix = false;  // a directory named as the environment, not an interpreter
};

// "3.11.7" -> "3.11"
std::string major_minor(std::string_view v) {
  auto first = v.find('.');
  if (first == std::string_view::npos) return "";
  auto second = v.find('.', first + 1);
  return std::string(v.substr(0, second));
}

std::string newest_lib_python(const FsRoot& root, const std::string& prefix) {
  std::string best;
  for (const auto& name : root.list_dir(prefix + "/lib")) {
    auto v = python_version_from_name(name);
    if (v.empty()) continue;
    // Compare as numbers: 3.10 is newer than 3.9.
    auto minor = [](const std::string& s) { return std::stol(s.substr(s.find('.') + 1)); };
    if (best.empty() || minor(v) > minor(best)) best = v;
  }
  return best;
}

class EnvBuilder {
 public:
  EnvBuilder(const FsRoot& root, const Environment& env) : root_(root), env_(env) {}

  void add(const Candidate& c) {
    auto env = derive(c);
    if (!env) return;
    for (auto& e : envs_) {
      if (e.prefix == env->prefix) {
        if (std::find(e.found_via.begin(), e.found_via.end(), c.via) == e.found_via.end())
          e.found_via.push_back(c.via);
        if (e.interpreter.empty()) e.interpreter = env->interpreter;
        return;
      }
    }
    envs_.push_back(std::move(*env));
  }

  std::vector<PythonEnv> take() { return std::move(envs_); }

  // pyenv's shims/python3 is a shell script that runs the version named by
  // PYENV_VERSION or $(pyenv root)/version; "system" means the next python3
  // on PATH. nullopt: not a shim; "": a shim whose target is not known.
  std::optional<std::string> pyenv_target(const std::string& interpreter) const {
    auto shims = dir_name(interpreter);
    if (base_name(shims) != "shims") return std::nullopt;
    auto pyenv_root = dir_name(shims);
    if (!root_.is_dir(pyenv_root + "/versions")) return std::nullopt;
    std::string version;
    if (auto v = env_.get("PYENV_VERSION"); v && !v->empty()) {
      version = *v;
    } else if (auto f = root_.read_file(pyenv_root + "/version", 4096)) {
      auto lines = split_lines(*f.data);
      if (!lines.empty()) version = std::string(trim(lines.front()));
    }
    // Several versions may be named ("3.11.7:3.10.4"); the first is the one python3 runs.
    version = version.substr(0, version.find(':'));
    if (version.empty() || version == "system" || version.find('/') != std::string::npos)
      return std::string();
    auto target = pyenv_root + "/versions/" + version + "/bin/" + base_name(interpreter);
    return root_.is_regular_file(target) ? target : std::string();
  }

 private:
  std::optional<PythonEnv> derive(const Candidate& c) {
    PythonEnv env;
    std::string prefix;
    if (c.is_prefix || root_.is_dir(c.path)) {
      prefix = normalize_path(c.path);
      for (const char* exe : {"/bin/python3", "/bin/python"}) {
        if (root_.is_regular_file(prefix + exe)) {
          env.interpreter = prefix + exe;
          break;
        }
      }
    } else {
      if (!root_.is_regular_file(c.path)) return std::nullopt;
      env.interpreter = normalize_path(c.path);
      if (auto shim = pyenv_target(env.interpreter)) {
        if (shim->empty()) return std::nullopt;
        env.interpreter = *shim;
      }
      // A venv's bin/python is a symlink to the base interpreter; the venv is
      // recognised by the pyvenv.cfg beside bin/, before following the link.
      auto maybe_venv = dir_name(dir_name(env.interpreter));
      if (root_.is_regular_file(maybe_venv + "/pyvenv.cfg")) {
        prefix = maybe_venv;
      } else {
        auto real = root_.resolve(env.interpreter);
        if (!real) return std::nullopt;
        prefix = dir_name(dir_name(*real.path));
        env.python_version = python_version_from_name(base_name(*real.path));
      }
    }
    env.prefix = prefix;
    env.found_via.push_back(c.via);
    if (auto cfg = root_.read_file(prefix + "/pyvenv.cfg", 64 * 1024)) {
      env.kind = "venv";
      auto kv = parse_key_values(*cfg.data);
      if (kv.count("version")) env.python_version = major_minor(kv["version"]);
      if (env.python_version.empty() && kv.count("version_info"))
        env.python_version = major_minor(kv["version_info"]);
      if (env.python_version.empty()) env.python_version = newest_lib_python(root_, prefix);
      add_prefix_site(env, prefix);
      if (kv["include-system-site-packages"] == "true" && kv.count("home")) {
        // home = the base interpreter's bin directory.
        auto base = dir_name(normalize_path(kv["home"]));
        add_user_site(env);
        add_system_site(env, base);
      }
    } else {
      env.kind = root_.is_dir(prefix + "/conda-meta") ? "conda" : "system";
      if (env.python_version.empty()) env.python_version = newest_lib_python(root_, prefix);
      add_user_site(env);
      add_system_site(env, prefix);
    }
    return env;
  }

  void add_dir(PythonEnv& env, const std::string& path) {
    if (!root_.is_dir(path)) return;
    auto real = root_.resolve(path);
    auto key = real ? *real.path : path;
    if (std::find(env.site_packages.begin(), env.site_packages.end(), key) == env.site_packages.end())
      env.site_packages.push_back(key);
  }

  void add_prefix_site(PythonEnv& env, const std::string& prefix) {
    if (!env.python_version.empty()) {
      add_dir(env, prefix + "/lib/python" + env.python_version + "/site-packages");
      add_dir(env, prefix + "/lib64/python" + env.python_version + "/site-packages");
      return;
    }
    for (const auto& name : root_.list_dir(prefix + "/lib")) {
      if (!python_version_from_name(name).empty()) add_dir(env, prefix + "/lib/" + name + "/site-packages");
    }
  }

  // Python puts the user's site-packages before the system one (PEP 370);
  // venvs without system site-packages do not see it.
  void add_user_site(PythonEnv& env) {
    auto home = env_.get("HOME");
    if (!home || home->empty() || env.python_version.empty()) return;
    add_dir(env, normalize_path(*home) + "/.local/lib/python" + env.python_version + "/site-packages");
  }

  void add_system_site(PythonEnv& env, const std::string& prefix) {
    // Debian's interpreter: /usr/local/lib/pythonX.Y/dist-packages (pip as
    // root), /usr/lib/python3/dist-packages (apt), /usr/lib/pythonX.Y/dist-packages.
    if (prefix == "/usr" && root_.is_dir("/usr/lib/python3/dist-packages")) {
      if (!env.python_version.empty())
        add_dir(env, "/usr/local/lib/python" + env.python_version + "/dist-packages");
      add_dir(env, "/usr/lib/python3/dist-packages");
      if (!env.python_version.empty())
        add_dir(env, "/usr/lib/python" + env.python_version + "/dist-packages");
    }
    add_prefix_site(env, prefix);
  }

  const FsRoot& root_;
  const Environment& env_;
  std::vector<PythonEnv> envs_;
};

std::vector<std::string> conda_roots(const FsRoot& root, const Environment& env) {
  std::vector<std::string> roots;
  auto add = [&](const std::string& r) {
    auto n = normalize_path(r);
    if (root.is_dir(n + "/conda-meta") && std::find(roots.begin(), roots.end(), n) == roots.end())
      roots.push_back(n);
  };
  if (auto exe = env.get("CONDA_EXE"); exe && !exe->empty()) add(dir_name(dir_name(*exe)));
  if (auto p = env.get("CONDA_PREFIX"); p && !p->empty()) {
    auto parent = dir_name(normalize_path(*p));
    if (base_name(parent) == "envs") add(dir_name(parent));
  }
  std::vector<std::string> guesses = {"/opt/conda", "/opt/miniconda3", "/opt/miniforge3"};
  if (auto home = env.get("HOME"); home && !home->empty()) {
    for (const char* d : {"miniconda3", "anaconda3", "miniforge3", "mambaforge"})
      guesses.push_back(*home + "/" + d);
  }
  for (const auto& g : guesses) add(g);
  return roots;
}

}  // namespace

std::string python_version_from_name(const std::string& file_name) {
  if (!file_name.starts_with("python3.")) return "";
  auto rest = file_name.substr(8);
  if (rest.empty() || rest.size() > 3 ||
      !std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return "";
  return "3." + rest;
}

std::vector<PythonEnv> find_python_envs(const FsRoot& root, const Environment& env,
                                        const PythonEnvQuery& query) {
  EnvBuilder builder(root, env);
  for (const auto& p : query.pythons) {
    if (!root.exists(p)) throw InputError("--python " + p + ": no such interpreter or environment directory");
    builder.add({p, "--python " + p});
  }
  if (auto v = env.get("VIRTUAL_ENV"); v && !v->empty()) builder.add({*v, "VIRTUAL_ENV", true});
  if (auto v = env.get("CONDA_PREFIX"); v && !v->empty()) builder.add({*v, "CONDA_PREFIX", true});
  for (const auto& dir : env.list("PATH")) {
    auto path = join_path(dir, "python3");
    if (root.is_regular_file(path)) {
      builder.add({path, "python3 on PATH (" + path + ")"});
      break;  // the first one is the one `python3` runs
    }
  }
  for (const char* sys : {"/usr/bin/python3", "/usr/local/bin/python3"})
    builder.add({sys, std::string("system ") + sys});
  for (const auto& r : conda_roots(root, env)) {
    builder.add({r, "conda base " + r, true});
    auto names = root.list_dir(r + "/envs");
    if (names.size() > kMaxCondaEnvs) names.resize(kMaxCondaEnvs);
    for (const auto& e : names) {
      if (root.is_dir(r + "/envs/" + e + "/conda-meta"))
        builder.add({r + "/envs/" + e, "conda env " + e, true});
    }
  }
  return builder.take();
}

}  // namespace cudiag::machine
