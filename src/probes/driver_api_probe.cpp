// Layer 4, `driver_api`: every libcuda.so.1 the loader could pick, the one it
// does pick, and what each answers: cuDriverGetVersion, cuInit, devices.
#include <utility>

#include "core/fact.h"
#include "core/version.h"
#include "probes/layer_probe.h"

namespace cudiag::probes {
namespace {

class DriverApiProbe : public LayerProbe {
 public:
  explicit DriverApiProbe(const CollectOptions& options) : options_(options) {}
  const char* layer() const override { return "driver_api"; }

  // cuInit is the longest call of a report: the libcuda the loader picks is
  // started before anything else, the other copies once they are found.
  void start_early(const ProbeContext& ctx, ChildBatch& batch) override {
    picked_ = ctx.search.loader_pick("libcuda.so.1").value_or("");
    if (auto resolved = picked_.empty() ? ResolveResult{} : ctx.machine.root.resolve(picked_)) {
      early_real_ = *resolved.path;
      early_ticket_ = batch.add("libcuda", {ctx.machine.root.host_path(early_real_)});
    }
  }

  void plan(const ProbeContext& ctx, ChildBatch& batch) override {
    instances_ = ctx.search.find_all("libcuda.so");
    for (const auto& inst : instances_) {
      if (!inst.error.empty()) {
        tickets_.push_back(kNoTicket);
      } else if (inst.real_path == early_real_ && early_ticket_ != kNoTicket) {
        tickets_.push_back(std::exchange(early_ticket_, kNoTicket));
      } else {
        tickets_.push_back(batch.add("libcuda", {ctx.machine.root.host_path(inst.real_path)}));
      }
    }
  }

  Json finish(const ProbeContext& ctx, const ChildBatch& batch, const Json& report) override {
    Json layer = Json::object();
    Json candidates = Json::array();
    const Json* picked_answer = nullptr;
    const machine::LibraryInstance* picked_inst = nullptr;
    auto picked_real =
        picked_.empty() ? std::string() : ctx.machine.root.resolve(picked_).path.value_or(picked_);
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      Json c = instance_json(instances_[i], picked_real);
      if (tickets_[i] != kNoTicket) {
        const Json& answer = batch.result(tickets_[i]);
        c["probe"] = summarize(answer, instances_[i].real_path);
        if (c["picked_by_loader"].get<bool>()) {
          picked_answer = &answer;
          picked_inst = &instances_[i];
        }
      }
      c["forward_compat_package"] = is_compat_path(instances_[i].real_path);
      candidates.push_back(c);
    }
    layer["candidates"] = candidates;
    auto loader_src = std::string("loader:libcuda.so.1");
    layer["picked"] = picked_.empty()
                          ? unknown_fact(loader_src, "no libcuda.so.1 on the loader's search path")
                          : fact(picked_real, loader_src);
    if (picked_inst == nullptr || picked_answer == nullptr) {
      layer["library_version"] = unknown_fact(loader_src, "no libcuda to load");
      return layer;
    }
    const auto& src_path = picked_inst->real_path;
    const std::string release = driver_release_in_file_name(*picked_inst);
    layer["library_version"] = release.empty()
                                   ? unknown_fact(file_source(src_path), "no driver release in the file name")
                                   : fact(release, file_source(src_path));
    layer["forward_compat_package"] = fact(is_compat_path(src_path), file_source(src_path));
    Json summary = summarize(*picked_answer, src_path);
    for (auto& [k, v] : summary.items()) layer[k] = v;
    // The user-space driver and the kernel module must be the same release.
    const Json& kmod = fact_value(report["kernel_driver"]["version"]);
    if (kmod.is_string() && !release.empty()) {
      Json m = fact(kmod.get<std::string>() != release,
                    "compare:kernel_driver.version,driver_api.library_version");
      m["kernel_module"] = kmod;
      m["user_space"] = release;
      layer["kernel_module_mismatch"] = m;
    }
    return layer;
  }

 private:
  static constexpr std::size_t kNoTicket = static_cast<std::size_t>(-1);

  static bool is_compat_path(const std::string& path) { return path.find("/compat/") != std::string::npos; }

  Json summarize(const Json& answer, const std::string& path) const {
    Json s = Json::object();
    auto failure = child_failure(answer);
    if (!failure.empty()) {
      s["load"] = unknown_fact(call_source(path, "dlopen"), failure);
      if (answer.contains("timed_out")) s["load"]["timed_out"] = true;
      if (answer.contains("signal")) s["load"]["signal"] = answer["signal"];
      return s;
    }
    s["load"] = fact("loaded", call_source(path, "dlopen"));
    s["load"]["ms"] = answer.value("load_ms", 0.0);
    const Json& calls = answer.contains("calls") ? answer["calls"] : Json::object();
    if (calls.contains("cuDriverGetVersion")) {
      const auto& c = calls["cuDriverGetVersion"];
      if (c.contains("value") && c["value"].is_number_integer()) {
        long v = c["value"].get<long>();
        Json f = fact(Version::from_cuda_int(v).text(), call_source(path, "cuDriverGetVersion"));
        f["raw"] = v;
        s["cuda_driver_version"] = f;
      } else {
        s["cuda_driver_version"] =
            result_fact(c, call_source(path, "cuDriverGetVersion"), "driver", options_.error_name);
      }
    }
    s["cuInit"] = result_fact(calls.contains("cuInit") ? calls["cuInit"] : Json(),
                              call_source(path, "cuInit"), "driver", options_.error_name);
    if (calls.contains("cuDeviceGetCount") && calls["cuDeviceGetCount"].contains("value")) {
      s["device_count"] = fact(calls["cuDeviceGetCount"]["value"], call_source(path, "cuDeviceGetCount"));
    } else {
      s["device_count"] = unknown_fact(call_source(path, "cuDeviceGetCount"), "cuInit did not succeed");
    }
    s["devices"] = answer.contains("devices") ? answer["devices"] : Json::array();
    return s;
  }

  const CollectOptions& options_;
  std::vector<machine::LibraryInstance> instances_;
  std::vector<std::size_t> tickets_;
  std::string picked_;
  std::string early_real_;  // the loader's pick, resolved, started early
  std::size_t early_ticket_ = kNoTicket;
};

}  // namespace

std::unique_ptr<LayerProbe> make_driver_api_probe(const CollectOptions& options) {
  return std::make_unique<DriverApiProbe>(options);
}

namespace {
// cuInit is the longest call of a collection: its child starts first.
const RegisterLayerProbe kDriverApiProbe{{"driver_api", 1, 0, make_driver_api_probe}};
}  // namespace

}  // namespace cudiag::probes
