#include "core/env_allowlist.h"

#include <array>

namespace cudiag {

bool is_allowlisted_variable(std::string_view name) {
  static constexpr std::array<std::string_view, 14> kExact = {"CUDA_VISIBLE_DEVICES",
                                                              "NVIDIA_VISIBLE_DEVICES",
                                                              "NVIDIA_DRIVER_CAPABILITIES",
                                                              "NVIDIA_DISABLE_REQUIRE",
                                                              "CUDA_HOME",
                                                              "CUDA_PATH",
                                                              "LD_LIBRARY_PATH",
                                                              "LD_PRELOAD",
                                                              "CUDA_MODULE_LOADING",
                                                              "CONDA_PREFIX",
                                                              "VIRTUAL_ENV",
                                                              "CUDA_DEVICE_ORDER",
                                                              "CUDA_DISABLE_JIT",
                                                              "CUDA_FORCE_PTX_JIT"};
  for (auto n : kExact) {
    if (name == n) return true;
  }
  return name.starts_with("NVIDIA_REQUIRE_") || name.starts_with("CUDA_CACHE_") ||
         is_image_identity_variable(name);
}

bool is_image_identity_variable(std::string_view name) {
  // Set by the nvidia/cuda Dockerfiles (gitlab.com/nvidia/container-images/cuda,
  // dist/<ver>/<os>/base|runtime|devel/Dockerfile) and the NGC framework images.
  static constexpr std::array<std::string_view, 30> kExact = {"CUDA_VERSION",
                                                              "CUDA_DRIVER_VERSION",
                                                              "CUDNN_VERSION",
                                                              "NCCL_VERSION",
                                                              "CUBLAS_VERSION",
                                                              "CUFFT_VERSION",
                                                              "CURAND_VERSION",
                                                              "CUSPARSE_VERSION",
                                                              "CUSOLVER_VERSION",
                                                              "CUTENSOR_VERSION",
                                                              "NPP_VERSION",
                                                              "NVJPEG_VERSION",
                                                              "TRT_VERSION",
                                                              "TENSORRT_VERSION",
                                                              "DALI_VERSION",
                                                              "NSIGHT_SYSTEMS_VERSION",
                                                              "NSIGHT_COMPUTE_VERSION",
                                                              "OPENMPI_VERSION",
                                                              "PYTORCH_VERSION",
                                                              "PYTORCH_BUILD_VERSION",
                                                              "PYTORCH_BUILD_NUMBER",
                                                              "TENSORFLOW_VERSION",
                                                              "NVIDIA_PYTORCH_VERSION",
                                                              "NVIDIA_TENSORFLOW_VERSION",
                                                              "NVIDIA_BUILD_ID",
                                                              "NVIDIA_PRODUCT_NAME",
                                                              "TRITON_SERVER_VERSION",
                                                              "NVIDIA_TRITON_SERVER_VERSION",
                                                              "JAX_VERSION",
                                                              "NVIDIA_JAX_VERSION"};
  for (auto n : kExact) {
    if (name == n) return true;
  }
  // NV_CUDA_LIB_VERSION, NV_CUDA_CUDART_VERSION, NV_CUDNN_PACKAGE_NAME, NV_LIBNCCL_PACKAGE, ...
  if (!name.starts_with("NV_")) return false;
  for (std::string_view end : {"_VERSION", "_PACKAGE", "_PACKAGE_NAME"}) {
    if (name.ends_with(end)) return true;
  }
  return false;
}

}  // namespace cudiag
