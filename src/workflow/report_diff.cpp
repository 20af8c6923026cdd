#include "workflow/report_diff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "rules/finding.h"
#include "workflow/stack.h"
#include "workflow/version_spec.h"

namespace cudiag::workflow {

namespace {

// Not compared at all: they differ between any two runs, or are the diagnosis (compared on its own).
const std::set<std::string> kSkippedTopLevel = {
    "schema",       "tool",        "collected_at", "timings", "search", "findings", "first_failing_layer",
    "layer_status", "requirements"};
// Inside layers: how long a call took, and where a fact was read (its value is compared).
const std::set<std::string> kSkippedKeys = {"ms", "source", "elapsed_ms", "duration_ms"};

std::string joined(std::vector<std::string> v) {
  return v.empty() ? "" : fmt::format("{}", fmt::join(v, ", "));
}

std::size_t layer_rank(const std::string& layer) {
  const auto& order = model::layer_order();
  auto it = std::find(order.begin(), order.end(), layer);
  if (it != order.end()) return static_cast<std::size_t>(it - order.begin());
  return layer == "diagnosis" ? order.size() + 1 : order.size();  // "host"-less extras after the layers
}

bool is_fact(const Json& j) { return j.is_object() && j.contains("value") && j.contains("source"); }

std::string leaf_text(const Json& j) {
  if (is_fact(j)) {
    const Json& v = j["value"];
    if (v.is_null())
      return j.contains("error") ? fmt::format("unknown ({})", j["error"].get<std::string>()) : "null";
    std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    if (j.contains("code")) text += fmt::format(" (code {})", j["code"].dump());
    return text;
  }
  return j.is_string() ? j.get<std::string>() : j.dump();
}

// An array element's name, so an inserted element does not shift every later one.
std::string identity(const Json& e, std::size_t index) {
  if (e.is_object()) {
    for (const char* k : {"real_path", "path", "bus_id", "pci_bus_id", "id", "name", "child"}) {
      if (e.contains(k)) {
        auto t = leaf_text(e[k]);
        if (!t.empty()) return t;
      }
    }
  }
  return std::to_string(index);
}

using Flat = std::vector<std::pair<std::string, std::string>>;

void flatten(const Json& node, const std::string& path, Flat& out) {
  if (is_fact(node)) {
    out.emplace_back(path, leaf_text(node));
    return;
  }
  if (node.is_object()) {
    for (const auto& [k, v] : node.items()) {
      if (kSkippedKeys.count(k)) continue;
      flatten(v, path + "." + k, out);
    }
    return;
  }
  if (node.is_array() && std::any_of(node.begin(), node.end(), [](const Json& e) { return e.is_object(); })) {
    for (std::size_t i = 0; i < node.size(); ++i)
      flatten(node[i], fmt::format("{}[{}]", path, identity(node[i], i)), out);
    return;
  }
  out.emplace_back(path, leaf_text(node));
}

Flat flatten_report(const Json& report) {
  Flat out;
  for (const auto& [k, v] : report.items()) {
    if (kSkippedTopLevel.count(k)) continue;
    flatten(v, k, out);
  }
  return out;
}

struct FindingKey {
  std::string layer, severity, message;
};

std::map<std::string, FindingKey> findings_of(const Json& report) {
  std::map<std::string, FindingKey> out;
  const Json& f = model::fact_at(report, "findings");
  if (!f.is_array()) return out;
  for (const auto& x : f) {
    std::string sev = x.value("severity", "");
    if (sev != "error" && sev != "warning") continue;
    out[x.value("id", "")] = {x.value("layer", ""), sev, x.value("message", "")};
  }
  return out;
}

}  // namespace

void diff_stacks(const Stack& sa, const Stack& sb, std::vector<Difference>& out,
                 std::vector<Difference>& precision) {
  std::vector<std::string> keys;
  for (const auto* s : {&sa, &sb}) {
    for (const auto& v : s->values) {
      if (std::find(keys.begin(), keys.end(), v.key) == keys.end()) keys.push_back(v.key);
    }
  }
  for (const auto& key : keys) {
    const auto* va = sa.find(key);
    const auto* vb = sb.find(key);
    std::vector<std::string> a = va ? va->values : std::vector<std::string>{};
    std::vector<std::string> b = vb ? vb->values : std::vector<std::string>{};
    auto sorted_a = a, sorted_b = b;
    std::sort(sorted_a.begin(), sorted_a.end());
    std::sort(sorted_b.begin(), sorted_b.end());
    if (sorted_a == sorted_b) continue;
    Difference d{layer_of_key(key), key, joined(a), joined(b)};
    // "9" (a file name's soname major, --no-library-calls) against "9.19.0" (the library's answer)
    // is the same library read less precisely, not a change.
    (same_but_less_precise(a, b) ? precision : out).push_back(d);
  }
}

ReportDiff diff_reports(const Json& a, const Json& b, const kb::KnowledgeBase& kb) {
  ReportDiff d;
  std::vector<Difference> precision;
  diff_stacks(read_stack(a, kb), read_stack(b, kb), d.compatibility, precision);

  auto fa = findings_of(a), fb = findings_of(b);
  for (const auto& [id, f] : fa) {
    auto it = fb.find(id);
    if (it == fb.end()) {
      d.compatibility.push_back({f.layer, "finding " + id, f.severity + ": " + f.message, ""});
    } else if (it->second.severity != f.severity) {
      d.compatibility.push_back(
          {f.layer, "finding " + id, f.severity, it->second.severity + ": " + it->second.message});
    }
  }
  for (const auto& [id, f] : fb) {
    if (!fa.count(id))
      d.compatibility.push_back({f.layer, "finding " + id, "", f.severity + ": " + f.message});
  }
  auto first_failing = [](const Json& r) {
    const Json& v = model::fact_at(r, "first_failing_layer");
    return v.is_string() ? v.get<std::string>() : std::string();
  };
  if (first_failing(a) != first_failing(b))
    d.compatibility.push_back({"diagnosis", "first_failing_layer", first_failing(a), first_failing(b)});

  auto flat_a = flatten_report(a), flat_b = flatten_report(b);
  std::map<std::string, std::string> map_b(flat_b.begin(), flat_b.end());
  std::set<std::string> seen;
  for (const auto& [path, value] : flat_a) {
    seen.insert(path);
    auto it = map_b.find(path);
    std::string after = it == map_b.end() ? "" : it->second;
    if (it == map_b.end() || it->second != value)
      d.other.push_back({path.substr(0, path.find_first_of(".[")), path, value, after});
  }
  for (const auto& [path, value] : flat_b) {
    if (!seen.count(path)) d.other.push_back({path.substr(0, path.find_first_of(".[")), path, "", value});
  }
  // A report field whose change is already a compatibility difference (kernel_driver.version for `driver`) is
  // not repeated.
  std::erase_if(d.other, [&](const Difference& o) {
    return std::any_of(d.compatibility.begin(), d.compatibility.end(),
                       [&](const Difference& c) { return c.before == o.before && c.after == o.after; });
  });
  for (auto& p : precision) {
    p.key += " (read less precisely on one side)";
    d.other.push_back(p);
  }
  auto by_layer = [](const Difference& x, const Difference& y) {
    return layer_rank(x.layer) < layer_rank(y.layer);
  };
  std::stable_sort(d.compatibility.begin(), d.compatibility.end(), by_layer);
  std::stable_sort(d.other.begin(), d.other.end(), by_layer);
  return d;
}

namespace {

std::string shown(const std::string& v) { return v.empty() ? "(none)" : v; }

void render_section(std::string& out, const std::vector<Difference>& list) {
  std::string layer;
  for (const auto& x : list) {
    if (x.layer != layer) {
      layer = x.layer;
      out += fmt::format("  {}\n", layer);
    }
    out += fmt::format("    {}: {} -> {}\n", x.key, shown(x.before), shown(x.after));
  }
}

Json section_json(const std::vector<Difference>& list) {
  Json out = Json::array();
  for (const auto& x : list) {
    out.push_back({{"layer", x.layer},
                   {"key", x.key},
                   {"before", x.before.empty() ? Json(nullptr) : Json(x.before)},
                   {"after", x.after.empty() ? Json(nullptr) : Json(x.after)}});
  }
  return out;
}

}  // namespace

std::string render_diff_text(const ReportDiff& d, const std::string& name_a, const std::string& name_b) {
  std::string out = fmt::format("{} -> {}\n", name_a, name_b);
  if (d.compatibility.empty()) {
    out += "No differences that matter for compatibility.\n";
  } else {
    out += fmt::format("\nDifferences that matter for compatibility ({}):\n", d.compatibility.size());
    render_section(out, d.compatibility);
  }
  if (!d.other.empty()) {
    out += fmt::format("\nOther differences ({}; paths, environment and the like never count):\n",
                       d.other.size());
    render_section(out, d.other);
  }
  return out;
}

Json diff_to_json(const ReportDiff& d, const std::string& name_a, const std::string& name_b) {
  return {{"a", name_a},
          {"b", name_b},
          {"differs", d.matters()},
          {"compatibility", section_json(d.compatibility)},
          {"other", section_json(d.other)}};
}

}  // namespace cudiag::workflow
