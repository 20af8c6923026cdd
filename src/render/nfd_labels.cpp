#include "render/nfd_labels.h"

#include <cctype>

namespace cudiag::render {

namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool label_char(char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; }

bool is_label_name(std::string_view s) {
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!label_char(c)) return false;
  }
  return true;
}

// RFC 1123 subdomain: dot-separated lower-case labels of [a-z0-9-], alphanumeric at both ends.
bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    auto dot = s.find('.', start);
    auto part = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || part.size() > 63 || part.front() == '-' || part.back() == '-') return false;
    for (char c : part) {
      if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
            c == '-'))
        return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

bool is_nfd_feature_name(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos || key.find('/', slash + 1) != std::string_view::npos) return false;
  auto prefix = key.substr(0, slash);
  if (!is_dns_subdomain(prefix)) return false;
  if (prefix == "kubernetes.io" || prefix.ends_with(".kubernetes.io")) return false;
  return is_label_name(key.substr(slash + 1));
}

bool is_nfd_label_value(std::string_view value) { return value.empty() || is_label_name(value); }

std::optional<std::string> nfd_label_value(std::string_view raw) {
  std::string s;
  for (char c : raw) s.push_back(label_char(c) ? c : '-');
  auto trim = [](std::string& t) {
    while (!t.empty() && !alnum(t.front())) t.erase(t.begin());
    while (!t.empty() && !alnum(t.back())) t.pop_back();
  };
  trim(s);
  if (s.size() > 63) s.resize(63);
  trim(s);
  if (s.empty()) return std::nullopt;
  return s;
}

}  // namespace cudiag::render
