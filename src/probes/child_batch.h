#pragma once
// Child probes requested by the layers, run together as one ChildGroup. The
// interface lives with the probes that plan into it (a LayerProbe's plan());
// report/child_batch.cpp, which speaks the children's protocol, implements it.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/subprocess.h"

namespace cudiag::probes {

class ChildBatch {
 public:
  ChildBatch(std::string self_exe, std::chrono::milliseconds timeout)
      : self_exe_(std::move(self_exe)), timeout_(timeout) {}
  // Starts the child at once (it runs while the layers plan the rest) and
  // returns a ticket for result().
  std::size_t add(const std::string& kind, std::vector<std::string> args);
  static constexpr std::size_t kMaxChildrenPerLibrary = 16;
  void wait();
  // The child's JSON answer, or {"child_error": "...", ...} saying why there is none.
  const Json& result(std::size_t ticket) const { return results_.at(ticket); }
  std::size_t size() const { return specs_.size(); }
  Json timings() const;

 private:
  std::string self_exe_;
  std::vector<ChildSpec> specs_;
  std::vector<std::string> labels_;
  std::vector<Json> results_;
  std::vector<double> elapsed_;
  std::vector<double> started_ms_;  // when each was spawned, after the batch was made
  std::chrono::steady_clock::time_point created_ = std::chrono::steady_clock::now();
  ChildGroup group_;
  std::chrono::milliseconds timeout_{0};
  // Children per library ("library cublas", "cudart", "libcuda"): 300 copies
  // of libcuda on LD_LIBRARY_PATH get 16 children, the rest an answer saying
  // they were not probed.
  std::map<std::string, std::size_t> per_library_;
  std::vector<std::string> skipped_key_;  // by ticket: "" when the child ran
};

}  // namespace cudiag::probes
