// Layer 5, `cuda_runtime`: every libcudart the machine offers, each asked in
// its own child (so two runtime versions never meet in one process) what it
// is and what it makes of the driver; and every toolkit with its nvcc.
#include <set>

#include "core/fact.h"
#include "core/version.h"
#include "probes/layer_probe.h"
#include "probes/toolkit_probe.h"

namespace cudiag::probes {
namespace {

class CudaRuntimeProbe : public LayerProbe {
 public:
  explicit CudaRuntimeProbe(const CollectOptions& options) : options_(options) {}
  const char* layer() const override { return "cuda_runtime"; }

  void plan(const ProbeContext& ctx, ChildBatch& batch) override {
    instances_ = ctx.search.find_all("libcudart.so");
    auto driver = ctx.search.loader_pick("libcuda.so.1");
    std::string driver_host =
        driver ? ctx.machine.root.host_path(ctx.machine.root.resolve(*driver).path.value_or(*driver)) : "";
    for (const auto& inst : instances_) {
      tickets_.push_back(inst.error.empty()
                             ? batch.add("cudart", {ctx.machine.root.host_path(inst.real_path), driver_host})
                             : kNone);
    }
  }

  // nvcc is scanned for its version banner (30 MB): do it while children run.
  void read_files(const ProbeContext& ctx) override { toolkits_ = probe_toolkits(ctx); }

  Json finish(const ProbeContext& ctx, const ChildBatch& batch, const Json&) override {
    Json layer = Json::object();
    Json runtimes = Json::array();
    std::set<std::string> versions;
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      const auto& inst = instances_[i];
      Json r = instance_json(inst, "");
      r.erase("picked_by_loader");
      if (tickets_[i] != kNone) {
        const Json& answer = batch.result(tickets_[i]);
        auto path = inst.real_path;
        auto failure = child_failure(answer);
        if (!failure.empty()) {
          r["load"] = unknown_fact(call_source(path, "dlopen"), failure);
          if (answer.contains("timed_out")) r["load"]["timed_out"] = true;
          if (answer.contains("signal")) r["load"]["signal"] = answer["signal"];
        } else {
          r["load"] = fact("loaded", call_source(path, "dlopen"));
          const Json& calls = answer.contains("calls") ? answer["calls"] : Json::object();
          r["runtime_version"] = version_fact(calls, "cudaRuntimeGetVersion", path);
          r["driver_version"] = version_fact(calls, "cudaDriverGetVersion", path);
          r["cudaGetDeviceCount"] =
              result_fact(calls.contains("cudaGetDeviceCount") ? calls["cudaGetDeviceCount"] : Json(),
                          call_source(path, "cudaGetDeviceCount"), "runtime", options_.error_name);
          if (calls.contains("cudaGetDeviceCount") && calls["cudaGetDeviceCount"].contains("value"))
            r["device_count"] = calls["cudaGetDeviceCount"]["value"];
          const Json& v = fact_value(r["runtime_version"]);
          if (v.is_string()) versions.insert(v.get<std::string>());
        }
      }
      runtimes.push_back(r);
    }
    layer["runtimes"] = runtimes;
    layer["distinct_versions"] = Json(std::vector<std::string>(versions.begin(), versions.end()));
    layer["toolkits"] = toolkits_["toolkits"];
    layer["nvcc_on_path"] = toolkits_["nvcc_on_path"];
    layer["conflicts"] = conflicts(ctx, layer);
    return layer;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  Json version_fact(const Json& calls, const char* name, const std::string& path) const {
    if (calls.contains(name) && calls[name].contains("value") && calls[name]["value"].is_number_integer()) {
      long v = calls[name]["value"].get<long>();
      Json f = fact(Version::from_cuda_int(v).text(), call_source(path, name));
      f["raw"] = v;
      return f;
    }
    return result_fact(calls.contains(name) ? calls[name] : Json(), call_source(path, name), "runtime",
                       options_.error_name);
  }

  // Toolkit facts that disagree with each other.
  static Json conflicts(const ProbeContext& ctx, const Json& layer) {
    Json out = Json::array();
    const auto& toolkits = layer["toolkits"];
    if (toolkits.size() > 1) {
      std::set<std::string> vs;
      for (const auto& t : toolkits) {
        if (fact_value(t["version"]).is_string()) vs.insert(fact_value(t["version"]).get<std::string>());
      }
      if (vs.size() > 1) out.push_back("several CUDA toolkits with different versions are installed");
    }
    const Json& nvcc = fact_value(layer["nvcc_on_path"]);
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
      auto home = ctx.machine.env.get(var);
      if (!home || !nvcc.is_object()) continue;
      auto home_real = ctx.machine.root.resolve(*home).path.value_or(*home);
      auto nvcc_root = nvcc["toolkit"].get<std::string>();
      if (normalize_path(home_real) != normalize_path(nvcc_root)) {
        out.push_back(std::string("nvcc on PATH (") + nvcc["path"].get<std::string>() + ") is from " +
                      nvcc_root + ", not from " + var + "=" + *home);
      }
    }
    return out;
  }

  const CollectOptions& options_;
  std::vector<machine::LibraryInstance> instances_;
  std::vector<std::size_t> tickets_;
  Json toolkits_;
};

}  // namespace

std::unique_ptr<LayerProbe> make_cuda_runtime_probe(const CollectOptions& options) {
  return std::make_unique<CudaRuntimeProbe>(options);
}

namespace {
const RegisterLayerProbe kCudaRuntimeProbe{{"cuda_runtime", 2, 2, make_cuda_runtime_probe}};
}  // namespace

}  // namespace cudiag::probes
