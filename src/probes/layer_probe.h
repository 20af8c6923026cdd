#pragma once
// A layer whose facts come from NVIDIA libraries, in two steps: plan() asks
// for child probes (one per library instance), finish() turns their answers
// into the layer's facts once every child is done. New library-backed layers
// implement this and register a factory with RegisterLayerProbe (probes/probe_registry.h).
#include <memory>
#include <string>
#include <vector>

#include "core/collect_options.h"
#include "core/json.h"
#include "probes/child_batch.h"
#include "probes/probe_context.h"
#include "probes/probe_registry.h"

namespace cudiag::probes {

class LayerProbe {
 public:
  virtual ~LayerProbe() = default;
  virtual const char* layer() const = 0;
  // Before any layer searches the disk: start the child whose answer the
  // report waits for longest (the loader's libcuda and NVML), from what the
  // loader alone says. Most layers have none.
  virtual void start_early(const ProbeContext&, ChildBatch&) {}
  virtual void plan(const ProbeContext& ctx, ChildBatch& batch) = 0;
  // File reading this layer needs; runs while the children run.
  virtual void read_files(const ProbeContext&) {}
  virtual Json finish(const ProbeContext& ctx, const ChildBatch& batch, const Json& report) = 0;
};

std::unique_ptr<LayerProbe> make_nvml_probe(const CollectOptions& options);
std::unique_ptr<LayerProbe> make_driver_api_probe(const CollectOptions& options);
std::unique_ptr<LayerProbe> make_cuda_runtime_probe(const CollectOptions& options);
std::unique_ptr<LayerProbe> make_libraries_probe(const CollectOptions& options);

// Shared pieces of the library-backed layers.
Json instance_json(const machine::LibraryInstance& inst, const std::string& picked_path);
// A call's result as a fact: {"value": "CUDA_ERROR_NO_DEVICE", "code": 100, "source": ...}.
Json result_fact(const Json& call, const std::string& source, std::string_view api, const ErrorNamer& namer);
// The driver release in a libcuda/libnvidia-ml file name ("535.261.03"), or ""
// when the name carries only a soname suffix (libcuda.so.1, WSL's libcuda.so.1.1).
std::string driver_release_in_file_name(const machine::LibraryInstance& inst);
// Why a child gave no answer, or "" when it did.
std::string child_failure(const Json& answer);

}  // namespace cudiag::probes
