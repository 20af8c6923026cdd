#include "workflow/fleet_stacks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "rules/finding.h"
#include "workflow/verify.h"

namespace cudiag::workflow::fleet {

namespace {

std::string fact_text(const Json& j) {
  const Json& v = j.is_object() && j.contains("value") ? j["value"] : j;
  return v.is_string() ? v.get<std::string>() : "";
}

// The container image is part of what a node runs (issue: "container image"), but not of
// read_stack(): `lock` and `diff` predate it. It is added here as two text values.
void add_container(Stack& s, const Json& projection) {
  const Json& c = projection.contains("container") ? projection["container"] : Json();
  for (const auto& [field, key] :
       {std::pair{"image", "container.image"}, {"image_digest", "container.digest"}}) {
    StackValue v;
    v.layer = "container";
    v.key = key;
    v.kind = ValueKind::kText;
    v.from = std::string("container.") + field;
    if (c.is_object() && c.contains(field)) {
      auto t = fact_text(c[field]);
      if (!t.empty()) v.values.push_back(t);
    }
    s.values.push_back(v);
  }
}

std::size_t layer_rank(const std::string& layer) {
  const auto& order = model::layer_order();
  auto it = std::find(order.begin(), order.end(), layer);
  return static_cast<std::size_t>(it - order.begin());
}

// nlohmann's "[json.exception.type_error.302] type must be string, but is number" without the tag.
std::string short_what(const std::exception& e) {
  std::string w = e.what();
  auto pos = w.find("] ");
  return pos == std::string::npos ? w : w.substr(pos + 2);
}

}  // namespace

std::string group_key(const Stack& s) {
  std::string key;
  for (const auto& v : s.values) {
    if (v.values.empty()) continue;
    auto sorted = v.values;
    std::sort(sorted.begin(), sorted.end());
    key += fmt::format("{}={}\x1e", v.key, fmt::join(sorted, "\x1f"));
  }
  return key;
}

int StackTable::group_of(Stack&& s) {
  auto key = group_key(s);
  auto [it, fresh] = group_ids_.emplace(key, static_cast<int>(groups.size()));
  if (fresh) groups.push_back(std::move(s));
  return it->second;
}

int StackTable::drift_of(DriftItem&& d) {
  auto key = fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", d.layer, d.key, d.expected, d.actual, d.status);
  auto [it, fresh] = drift_ids_.emplace(key, static_cast<int>(drift.size()));
  if (fresh) drift.push_back(std::move(d));
  return it->second;
}

Entry StackTable::add(const std::string& projection) {
  Entry e;
  Stack s;
  try {
    Json j = Json::parse(projection);
    s = read_stack(j, kb_);
    add_container(s, j);
  } catch (const std::exception& ex) {
    // A report whose facts have the wrong types (a version that is a number, a list that is a string).
    e.bad = fmt::format("not a cudiag report: a field has an unexpected type ({})", short_what(ex));
    return e;
  }
  if (lock_) {
    auto r = verify_lock(*lock_, s, Json::object());
    for (const auto& item : r.items) {
      if (item.status == workflow::DriftStatus::kOk || item.status == workflow::DriftStatus::kUnconfirmed)
        continue;
      std::string key = item.detail.empty() ? item.key : fmt::format("{} at {}", item.key, item.detail);
      e.drift.push_back(
          drift_of({item.layer, key, item.expected, item.actual, drift_status_name(item.status), {}}));
    }
  }
  e.group = group_of(std::move(s));
  return e;
}

void summarise(FleetResult& r) {
  std::stable_sort(r.groups.begin(), r.groups.end(), [](const Group& a, const Group& b) {
    if (a.members.size() != b.members.size()) return a.members.size() > b.members.size();
    return a.members.front() < b.members.front();
  });
  for (std::size_t i = 1; i < r.groups.size(); ++i) {
    auto& g = r.groups[i];
    diff_stacks(r.groups[0].stack, g.stack, g.differs, g.less_precise);
    for (auto* list : {&g.differs, &g.less_precise}) {
      for (auto& d : *list) {
        if (d.key.starts_with("container.")) d.layer = "container";
      }
    }
  }
  std::stable_sort(r.findings.begin(), r.findings.end(), [](const FleetFinding& a, const FleetFinding& b) {
    auto rank = [](const std::string& s) {
      return s == "error" ? 0 : s == "warning" ? 1 : s == "info" ? 2 : 3;
    };
    if (rank(a.severity) != rank(b.severity)) return rank(a.severity) < rank(b.severity);
    if (a.members.size() != b.members.size()) return a.members.size() > b.members.size();
    return a.id < b.id;
  });
  std::stable_sort(
      r.first_failing.begin(), r.first_failing.end(),
      [](const LayerNodes& a, const LayerNodes& b) { return layer_rank(a.layer) < layer_rank(b.layer); });
  std::stable_sort(r.drift.begin(), r.drift.end(), [](const DriftItem& a, const DriftItem& b) {
    if (layer_rank(a.layer) != layer_rank(b.layer)) return layer_rank(a.layer) < layer_rank(b.layer);
    return a.members.size() > b.members.size();
  });
}

std::string value_text(const StackValue& v) {
  return v.values.empty() ? "(none)" : fmt::format("{}", fmt::join(v.values, ", "));
}

std::vector<const StackValue*> shown_values(const Stack& s) {
  std::vector<const StackValue*> out;
  for (const auto& v : s.values) {
    if (!v.values.empty()) out.push_back(&v);
  }
  return out;
}

std::size_t FleetResult::error_nodes() const {
  std::vector<std::uint32_t> all;
  for (const auto& f : findings) {
    all.insert(all.end(), f.errors.begin(), f.errors.end());
  }
  std::sort(all.begin(), all.end());
  return static_cast<std::size_t>(std::unique(all.begin(), all.end()) - all.begin());
}

int FleetResult::exit_code() const {
  bool clean =
      reports > 0 && unreadable.empty() && groups.size() == 1 && error_nodes() == 0 && drifted.empty();
  return clean ? 0 : 1;
}

}  // namespace cudiag::workflow::fleet
