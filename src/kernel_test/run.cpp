// Runs the kernel test's children and assembles the `kernel_test` section.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>

#include "core/subprocess.h"
#include "kernel_test/framework_script.h"
#include "kernel_test/kernel_spec.h"
#include "kernel_test/kernel_test.h"

namespace cudiag::kernel_test {

namespace {

constexpr const char* kProbeArg = "__probe";

bool any_failed(const Json& steps) {
  for (const auto& s : steps) {
    if (s.value("status", "") == "failed") return true;
  }
  return false;
}

Json failed_step(const std::string& name, const std::string& message) {
  Json s = Json::object();
  s["name"] = name;
  s["status"] = "failed";
  s["message"] = message;
  return s;
}

Json kernels_info() {
  Json k = Json::object();
  auto ptx = embedded_ptx();
  k["ptx"] = {{"isa", ptx_directive(ptx, ".version")}, {"target", ptx_directive(ptx, ".target")}};
  Json sass = Json::object();
  sass["built"] = !embedded_fatbin().empty();
  Json archs = Json::array();
  for (int a : sass_archs()) archs.push_back(fmt::format("sm_{}", a));
  sass["archs"] = archs;
  if (!sass_nvcc_version().empty()) sass["nvcc"] = sass_nvcc_version();
  k["sass"] = sass;
  return k;
}

ChildSpec driver_spec(const Plan& plan, const RunOptions& options, int first_device) {
  return {{options.self_exe, kProbeArg, "kernel_test_driver", plan.libcuda, std::to_string(first_device),
           std::to_string(options.seed)},
          {}};
}

// Folds one driver child's records into the driver section.
class DriverAssembler {
 public:
  explicit DriverAssembler(const ErrorLookup& errors) : errors_(errors) {}

  void absorb(const ChildLog& log) {
    for (const auto& rec : log.records) {
      auto event = rec.value("event", "");
      if (event == "driver_version") {
        int v = rec.value("value", 0);
        driver_version_ = fmt::format("{}.{}", v / 1000, v % 1000 / 10);
      } else if (event == "device_count") {
        device_count_ = rec.value("value", 0);
      } else if (event == "device") {
        auto& d = device(rec.value("ordinal", 0));
        for (const char* key : {"name", "compute_capability", "pci_bus_id"}) {
          if (rec.contains(key)) d[key] = rec[key];
        }
      } else if (event == "end" || event == "skip") {
        auto step = step_from_record(rec, errors_);
        if (rec.value("scope", "") == "device") {
          device(rec.value("device", 0))["steps"].push_back(step);
        } else {
          steps_.push_back(step);
        }
      }
    }
  }

  // The device a crashed or hung child was working on, when later devices remain.
  std::optional<int> resume_after(const ChildLog& log) const {
    if (log.finished || !log.unfinished || log.unfinished->value("scope", "") != "device")
      return std::nullopt;
    int d = log.unfinished->value("device", -1);
    if (d < 0 || !device_count_ || d + 1 >= *device_count_) return std::nullopt;
    return d;
  }

  Json finish(const std::string& library) {
    Json out = Json::object();
    out["library"] = library;
    if (!driver_version_.empty()) out["cuda_driver_version"] = driver_version_;
    if (device_count_) out["device_count"] = *device_count_;
    bool ok = !any_failed(steps_);
    if (ok && device_count_ && *device_count_ == 0) {
      steps_.push_back(failed_step("cuDeviceGetCount",
                                   "cuDeviceGetCount → 0 devices: there is no GPU to run the kernel on"));
      ok = false;
    }
    out["steps"] = steps_;
    Json devices = Json::array();
    for (auto& [ordinal, d] : devices_) {
      bool checked = false;
      for (const auto& s : d["steps"]) {
        auto name = s.value("name", "");
        if (s.value("status", "") == "ok" && name.size() > 6 && name.substr(name.size() - 6) == " check")
          checked = true;
      }
      bool pass = checked && !any_failed(d["steps"]);
      d["status"] = pass ? "pass" : "fail";
      ok = ok && pass;
      devices.push_back(d);
    }
    out["devices"] = devices;
    out["status"] = ok && !devices.empty() ? "pass" : "fail";
    return out;
  }

 private:
  Json& device(int ordinal) {
    auto it = devices_.find(ordinal);
    if (it == devices_.end()) {
      Json d = Json::object();
      d["ordinal"] = ordinal;
      d["steps"] = Json::array();
      it = devices_.emplace(ordinal, d).first;
    }
    return it->second;
  }

