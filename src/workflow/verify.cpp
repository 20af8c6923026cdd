#include "workflow/verify.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "rules/finding.h"

namespace cudiag::workflow {

namespace {

// A lock is written through the output writer, which shows a home directory
// as "~" (render/redact.h): "~/venv/lib/libcudart.so.12" pins that path
// under any home directory (/home/<name>, /root, $HOME).
bool same_locked_path(const std::string& locked, const std::string& actual) {
  if (locked == actual) return true;
  if (!locked.starts_with("~/")) return false;
  std::string rest = locked.substr(1);  // "/venv/lib/..."
  if (!actual.ends_with(rest)) return false;
  std::string home = actual.substr(0, actual.size() - rest.size());
  if (home == "/root") return true;
  if (home.starts_with("/home/") && home.find('/', 6) == std::string::npos && home.size() > 6) return true;
  const char* env_home = std::getenv("HOME");
  return env_home != nullptr && home == env_home;
}

// Why an "unconfirmed" value is not drift, for the JSON items and (wrapped) under the text listing.
constexpr const char* kLessPreciseNote =
    "read with fewer version components than the lock pins (a file name's version, as with "
    "--no-library-calls or when the library's own call failed), agreeing on those it has: not drift, "
    "but not confirmed; collect with library calls to confirm";
constexpr const char* kLessPreciseText =
    "Read less precisely: fewer version components than the lock pins (a file name's version, as with\n"
    "--no-library-calls or when the library's own call failed), agreeing on those it has. Not drift,\n"
    "but not confirmed: collect with library calls to confirm.\n";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string joined(const std::vector<std::string>& v) {
  return v.empty() ? "" : fmt::format("{}", fmt::join(v, ", "));
}

std::string expected_text(const LockEntry& e) {
  std::vector<std::string> parts;
  for (const auto& s : e.specs) parts.push_back(s.text());
  for (const auto& t : e.texts) parts.push_back(t);
  if (parts.empty()) return "none";
  return joined(parts);
}

// `less_precise`: an actual value that is the pinned one read with fewer components counts too.
bool value_matches(const LockEntry& e, std::size_t i, const std::string& actual, bool less_precise) {
  if (e.kind == ValueKind::kVersion)
    return e.specs[i].matches(actual) || (less_precise && e.specs[i].matches_less_precisely(actual));
  return lower(e.texts[i]) == lower(actual);
}

// Every actual value satisfies some pinned value and every pinned value is
// satisfied by some actual one: a second cuDNN appearing is drift, and so is one going away.
bool matches(const LockEntry& e, const std::vector<std::string>& actual, bool less_precise) {
  std::size_t n = e.kind == ValueKind::kVersion ? e.specs.size() : e.texts.size();
  auto satisfied = [&](std::size_t i, const std::string& a) { return value_matches(e, i, a, less_precise); };
  for (const auto& a : actual) {
    bool any = false;
    for (std::size_t i = 0; i < n && !any; ++i) any = satisfied(i, a);
    if (!any) return false;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (std::none_of(actual.begin(), actual.end(), [&](const std::string& a) { return satisfied(i, a); }))
      return false;
  }
  return true;
}

std::size_t layer_rank(const std::string& layer) {
  const auto& order = model::layer_order();
  auto it = std::find(order.begin(), order.end(), layer);
  return static_cast<std::size_t>(it - order.begin());
}

}  // namespace

const char* drift_status_name(DriftStatus s) {
  switch (s) {
    case DriftStatus::kOk:
      return "ok";
    case DriftStatus::kUnconfirmed:
      return "unconfirmed";
    case DriftStatus::kDrifted:
      return "drifted";
    case DriftStatus::kMissing:
      return "missing";
    case DriftStatus::kAdded:
      return "added";
  }
  return "?";
}

VerifyResult verify_lock(const LockFile& lock, const Stack& stack, const Json& report) {
  VerifyResult r;
  for (const auto& e : lock.entries) {
    DriftItem item;
    item.layer = layer_of_key(e.key);
    item.key = e.spelled;
    item.expected = expected_text(e);
    const StackValue* v = stack.find(e.key);
    std::vector<std::string> actual = v ? v->values : std::vector<std::string>{};
    item.actual = joined(actual);
    bool pinned_none = e.specs.empty() && e.texts.empty();
    if (matches(e, actual, false)) {
      item.status = DriftStatus::kOk;
    } else if (matches(e, actual, true)) {
      item.status = DriftStatus::kUnconfirmed;
    } else if (actual.empty()) {
      item.status = DriftStatus::kMissing;
    } else {
      item.status = pinned_none ? DriftStatus::kAdded : DriftStatus::kDrifted;
    }
    r.items.push_back(item);
  }
  if (lock.pins_runtimes) {
    std::vector<bool> accounted(stack.runtimes.size(), false);
    for (const auto& lr : lock.runtimes) {
      DriftItem item{"cuda_runtime", "cuda_runtime.instances", lr.spec.text(), "", DriftStatus::kOk, lr.path,
                     false};
      bool found = false;
      // A runtime named by version alone: one of that version first, then one read less precisely.
      for (bool less_precise : {false, true}) {
        for (std::size_t i = 0; i < stack.runtimes.size() && !found; ++i) {
          const auto& rt = stack.runtimes[i];
          if (!lr.path.empty() && !same_locked_path(lr.path, rt.path)) continue;
          if (lr.path.empty() && !lr.spec.matches(rt.version) &&
              !(less_precise && lr.spec.matches_less_precisely(rt.version)))
            continue;
          found = true;
          accounted[i] = true;
          item.actual = rt.version.empty() ? "unknown version" : rt.version;
          item.status = lr.spec.matches(rt.version)                  ? DriftStatus::kOk
                        : lr.spec.matches_less_precisely(rt.version) ? DriftStatus::kUnconfirmed
                                                                     : DriftStatus::kDrifted;
        }
        if (found) break;
      }
      if (!found) {
        item.status = DriftStatus::kMissing;
        if (lr.path.empty()) {
          std::vector<std::string> versions;
          for (const auto& rt : stack.runtimes) versions.push_back(rt.version);
          item.actual = joined(versions);
          if (!versions.empty()) item.status = DriftStatus::kDrifted;
        }
      }
      r.items.push_back(item);
    }
    for (std::size_t i = 0; i < stack.runtimes.size(); ++i) {
      if (accounted[i] || stack.runtimes[i].version.empty()) continue;
      r.items.push_back({"cuda_runtime", "cuda_runtime.instances", "", stack.runtimes[i].version,
                         DriftStatus::kAdded, stack.runtimes[i].path, false});
    }
  }
  std::stable_sort(r.items.begin(), r.items.end(), [](const DriftItem& a, const DriftItem& b) {
    return layer_rank(a.layer) < layer_rank(b.layer);
  });

  const Json& status = model::fact_at(report, "layer_status");
  for (auto& item : r.items) {
    if (item.status == DriftStatus::kUnconfirmed)
      ++r.unconfirmed;
    else if (item.status != DriftStatus::kOk)
      r.drifted = true;
    item.layer_has_error = status.is_object() && status.value(item.layer, "") == "error";
  }
  const Json& findings = model::fact_at(report, "findings");
  if (findings.is_array()) {
    for (const auto& f : findings) {
      if (f.value("severity", "") != "error") continue;
      r.compatible = false;
      r.error_findings.push_back(
          fmt::format("{}: {}: {}", f.value("layer", ""), f.value("id", ""), f.value("message", "")));
    }
  }
  return r;
}

std::string render_verify_text(const VerifyResult& r, const std::string& lock_name) {
  std::string out;
  std::size_t drifted = std::count_if(r.items.begin(), r.items.end(), [](const DriftItem& i) {
    return i.status != DriftStatus::kOk && i.status != DriftStatus::kUnconfirmed;
  });
  std::string less_precise =
      r.unconfirmed == 0 ? "" : fmt::format("; {} read less precisely, not confirmed", r.unconfirmed);
  if (!r.drifted) {
    out +=
        fmt::format("{}: the stack matches ({} pinned values{})\n", lock_name, r.items.size(), less_precise);
  } else {
    out += fmt::format("{}: {} of {} pinned values drifted{}\n", lock_name, drifted, r.items.size(),
                       less_precise);
  }
  std::string layer;
  for (const auto& i : r.items) {
    if (i.status == DriftStatus::kOk) continue;
    if (i.layer != layer) {
      layer = i.layer;
      out += fmt::format("\n{}{}\n", layer, i.layer_has_error ? "  (this layer now has an error)" : "");
    }
    std::string where = i.detail.empty() ? "" : fmt::format(" at {}", i.detail);
    switch (i.status) {
      case DriftStatus::kUnconfirmed:
        out += fmt::format("  {}{}: {} -> {} (read less precisely: consistent, not confirmed)\n", i.key,
                           where, i.expected, i.actual);
        break;
      case DriftStatus::kDrifted:
        out += fmt::format("  {}{}: {} -> {}\n", i.key, where, i.expected, i.actual);
        break;
      case DriftStatus::kMissing:
        out += fmt::format("  {}{}: {} -> none found\n", i.key, where, i.expected);
        break;
      case DriftStatus::kAdded:
        out += fmt::format("  {}{}: none pinned -> {} (new)\n", i.key, where, i.actual);
        break;
      case DriftStatus::kOk:
        break;
    }
  }
  if (r.unconfirmed > 0) {
    out += "\n" + std::string(kLessPreciseText) + "\n";
  } else if (r.drifted) {
    out += "\n";
  }
  if (r.compatible) {
    out += r.drifted ? "Verdict: drifted but compatible — no error finding on the stack as it is now.\n"
                     : "Verdict: matches, and no error finding.\n";
  } else {
    out += r.drifted ? "Verdict: drifted and broken — the stack as it is now has error findings:\n"
                     : "Verdict: matches the lock, but the stack has error findings:\n";
    for (const auto& f : r.error_findings) out += "  " + f + "\n";
  }
  return out;
}

Json verify_to_json(const VerifyResult& r, const std::string& lock_name) {
  Json items = Json::array();
  for (const auto& i : r.items) {
    Json j = {{"layer", i.layer},
              {"key", i.key},
              {"status", drift_status_name(i.status)},
              {"expected", i.expected},
              {"actual", i.actual.empty() ? Json(nullptr) : Json(i.actual)}};
    if (!i.detail.empty()) j["path"] = i.detail;
    if (i.status == DriftStatus::kUnconfirmed) j["note"] = kLessPreciseNote;
    j["layer_has_error"] = i.layer_has_error;
    items.push_back(j);
  }
  std::string verdict = !r.drifted ? (r.compatible ? "matches" : "matches_with_errors")
                                   : (r.compatible ? "drifted_compatible" : "drifted_broken");
  return {{"lock", lock_name},
          {"verdict", verdict},
          {"drifted", r.drifted},
          {"compatible", r.compatible},
          {"unconfirmed", r.unconfirmed},
          {"items", items},
          {"error_findings", r.error_findings}};
}

}  // namespace cudiag::workflow
