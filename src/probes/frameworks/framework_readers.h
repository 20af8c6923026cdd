#pragma once
// One reader per framework: what it is, how it was built, which CUDA
// libraries it asks for and where the loader would find them. Each reads
// files only (metadata, the build-record .py files, ELF headers of its
// shared objects) and returns the framework's entry in the `frameworks` layer,
// or null when the framework is not installed in that environment.
#include <string>
#include <vector>

#include "core/json.h"
#include "machine/site_packages.h"
#include "probes/probe_context.h"

namespace cudiag::probes {

struct InstalledDist {
  machine::Distribution dist;
  std::string site_packages;  // the directory it is installed in
};

struct NvidiaWheel {
  std::string name;       // "nvidia-cudnn-cu12"
  std::string component;  // "cudnn", "cuda-runtime", "nvjitlink" (name without nvidia- and the -cuNN suffix)
  std::string version;
  long cuda_major = 0;  // from the -cuNN suffix; toolkit wheels without one are CUDA 13
  std::string lib_dir;  // site-packages/nvidia/<dir>/lib, "" when absent
  std::string metadata_path;
};

// What the readers share for one environment.
struct EnvContents {
  std::vector<std::string> site_packages;  // import order
  std::vector<InstalledDist> dists;        // first of each name in import order
  std::vector<NvidiaWheel> nvidia_wheels;

  const InstalledDist* find(const std::string& normalized_name) const;
  // The site-packages directory holding `relative` (e.g. "torch/version.py"), first in import order.
  std::string locate(const FsRoot& root, const std::string& relative) const;
};

// torch's companion packages: each release's compiled ops are built against one torch release.
inline constexpr const char* kTorchCompanions[] = {"torchvision", "torchaudio", "torchcodec"};

// Whether a distribution name is one the readers look at (frameworks, their plugins, torch's
// companions, nvidia-* wheels).
bool is_framework_related(const std::string& normalized_name);
NvidiaWheel nvidia_wheel_of(const FsRoot& root, const InstalledDist& d);

Json read_torch(const ProbeContext& ctx, const EnvContents& env);
Json read_tensorflow(const ProbeContext& ctx, const EnvContents& env);
Json read_jax(const ProbeContext& ctx, const EnvContents& env);
Json read_cupy(const ProbeContext& ctx, const EnvContents& env);
Json read_onnxruntime(const ProbeContext& ctx, const EnvContents& env);
Json read_numba(const ProbeContext& ctx, const EnvContents& env);

}  // namespace cudiag::probes
