#include "machine/environment.h"

namespace cudiag::machine {

Environment Environment::read(const FsRoot& root) {
  Environment env;
  auto data = root.read_file("/proc/self/environ");
  if (!data) {
    env.error_ = data.error;
    return env;
  }
  std::string_view rest = *data.data;
  while (!rest.empty()) {
    auto end = rest.find('\0');
    auto entry = rest.substr(0, end);
    auto eq = entry.find('=');
    if (eq != std::string_view::npos && eq > 0) {
      env.vars_.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return env;
}

Environment Environment::from_map(std::map<std::string, std::string> vars) {
  Environment env;
  for (auto& [k, v] : vars) env.vars_.emplace(k, v);
  return env;
}

std::optional<std::string> Environment::get(std::string_view name) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Environment::list(std::string_view name) const {
  std::vector<std::string> out;
  auto value = get(name);
  if (!value) return out;
  std::string_view rest = *value;
  while (true) {
    auto colon = rest.find(':');
    auto item = rest.substr(0, colon);
    if (!item.empty()) out.emplace_back(item);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return out;
}

}  // namespace cudiag::machine
