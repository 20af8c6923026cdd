#pragma once
// Pieces every framework reader shares: the distribution's identity, its
// Requires-Dist on CUDA wheels, a shared object's ELF facts and device-code
// architectures, and the loader's choice for each CUDA library it needs.
#include <string>

#include "core/json.h"
#include "probes/frameworks/framework_loader.h"
#include "probes/frameworks/framework_readers.h"

namespace cudiag::probes {

// {"package", "version" (fact from METADATA), "location"}.
Json dist_json(const InstalledDist& d);
// Requires-Dist entries naming CUDA wheels (nvidia-*, cuda-*, jax-cuda*, cupy-cuda*).
Json cuda_requirements_json(const machine::Distribution& d);
// The nvidia-* wheel component that ships a library ("cudart" -> "cuda-runtime",
// "cupti" -> "cuda-cupti"; also the stem in CUDA 13's shared nvidia/cu13/lib).
std::string wheel_component_for(const std::string& library);
// "2.4.0+cu124" -> "cu124"; "" without a local tag.
std::string local_version_tag(const std::string& version);
// A shared object's DT_NEEDED/RPATH/RUNPATH and, with `architectures`, the
// SASS and PTX targets of its fatbins (headers only, see inspect/inspect.h).
// With `remember`, the answer for an unchanged file comes from ctx.answers.
Json binary_json(const ProbeContext& ctx, const std::string& path, bool architectures, bool remember = false);
// binary_json of an object whose dynamic section is already read (no architectures).
Json binary_json(const DynamicObject& obj);
// The dynamic section a binary_json records, for the loader, without reading the file again.
DynamicObject dynamic_object_of(const std::string& path, const Json& binary);
// The loader's choices, each with the version of the file it picks: the
// nvidia-* wheel's version when the file is in a wheel, else its file name's.
Json resolved_json(const ProbeContext& ctx, const EnvContents& env, const LoaderEmulation& loader);
LoaderEmulation make_loader(const ProbeContext& ctx);

}  // namespace cudiag::probes
