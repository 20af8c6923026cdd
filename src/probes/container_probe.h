#pragma once
// The report's top-level `container` key: what a process inside a container
// can see of its image. Official nvidia/cuda images and NGC framework images
// describe themselves in environment variables (CUDA_VERSION,
// NV_CUDA_LIB_VERSION, NVIDIA_PYTORCH_VERSION, NVIDIA_BUILD_ID, ...); the
// image's own OS is in /etc/os-release; the digest only the caller knows
// (`--image-digest`). Reads files and the environment only.
#include <string>
#include <string_view>

#include "core/json.h"
#include "probes/probe_context.h"

namespace cudiag::probes {

// Empty when `digest` is an image digest ("sha256:<64 hex>", optionally
// after "name@"), else what is wrong with it.
std::string image_digest_error(std::string_view digest);

// `image_digest` is empty when the caller gave none.
Json probe_container_image(const ProbeContext& ctx, const std::string& image_digest);

}  // namespace cudiag::probes