  const ErrorLookup& errors_;
  Json steps_ = Json::array();
  std::map<int, Json> devices_;
  std::optional<int> device_count_;
  std::string driver_version_;
};

Json nvrtc_section(const std::string& library, const ChildLog& log, const ErrorLookup& errors) {
  Json out = Json::object();
  out["library"] = library;
  Json steps = Json::array();
  for (const auto& rec : log.records) {
    auto event = rec.value("event", "");
    if (event == "nvrtc_version") {
      out["version"] = rec["value"];
    } else if (event == "nvrtc_ptx") {
      out["ptx_isa"] = rec.value("ptx_isa", "");
      out["ptx_target"] = rec.value("target", "");
    } else if (event == "device") {
      out["device"] = rec.value("name", "");
      if (rec.contains("compute_capability")) out["compute_capability"] = rec["compute_capability"];
    } else if (event == "end" || event == "skip") {
      steps.push_back(step_from_record(rec, errors));
    }
  }
  bool ran = false;
  for (const auto& s : steps) {
    if (s.value("name", "") == "nvrtc-ptx check" && s.value("status", "") == "ok") ran = true;
  }
  out["steps"] = steps;
  out["status"] = !any_failed(steps) && ran ? "pass" : "fail";
  return out;
}

Json framework_entry(const std::string& python, const std::string& framework, const ChildOutcome& outcome,
                     std::chrono::milliseconds timeout) {
  Json out = Json::object();
  out["python"] = python;
  out["framework"] = framework;
  out["ms"] = outcome.elapsed_ms;
  Json answer;
  auto last =
      outcome.out.find_last_of('{') == std::string::npos ? std::string::npos : outcome.out.rfind("\n{");
  std::string line = last == std::string::npos ? outcome.out : outcome.out.substr(last + 1);
  if (!line.empty()) answer = Json::parse(line, nullptr, false);
  bool clean = outcome.status == ChildOutcome::Status::kExited && outcome.exit_code == 0;
  if (!clean || answer.is_discarded() || !answer.is_object()) {
    out["status"] = "fail";
    std::string err = outcome.err.size() > 2000 ? outcome.err.substr(outcome.err.size() - 2000) : outcome.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    out["error"] = fmt::format("{} {}", python, describe_outcome(outcome, timeout));
    if (!err.empty()) out["stderr_tail"] = err;
    return out;
  }
  if (!answer.value("installed", false)) {
    out["status"] = "not installed";
    return out;
  }
  for (const char* key : {"version", "cuda_build", "device", "device_count", "python_version",
                          "max_abs_error", "error", "traceback"}) {
    if (answer.contains(key) && !answer[key].is_null()) out[key] = answer[key];
  }
  if (answer.contains("ms")) out["ms"] = answer["ms"];
  out["status"] = answer.value("ok", false) ? "pass" : "fail";
  return out;
}

// The first failed step, in the order the layers depend on each other.
Json first_failure(const Json& section) {
  auto from = [](const std::string& where, const Json& steps) -> Json {
    for (const auto& s : steps) {
      if (s.value("status", "") == "failed") {
        return {{"section", where}, {"step", s.value("name", "")}, {"message", s.value("message", "")}};
      }
    }
    return nullptr;
  };
  const auto& driver = section["driver"];
  if (auto f = from("driver", driver["steps"]); !f.is_null()) return f;
  for (const auto& d : driver["devices"]) {
    if (auto f = from(fmt::format("device {}", d.value("ordinal", 0)), d["steps"]); !f.is_null()) return f;
  }
  for (const auto& n : section["nvrtc"]) {
    if (auto f = from("nvrtc " + n.value("library", ""), n["steps"]); !f.is_null()) return f;
  }
  for (const auto& fw : section["frameworks"]) {
    if (fw.value("status", "") == "fail") {
      auto msg = fw.value("error", "failed");
      return {{"section", fmt::format("{} ({})", fw.value("framework", ""), fw.value("python", ""))},
              {"step", fw.value("framework", "")},
              {"message", fmt::format("{} → {}", fw.value("framework", ""), msg.substr(0, msg.find('\n')))}};
    }
  }
  return nullptr;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

Json run_kernel_test(const Plan& plan, const RunOptions& given, const ErrorLookup& errors) {
  const auto start = std::chrono::steady_clock::now();
  RunOptions options = given;
  if (options.seed == 0) options.seed = std::random_device{}() | 1u;
  if (options.self_exe.empty()) options.self_exe = self_executable();

  // Every child starts now; frameworks get their own, longer deadline.
  std::vector<ChildSpec> native;
  if (!plan.libcuda.empty()) native.push_back(driver_spec(plan, options, 0));
  const std::size_t nvrtc_first = native.size();
  if (plan.nvrtc_enabled) {
    for (const auto& lib : plan.nvrtc) {
      native.push_back({{options.self_exe, kProbeArg, "kernel_test_nvrtc", lib, plan.libcuda,
                         std::to_string(options.seed + 1000)},
                        {}});
    }
  }
  std::vector<ChildSpec> frameworks;
  std::vector<std::pair<std::string, std::string>> framework_of;
  Json known_absent = Json::array();  // from the report's frameworks layer: no Python started
  if (plan.frameworks_enabled) {
    for (const auto& py : plan.pythons) {
      auto known = plan.frameworks_present.find(py);
      for (const auto& fw : framework_names()) {
        if (known != plan.frameworks_present.end() && !known->second.contains(fw)) {
          known_absent.push_back({{"python", py},
                                  {"framework", fw},
                                  {"status", "not installed"},
                                  {"source", "report frameworks layer"},
                                  {"ms", 0.0}});
          continue;
        }
        frameworks.push_back({{py, "-c", framework_script(), fw}, {}});
        framework_of.emplace_back(py, fw);
      }
    }
  }
  ChildGroup native_group;
  ChildGroup framework_group;
  native_group.start(native, options.timeout);
  framework_group.start(frameworks, options.framework_timeout);
  if (options.while_children_run) options.while_children_run();
  auto native_out = native_group.wait();

  Json section = Json::object();
  section["seed"] = options.seed;
  if (options.cuda_visible_devices_set) section["cuda_visible_devices"] = options.cuda_visible_devices;
  section["kernels"] = kernels_info();

  DriverAssembler driver(errors);
  if (plan.libcuda.empty()) {
    Json d = Json::object();
    d["library"] = nullptr;
    d["steps"] = Json::array({failed_step("find libcuda.so.1",
                                          "find libcuda.so.1 → the loader finds no libcuda.so.1: "
                                          "the NVIDIA driver's user-space library is missing")});
    d["devices"] = Json::array();
    d["status"] = "fail";
    section["driver"] = d;
  } else {
    auto log = read_child_log(native_out[0], options.timeout);
    driver.absorb(log);
    // A device whose call hung or crashed takes its process with it: the
    // devices after it get a fresh child each time.
    for (auto after = driver.resume_after(log); after; after = driver.resume_after(log)) {
      auto again = run_children({driver_spec(plan, options, *after + 1)}, options.timeout);
      log = read_child_log(again[0], options.timeout);
      driver.absorb(log);
    }
    section["driver"] = driver.finish(plan.libcuda);
  }

  Json nvrtc = Json::array();
  for (std::size_t i = nvrtc_first; i < native.size(); ++i) {
    nvrtc.push_back(nvrtc_section(native[i].argv[3], read_child_log(native_out[i], options.timeout), errors));
  }
  section["nvrtc"] = nvrtc;

  auto framework_out = framework_group.wait();
  Json fws = Json::array();
  for (std::size_t i = 0; i < framework_out.size(); ++i) {
    fws.push_back(framework_entry(framework_of[i].first, framework_of[i].second, framework_out[i],
                                  options.framework_timeout));
  }
  for (auto& a : known_absent) fws.push_back(std::move(a));
  // Grouped by interpreter, in the order the frameworks are listed.
  auto rank = [](const Json& f) {
    const auto& names = framework_names();
    return std::find(names.begin(), names.end(), f.value("framework", "")) - names.begin();
  };
  std::stable_sort(fws.begin(), fws.end(), [&](const Json& l, const Json& r) {
    auto lp = l.value("python", "");
    auto rp = r.value("python", "");
    return lp != rp ? lp < rp : rank(l) < rank(r);
  });
  section["frameworks"] = fws;

  bool pass = section["driver"].value("status", "") == "pass";
  for (const auto& n : nvrtc) pass = pass && n.value("status", "") == "pass";
  for (const auto& f : fws) pass = pass && f.value("status", "") != "fail";
  section["status"] = pass ? "pass" : "fail";
  section["first_failure"] = first_failure(section);
  section["total_ms"] = ms_since(start);
  return section;
}

int kernel_test_exit_code(const Json& section) { return section.value("status", "") == "pass" ? 0 : 1; }

}  // namespace cudiag::kernel_test
