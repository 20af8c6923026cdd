#include "rules/require_candidates.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace cudiag::rules::detail {

namespace {

std::vector<long> numbers(const std::string& v) {
  std::vector<long> out;
  std::string cur;
  for (char c : v) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (cur.size() < 9) cur += c;
    } else if (c == '.') {
      if (!cur.empty()) out.push_back(std::stol(cur));
      cur.clear();
    } else {
      return {};
    }
  }
  if (!cur.empty()) out.push_back(std::stol(cur));
  return out;
}

std::string join(const std::vector<long>& parts) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? "." : "") + std::to_string(parts[i]);
  return s;
}

}  // namespace

std::map<std::string, std::vector<std::string>> mentioned_values(
    const std::vector<std::string>& requirements) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& r : requirements) {
    std::string factor;
    auto flush = [&] {
      auto n = factor.find_first_of("<>=!");
      if (n != std::string::npos && n > 0) {
        auto v = factor.find_first_not_of("<>=!", n);
        std::string name = factor.substr(0, n);
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (v != std::string::npos) out[name].push_back(factor.substr(v));
      }
      factor.clear();
    };
    for (char c : r) {
      if (c == ' ' || c == ',') {
        flush();
      } else {
        factor += c;
      }
    }
    flush();
  }
  return out;
}

std::vector<std::string> major_minor_candidates(const std::vector<std::string>& mentioned) {
  std::set<std::pair<long, long>> points = {{0, 0}, {999, 0}};
  for (const auto& m : mentioned) {
    auto n = numbers(m);
    if (n.empty()) continue;
    long major = n[0];
    long minor = n.size() > 1 ? n[1] : 0;
    for (long d = -1; d <= 1; ++d) {
      if (minor + d >= 0) points.insert({major, minor + d});
    }
    if (major > 0) points.insert({major - 1, 99});
    points.insert({major + 1, 0});
  }
  std::vector<std::string> out;
  for (const auto& [a, b] : points) out.push_back(std::to_string(a) + "." + std::to_string(b));
  return out;
}

std::vector<std::string> driver_candidates(const std::vector<std::string>& mentioned) {
  std::set<std::string> out = {"0.0.0", "99999.0.0"};
  for (const auto& m : mentioned) {
    auto n = numbers(m);
    if (n.empty()) continue;
    out.insert(join(n));
    auto above = n;
    above.push_back(1);  // just above: 535.104.05 < 535.104.05.1
    out.insert(join(above));
    auto below = n;
    auto k = below.size();
    while (k > 0 && below[k - 1] == 0) --k;
    if (k > 0) {
      below.resize(k);
      below[k - 1] -= 1;
      below.push_back(99999999);  // just below: 469.99999999 < 470
      out.insert(join(below));
    }
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> brand_candidates(const std::vector<std::string>& mentioned) {
  std::set<std::string> out = {kOtherBrand};
  for (auto m : mentioned) {
    for (auto& c : m) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.insert(m);
  }
  return {out.begin(), out.end()};
}

std::vector<std::optional<std::string>> choices(const std::optional<std::string>& known,
                                                const std::vector<std::string>& candidates) {
  if (known) return {known};
  return {candidates.begin(), candidates.end()};
}

}  // namespace cudiag::rules::detail
