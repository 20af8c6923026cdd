#include "kernel_test/child_log.h"

#include <fmt/format.h>

#include <sstream>

namespace cudiag::kernel_test {

ChildLog read_child_log(const ChildOutcome& outcome, std::chrono::milliseconds timeout) {
  ChildLog log;
  std::optional<Json> pending;
  std::istringstream lines(outcome.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line.front() != '{') continue;
    Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    auto event = j.value("event", "");
    if (event == "begin") {
      pending = j;
    } else if (event == "end" || event == "skip") {
      pending.reset();
      log.records.push_back(std::move(j));
    } else if (event == "done") {
      log.finished = true;
    } else {
      log.records.push_back(std::move(j));
    }
  }
  bool clean = outcome.status == ChildOutcome::Status::kExited && outcome.exit_code == 0;
  log.finished = log.finished && clean;
  if (log.finished) return log;

  Json failed = pending ? *pending : Json::object();
  if (!pending) {
    failed["step"] = "child process";
    failed["scope"] =
        log.records.empty() ? std::string("driver") : log.records.back().value("scope", "driver");
    if (!log.records.empty() && log.records.back().contains("device"))
      failed["device"] = log.records.back()["device"];
  }
  failed["event"] = "end";
  failed["api"] = "process";
  failed["code"] = -1;
  failed["ms"] = outcome.elapsed_ms;
  std::string what = describe_outcome(outcome, timeout);
  if (outcome.status == ChildOutcome::Status::kExited && !outcome.err.empty()) {
    auto err = outcome.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    auto last = err.rfind('\n');
    what += ": " + (last == std::string::npos ? err : err.substr(last + 1));
  }
  failed["detail"] = pending ? "did not return: the process " + what : "the process " + what;
  log.unfinished = failed;
  log.records.push_back(std::move(failed));
  return log;
}

Json step_from_record(const Json& record, const ErrorLookup& errors) {
  Json step = Json::object();
  const std::string name = record.value("step", "?");
  step["name"] = name;
  if (record.value("event", "") == "skip") {
    step["status"] = "skipped";
    step["detail"] = record.value("reason", "");
    step["message"] = fmt::format("{}: skipped, {}", name, record.value("reason", ""));
    return step;
  }
  const long code = record.value("code", 0L);
  const std::string api = record.value("api", "");
  step["ms"] = record.value("ms", 0.0);
  step["status"] = code == 0 ? "ok" : "failed";
  if (api == "driver" || api == "nvrtc") step["code"] = code;
  std::string detail = record.value("detail", "");
  if (!detail.empty()) step["detail"] = detail;
  for (const char* key : {"options", "loaded_path", "elements", "seed"}) {
    if (record.contains(key)) step[key] = record[key];
  }
  if (code == 0) {
    step["message"] = detail.empty() ? name : fmt::format("{}: {}", name, detail);
    return step;
  }
  std::string message;
  if (api == "driver" || api == "nvrtc") {
    auto text = errors ? errors(api, code) : std::nullopt;
    std::string err_name = text ? text->name : record.value("library_error_name", "");
    if (err_name.empty()) err_name = api == "driver" ? "CUDA error" : "NVRTC error";
    step["error"] = err_name;
    message = fmt::format("{} → {} ({})", name, err_name, code);
    if (text && !text->meaning.empty()) message += ": " + text->meaning;
    if (!detail.empty()) {
      auto first_line = detail.substr(0, detail.find('\n'));
      message += (text && !text->meaning.empty() ? " — " : ": ") + first_line;
    }
  } else {
    message = fmt::format("{} → {}", name, detail.empty() ? "failed" : detail.substr(0, detail.find('\n')));
  }
  step["message"] = message;
  return step;
}

}  // namespace cudiag::kernel_test
