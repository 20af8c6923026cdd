#include "probes/child_batch.h"

#include <fmt/format.h>

#include "child/child_probe.h"
#include "machine/text_util.h"

namespace cudiag::probes {

std::size_t ChildBatch::add(const std::string& kind, std::vector<std::string> args) {
  ChildSpec spec;
  spec.argv = {self_exe_, child::kChildProbeArg, kind};
  std::string label = kind;
  for (auto& a : args) {
    label += " " + a;
    spec.argv.push_back(std::move(a));
  }
  std::string key =
      kind == "library" && !spec.argv.empty() && spec.argv.size() > 3 ? kind + " " + spec.argv[3] : kind;
  if (++per_library_[key] > kMaxChildrenPerLibrary) {
    skipped_key_.push_back(key);
  } else {
    skipped_key_.emplace_back();
    group_.add(spec, timeout_);
  }
  specs_.push_back(std::move(spec));
  labels_.push_back(label);
  started_ms_.push_back(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - created_).count());
  return specs_.size() - 1;
}

void ChildBatch::wait() {
  auto ran = group_.wait();
  results_.clear();
  elapsed_.clear();
  std::size_t next_ran = 0;
  for (std::size_t ticket = 0; ticket < specs_.size(); ++ticket) {
    if (!skipped_key_[ticket].empty()) {
      const auto& key = skipped_key_[ticket];
      Json r = Json::object();
      r["child_error"] = fmt::format("not probed: {} more instances of {} after the first {}",
                                     per_library_[key] - kMaxChildrenPerLibrary, key, kMaxChildrenPerLibrary);
      r["not_probed"] = true;
      elapsed_.push_back(0);
      results_.push_back(std::move(r));
      continue;
    }
    const auto& o = ran.at(next_ran++);
    elapsed_.push_back(o.elapsed_ms);
    Json r;
    if (o.status == ChildOutcome::Status::kExited && o.exit_code == 0) {
      r = Json::parse(o.out, nullptr, false);
      if (r.is_discarded() || !r.is_object()) {
        r = Json::object();
        r["child_error"] = "printed something that is not a JSON object: " + machine::sanitize(o.out, 120);
      }
    } else {
      r = Json::object();
      r["child_error"] = describe_outcome(o, timeout_);
      if (o.status == ChildOutcome::Status::kSignaled) r["signal"] = o.signal;
      if (o.status == ChildOutcome::Status::kTimedOut) r["timed_out"] = true;
      if (!o.err.empty()) r["stderr"] = machine::sanitize(o.err, 300);
    }
    r["child_ms"] = o.elapsed_ms;
    results_.push_back(std::move(r));
  }
}

Json ChildBatch::timings() const {
  Json t = Json::array();
  for (std::size_t i = 0; i < labels_.size() && i < elapsed_.size(); ++i) {
    Json e = Json::object();
    e["child"] = labels_[i];
    e["ms"] = elapsed_[i];
    e["started_ms"] = started_ms_[i];
    t.push_back(e);
  }
  return t;
}

}  // namespace cudiag::probes
