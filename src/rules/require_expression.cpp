// libnvidia-container's requirement language, ported line by line from
// src/cli/dsl.c (dsl_compare_version, dsl_compare_string, evaluate_rule,
// dsl_evaluate) and src/cli/configure.c (the check_* rules and the per-GPU
// loop of configure_command), so that odd inputs get the runtime's answer.
#include "rules/require_expression.h"

#include <cinttypes>
#include <cstdlib>
#include <cstring>

#include "rules/require_candidates.h"

namespace cudiag::rules {

namespace {

enum Cmp { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };
struct Operator {
  const char* str;
  Cmp cmp;
};
// dsl.c's table, in its order: the first whose prefix matches the operator run wins.
constexpr Operator kOperators[] = {{"=", kEqual},      {"!=", kNotEqual}, {"<", kLess},
                                   {"<=", kLessEqual}, {">", kGreater},   {">=", kGreaterEqual}};

bool case_equal(const std::string& a, const char* b) { return strcasecmp(a.c_str(), b) == 0; }

// -1: invalid; else 0/1.
int compare_version(const char* v1, Cmp cmp, const char* v2) {
  if (std::strspn(v1, "0123456789.") != std::strlen(v1)) return -1;
  if (std::strspn(v2, "0123456789.") != std::strlen(v2)) return -1;
  char* p1 = nullptr;
  char* p2 = nullptr;
  while (*v1 != '\0' && *v2 != '\0') {
    uintmax_t n1 = std::strtoumax(v1, &p1, 10);
    if (n1 == UINTMAX_MAX || v1 == p1) return -1;
    uintmax_t n2 = std::strtoumax(v2, &p2, 10);
    if (n2 == UINTMAX_MAX || v2 == p2) return -1;
    if (n1 != n2) {
      if (cmp == kEqual) return 0;
      if (cmp == kNotEqual) return 1;
      if (cmp == kLess || cmp == kLessEqual) return n1 < n2;
      return n1 > n2;
    }
    v1 = p1 + std::strspn(p1, ".");
    v2 = p2 + std::strspn(p2, ".");
  }
  v1 += std::strspn(v1, ".0");
  v2 += std::strspn(v2, ".0");
  if (cmp == kNotEqual) return *v1 != '\0' || *v2 != '\0';
  if (cmp == kEqual || cmp == kLessEqual || cmp == kGreaterEqual) {
    if (*v1 == '\0' && *v2 == '\0') return 1;
    if (cmp == kEqual) return 0;
  }
  if (cmp == kLess || cmp == kLessEqual) return *v1 == '\0' && *v2 != '\0';
  return *v1 != '\0' && *v2 == '\0';
}

int compare_string(const std::string& s1, Cmp cmp, const std::string& s2) {
  if (cmp == kEqual) return strcasecmp(s1.c_str(), s2.c_str()) == 0;
  if (cmp == kNotEqual) return strcasecmp(s1.c_str(), s2.c_str()) != 0;
  return -1;
}

// One concrete assignment of what the runtime reads; nullopt is its NULL.
struct Values {
  std::optional<std::string> cuda, driver;
  bool device = false;
  std::optional<std::string> arch, brand;
};

constexpr std::size_t kExprMax = 128;  // dsl.c EXPR_MAX

int evaluate_rule(const std::string& expr, const Values& v) {
  std::size_t n = std::strcspn(expr.c_str(), "<>=!");
  if (n == 0) return -1;
  const char* ptr = expr.c_str() + n;
  std::size_t run = std::strspn(ptr, "<>=!");
  if (run == 0) return -1;
  const Operator* op = nullptr;
  for (const auto& o : kOperators) {
    if (std::strncmp(ptr, o.str, run) == 0) {
      op = &o;
      break;
    }
  }
  if (op == nullptr || ptr[run] == '\0') return -1;
  std::string name = expr.substr(0, n);
  std::string val = ptr + run;
  int ret = -1;
  if (case_equal(name, "cuda")) {
    ret = v.cuda ? compare_version(v.cuda->c_str(), op->cmp, val.c_str()) : 1;
  } else if (case_equal(name, "driver")) {
    ret = v.driver ? compare_version(v.driver->c_str(), op->cmp, val.c_str()) : 1;
  } else if (case_equal(name, "arch")) {
    ret = !v.device ? 1 : v.arch ? compare_version(v.arch->c_str(), op->cmp, val.c_str()) : -1;
  } else if (case_equal(name, "brand")) {
    ret = !v.device || !v.brand ? 1 : compare_string(*v.brand, op->cmp, val);
  } else {
    return -1;
  }
  // The failed factor is formatted "%s %s %s" into EXPR_MAX bytes; too long is an error.
  if (ret == 0 && name.size() + 1 + std::strlen(op->str) + 1 + val.size() >= kExprMax) return -1;
  return ret;
}

struct One {
  RequireOutcome outcome = RequireOutcome::kSatisfied;
  std::string message;
};

One dsl_evaluate(const std::string& predicate, const Values& v) {
  int ret = 1;
  for (const auto& alternative : split_fields(predicate, ' ')) {
    if (alternative.empty()) continue;
    bool completed = true;
    for (const auto& factor : split_fields(alternative, ',')) {
      if (factor.empty()) continue;
      ret = evaluate_rule(factor, v);
      if (ret < 0) return {RequireOutcome::kInvalid, "requirement error: invalid expression"};
      if (ret == 0) {
        completed = false;
        break;
      }
    }
    if (completed) break;
  }
  if (ret) return {};
  std::string first = predicate.substr(0, predicate.find(' '));
  std::string msg = "requirement error: unsatisfied condition: " + first;
  if (first.starts_with("cuda>="))
    msg += ", please update your driver to a newer version, or use an earlier cuda container";
  return {RequireOutcome::kUnsatisfied, msg};
}

struct Verdict {
  One one;
  std::string failed;
};

Verdict configure(const std::vector<std::string>& reqs, const Values& base, const std::vector<Values>& gpus) {
  if (reqs.size() > 32) return {{RequireOutcome::kInvalid, "input error: too many requirements"}, ""};
  auto run = [&](const Values& v) -> std::optional<Verdict> {
    for (const auto& r : reqs) {
      auto one = dsl_evaluate(r, v);
      if (one.outcome != RequireOutcome::kSatisfied) return Verdict{one, r};
    }
    return std::nullopt;
  };
  for (const auto& g : gpus) {
    if (auto bad = run(g)) return *bad;
  }
  if (gpus.empty()) {
    if (auto bad = run(base)) return *bad;
  }
  return {};
}

}  // namespace

std::vector<std::string> split_fields(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    auto end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

const char* outcome_name(RequireOutcome o) {
  switch (o) {
    case RequireOutcome::kSatisfied:
      return "satisfied";
    case RequireOutcome::kUnsatisfied:
      return "unsatisfied";
    case RequireOutcome::kInvalid:
      return "invalid";
  }
  return "?";
}

RequireResult evaluate_libnvc(const std::vector<std::string>& requirements, const RequireHost& host,
                              const std::vector<RequireGpu>& gpus) {
  using namespace detail;
  auto mentioned = mentioned_values(requirements);
  auto cudas = choices(host.cuda, major_minor_candidates(mentioned["cuda"]));
  auto drivers = choices(host.driver, driver_candidates(mentioned["driver"]));
  auto arch_cands = major_minor_candidates(mentioned["arch"]);
  auto brand_cands = brand_candidates(mentioned["brand"]);

  RequireResult result;
  if (host.cuda == std::nullopt && mentioned.contains("cuda")) result.unknowns.push_back("cuda");
  if (host.driver == std::nullopt && mentioned.contains("driver")) result.unknowns.push_back("driver");
  // Per GPU: each unknown arch or brand multiplies the assignments.
  std::vector<std::vector<Values>> per_gpu;
  std::size_t combos = cudas.size() * drivers.size();
  for (const auto& g : gpus) {
    std::vector<Values> options;
    auto archs = choices(g.arch, arch_cands);
    std::vector<std::optional<std::string>> brands;
    if (g.brands) {
      brands.assign(g.brands->begin(), g.brands->end());
    } else {
      brands.assign(brand_cands.begin(), brand_cands.end());
    }
    if (!g.arch && mentioned.contains("arch")) result.unknowns.push_back("arch");
    if ((!g.brands || g.brands->size() > 1) && mentioned.contains("brand"))
      result.unknowns.push_back("brand");
    for (const auto& a : archs)
      for (const auto& b : brands) options.push_back(Values{std::nullopt, std::nullopt, true, a, b});
    combos *= options.size();
    per_gpu.push_back(std::move(options));
  }
  if (combos > 200000) {  // too many unknowns to enumerate: nothing can be said
    result.possible = {RequireOutcome::kSatisfied, RequireOutcome::kUnsatisfied, RequireOutcome::kInvalid};
    return result;
  }
  std::optional<Verdict> first;
  std::vector<std::size_t> index(per_gpu.size(), 0);
  for (const auto& c : cudas) {
    for (const auto& d : drivers) {
      std::fill(index.begin(), index.end(), 0);
      for (;;) {
        Values base{c, d, false, std::nullopt, std::nullopt};
        std::vector<Values> selected;
        for (std::size_t i = 0; i < per_gpu.size(); ++i) {
          Values v = per_gpu[i][index[i]];
          v.cuda = c;
          v.driver = d;
          selected.push_back(v);
        }
        auto verdict = configure(requirements, base, selected);
        result.possible.insert(verdict.one.outcome);
        if (!first) first = verdict;
        std::size_t k = 0;
        while (k < index.size() && ++index[k] == per_gpu[k].size()) index[k++] = 0;
        if (k == index.size()) break;
      }
    }
  }
  if (result.decided() && first) {
    result.message = first->one.message;
    result.failed_requirement = first->failed;
  }
  return result;
}

}  // namespace cudiag::rules
