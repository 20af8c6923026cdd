// Layer 3, `nvml`: which libnvidia-ml.so.1 the loader picks and what NVML
// says through it: nvmlInit_v2, the driver and CUDA versions, each GPU.
#include "core/fact.h"
#include "core/version.h"
#include "probes/layer_probe.h"

namespace cudiag::probes {
namespace {

class NvmlProbe : public LayerProbe {
 public:
  explicit NvmlProbe(const CollectOptions& options) : options_(options) {}
  const char* layer() const override { return "nvml"; }

  // Started before any search for every copy, so nvmlInit runs meanwhile; a
  // picked file is always among the copies.
  void start_early(const ProbeContext& ctx, ChildBatch& batch) override {
    picked_ = ctx.search.loader_pick("libnvidia-ml.so.1").value_or("");
    if (!picked_.empty()) {
      auto resolved = ctx.machine.root.resolve(picked_);
      picked_ = resolved.path.value_or(picked_);
      if (resolved) ticket_ = batch.add("nvml", {ctx.machine.root.host_path_followed(picked_)});
    }
  }

  void plan(const ProbeContext& ctx, ChildBatch&) override {
    instances_ = ctx.search.find_all("libnvidia-ml.so");
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      if (instances_[i].real_path == picked_ && instances_[i].error.empty()) picked_index_ = i;
    }
  }

  Json finish(const ProbeContext&, const ChildBatch& batch, const Json&) override {
    Json layer = Json::object();
    Json candidates = Json::array();
    for (const auto& inst : instances_) candidates.push_back(instance_json(inst, picked_));
    layer["candidates"] = candidates;
    const std::string loader_src = "loader:libnvidia-ml.so.1";
    if (picked_index_ == kNone || ticket_ == kNone) {
      layer["picked"] = unknown_fact(loader_src, "no libnvidia-ml.so.1 on the loader's search path");
      return layer;
    }
    const auto& inst = instances_[picked_index_];
    const auto& path = inst.real_path;
    layer["picked"] = fact(path, loader_src);
    const std::string release = driver_release_in_file_name(inst);
    layer["library_version"] = release.empty()
                                   ? unknown_fact(file_source(path), "no driver release in the file name")
                                   : fact(release, file_source(path));
    const Json& answer = batch.result(ticket_);
    auto failure = child_failure(answer);
    if (!failure.empty()) {
      layer["load"] = unknown_fact(call_source(path, "dlopen"), failure);
      if (answer.contains("timed_out")) layer["load"]["timed_out"] = true;
      if (answer.contains("signal")) layer["load"]["signal"] = answer["signal"];
      return layer;
    }
    layer["load"] = fact("loaded", call_source(path, "dlopen"));
    const Json& calls = answer.contains("calls") ? answer["calls"] : Json::object();
    layer["nvmlInit"] = result_fact(calls.contains("nvmlInit_v2") ? calls["nvmlInit_v2"] : Json(),
                                    call_source(path, "nvmlInit_v2"), "nvml", options_.error_name);
    auto value_of = [&](const char* call) -> Json {
      if (calls.contains(call) && calls[call].contains("value")) return calls[call]["value"];
      return nullptr;
    };
    auto dv = value_of("nvmlSystemGetDriverVersion");
    layer["driver_version"] =
        dv.is_string() ? fact(dv, call_source(path, "nvmlSystemGetDriverVersion"))
                       : unknown_fact(call_source(path, "nvmlSystemGetDriverVersion"), "nvmlInit failed");
    auto cv = value_of("nvmlSystemGetCudaDriverVersion");
    if (cv.is_number_integer()) {
      Json f = fact(Version::from_cuda_int(cv.get<long>()).text(),
                    call_source(path, "nvmlSystemGetCudaDriverVersion"));
      f["raw"] = cv;
      layer["cuda_driver_version"] = f;
    } else {
      layer["cuda_driver_version"] =
          unknown_fact(call_source(path, "nvmlSystemGetCudaDriverVersion"), "nvmlInit failed");
    }
    auto count = value_of("nvmlDeviceGetCount_v2");
    layer["device_count"] = count.is_number()
                                ? fact(count, call_source(path, "nvmlDeviceGetCount_v2"))
                                : unknown_fact(call_source(path, "nvmlDeviceGetCount_v2"), "nvmlInit failed");
    layer["gpus"] = answer.contains("devices") ? answer["devices"] : Json::array();
    if (answer.contains("nvml_version"))
      layer["nvml_version"] = fact(answer["nvml_version"], call_source(path, "nvmlSystemGetNVMLVersion"));
    return layer;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const CollectOptions& options_;
  std::vector<machine::LibraryInstance> instances_;
  std::string picked_;
  std::size_t picked_index_ = kNone;
  std::size_t ticket_ = kNone;
};

}  // namespace

std::unique_ptr<LayerProbe> make_nvml_probe(const CollectOptions& options) {
  return std::make_unique<NvmlProbe>(options);
}

namespace {
const RegisterLayerProbe kNvmlProbe{{"nvml", 0, 1, make_nvml_probe}};
}  // namespace

}  // namespace cudiag::probes
