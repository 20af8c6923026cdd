#include "report/child_batch.h"

#include "child/child_probe.h"
#include "probes/text_util.h"

namespace cudiag {

std::size_t ChildBatch::add(const std::string& kind, std::vector<std::string> args) {
  ChildSpec spec;
  spec.argv = {self_exe_, kChildProbeArg, kind};
  std::string label = kind;
  for (auto& a : args) {
    label += " " + a;
    spec.argv.push_back(std::move(a));
  }
  group_.add(spec, timeout_);
  specs_.push_back(std::move(spec));
  labels_.push_back(label);
  started_ms_.push_back(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - created_).count());
  return specs_.size() - 1;
}

void ChildBatch::wait() {
  auto outcomes = group_.wait();
  results_.clear();
  elapsed_.clear();
  for (const auto& o : outcomes) {
    elapsed_.push_back(o.elapsed_ms);
    Json r;
    if (o.status == ChildOutcome::Status::kExited && o.exit_code == 0) {
      r = Json::parse(o.out, nullptr, false);
      if (r.is_discarded() || !r.is_object()) {
        r = Json::object();
        r["child_error"] = "printed something that is not a JSON object: " + sanitize(o.out, 120);
      }
    } else {
      r = Json::object();
      r["child_error"] = describe_outcome(o, timeout_);
      if (o.status == ChildOutcome::Status::kSignaled) r["signal"] = o.signal;
      if (o.status == ChildOutcome::Status::kTimedOut) r["timed_out"] = true;
      if (!o.err.empty()) r["stderr"] = sanitize(o.err, 300);
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

}  // namespace cudiag
