// The toolkit's Go evaluator (nvidia-container-toolkit internal/requirements/
// at d34b3046: constraints/factory.go, logical.go, binary.go, property.go),
// which only CSV mode (Tegra) runs. Ported for its differences from
// libnvidia-container: eager parsing, case-sensitive names, unknown names
// skipped, semver values, `driver` never set and `brand` always "".
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <regex>

#include "rules/require_candidates.h"
#include "rules/require_expression.h"

namespace cudiag::rules {

namespace {

struct Semver {
  std::vector<unsigned long long> nums;  // major, minor, patch
  std::vector<std::string> pre;
};

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Masterminds/semver v3 NewVersion: the loose regular expression, 64-bit
// parts, and numeric pre-release identifiers without leading zeros.
std::optional<Semver> parse_semver(const std::string& s) {
  static const std::regex re(
      R"(^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$)");
  if (s.size() > 256) return std::nullopt;
  std::smatch m;
  if (!std::regex_match(s, m, re)) return std::nullopt;
  Semver v;
  for (int g : {1, 2, 3}) {
    std::string part = m[g].str();
    if (!part.empty() && part[0] == '.') part = part.substr(1);
    if (part.empty()) {
      v.nums.push_back(0);
      continue;
    }
    errno = 0;
    char* end = nullptr;
    unsigned long long n = std::strtoull(part.c_str(), &end, 10);
    if (errno == ERANGE) return std::nullopt;
    v.nums.push_back(n);
  }
  std::string pre = m[5].str();
  if (!pre.empty()) {
    std::size_t start = 0;
    for (;;) {
      auto end = pre.find('.', start);
      std::string id = pre.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (all_digits(id) && id.size() > 1 && id[0] == '0') return std::nullopt;
      v.pre.push_back(id);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  return v;
}

int compare_semver(const Semver& a, const Semver& b) {
  for (int i = 0; i < 3; ++i) {
    if (a.nums[i] != b.nums[i]) return a.nums[i] < b.nums[i] ? -1 : 1;
  }
  if (a.pre.empty() != b.pre.empty()) return a.pre.empty() ? 1 : -1;
  for (std::size_t i = 0; i < std::min(a.pre.size(), b.pre.size()); ++i) {
    const auto& x = a.pre[i];
    const auto& y = b.pre[i];
    bool nx = all_digits(x);
    bool ny = all_digits(y);
    if (nx && ny) {
      auto ux = std::stoull(x);
      auto uy = std::stoull(y);
      if (ux != uy) return ux < uy ? -1 : 1;
    } else if (nx != ny) {
      return nx ? -1 : 1;
    } else if (x != y) {
      return x < y ? -1 : 1;
    }
  }
  if (a.pre.size() != b.pre.size()) return a.pre.size() < b.pre.size() ? -1 : 1;
  return 0;
}

struct Binary {
  std::string property;  // cuda, arch, driver (version) or brand (string)
  std::string op;
  std::string value;
};
using Term = std::vector<Binary>;  // AND of factors
struct Requirement {               // OR of terms
  std::string text;
  std::vector<Term> terms;
};

bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

// factory.parse: nullopt + ok = skipped; false = error.
bool parse_factor(const std::string& condition, std::optional<Binary>& out) {
  out.reset();
  if (blank(condition)) return true;
  auto end = condition.find_first_of("<>=!");
  if (end == std::string::npos) return false;  // "invalid constraint"
  std::string property = condition.substr(0, end);
  if (property != "cuda" && property != "arch" && property != "driver" && property != "brand") return true;
  std::string rest = condition.substr(end);
  std::string op;
  for (const char* o : {"!=", "<=", ">=", "=", "<", ">"}) {
    if (rest.starts_with(o)) {
      op = o;
      break;
    }
  }
  Binary b{property, op, rest.substr(op.size())};
  if (property != "brand" && !parse_semver(b.value)) return false;  // Validate at parse time
  out = b;
  return true;
}

// nullopt: a parse error refuses the whole set.
std::optional<std::vector<Requirement>> build(const std::vector<std::string>& requirements) {
  std::vector<Requirement> out;
  for (const auto& r : requirements) {
    if (blank(r)) continue;
    Requirement req{r, {}};
    auto& terms = req.terms;
    for (const auto& term : split_fields(r, ' ')) {
      Term factors;
      for (const auto& factor : split_fields(term, ',')) {
        std::optional<Binary> b;
        if (!parse_factor(factor, b)) return std::nullopt;
        if (b) factors.push_back(*b);
      }
      if (!factors.empty()) terms.push_back(factors);
    }
    if (!terms.empty()) out.push_back(req);  // OR of nothing is nil: skipped
  }
  return out;
}

bool eval(const Binary& b, const std::string& cuda, const std::string& arch) {
  int cmp = 0;
  if (b.property == "brand") {
    const std::string value;  // never set in CSV mode
    cmp = value < b.value ? -1 : value > b.value ? 1 : 0;
  } else {
    const std::string have = b.property == "cuda" ? cuda : b.property == "arch" ? arch : std::string();
    auto h = parse_semver(have);
    auto w = parse_semver(b.value);
    if (!h || !w) return false;  // an error counts as false
    cmp = compare_semver(*h, *w);
  }
  if (b.op == "=") return cmp == 0;
  if (b.op == "!=") return cmp != 0;
  if (b.op == "<") return cmp < 0;
  if (b.op == "<=") return cmp <= 0;
  if (b.op == ">") return cmp > 0;
  if (b.op == ">=") return cmp >= 0;
  return false;  // "invalid operator"
}

}  // namespace

bool go_semver_valid(const std::string& s) { return parse_semver(s).has_value(); }

RequireResult evaluate_toolkit_go(const std::vector<std::string>& requirements,
                                  const std::optional<std::string>& cuda,
                                  const std::optional<std::string>& arch) {
  RequireResult result;
  auto set = build(requirements);
  if (!set) {
    result.possible = {RequireOutcome::kInvalid};
    result.message = "requirements not met: invalid constraint";
    return result;
  }
  auto mentioned = detail::mentioned_values(requirements);
  if (!cuda && mentioned.contains("cuda")) result.unknowns.push_back("cuda");
  if (!arch && mentioned.contains("arch")) result.unknowns.push_back("arch");
  for (const auto& c : detail::choices(cuda, detail::major_minor_candidates(mentioned["cuda"]))) {
    for (const auto& a : detail::choices(arch, detail::major_minor_candidates(mentioned["arch"]))) {
      bool all = true;
      std::string failed;
      for (std::size_t i = 0; i < set->size() && all; ++i) {
        const auto& terms = (*set)[i].terms;
        bool any = std::any_of(terms.begin(), terms.end(), [&](const Term& t) {
          return std::all_of(t.begin(), t.end(), [&](const Binary& b) { return eval(b, *c, *a); });
        });
        if (!any) {
          all = false;
          failed = (*set)[i].text;
        }
      }
      result.possible.insert(all ? RequireOutcome::kSatisfied : RequireOutcome::kUnsatisfied);
      if (!all && result.failed_requirement.empty()) result.failed_requirement = failed;
    }
  }
  if (result.decided() && result.outcome() == RequireOutcome::kUnsatisfied)
    result.message = "requirements not met: unsatisfied condition";
  return result;
}

}  // namespace cudiag::rules
