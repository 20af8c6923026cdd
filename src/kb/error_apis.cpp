#include "kb/records.h"

namespace cudiag::kb {

namespace {

constexpr ErrorApi kApis[] = {
    {"driver", "CUDA_", "driver API", "CUresult"},
    {"runtime", "cuda", "runtime API", "cudaError_t"},
    {"nvml", "NVML_", "NVML", "nvmlReturn_t"},
    {"cublas", "CUBLAS_STATUS_", "cuBLAS", "cublasStatus_t"},
    {"cudnn", "CUDNN_STATUS_", "cuDNN", "cudnnStatus_t"},
    {"nccl", "nccl", "NCCL", "ncclResult_t"},
    {"cufft", "CUFFT_", "cuFFT", "cufftResult"},
    {"curand", "CURAND_STATUS_", "cuRAND", "curandStatus_t"},
    {"cusolver", "CUSOLVER_STATUS_", "cuSOLVER", "cusolverStatus_t"},
    {"cusparse", "CUSPARSE_STATUS_", "cuSPARSE", "cusparseStatus_t"},
};

}  // namespace

const ErrorApi* error_api(std::string_view api) {
  for (const auto& a : kApis) {
    if (a.api == api) return &a;
  }
  return nullptr;
}

std::string_view error_api_names() {
  return "driver, runtime, nvml, cublas, cudnn, nccl, cufft, curand, cusolver or cusparse";
}

}  // namespace cudiag::kb
