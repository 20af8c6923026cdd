#include "model/library_catalog.h"

#include <fmt/format.h>

#include <array>

namespace cudiag::model {

namespace {

using K = VersionCallKind;

constexpr std::array<VersionCall, 2> kCudnn{
    {{"cudnnGetProperty", K::kProperty}, {"cudnnGetVersion", K::kSizeNoArg}}};
constexpr std::array<VersionCall, 1> kCublas{{{"cublasGetProperty", K::kProperty}}};
constexpr std::array<VersionCall, 2> kCublasLt{
    {{"cublasLtGetProperty", K::kProperty}, {"cublasLtGetVersion", K::kSizeNoArg}}};
constexpr std::array<VersionCall, 1> kNccl{{{"ncclGetVersion", K::kIntOut}}};
constexpr std::array<VersionCall, 1> kNvrtc{{{"nvrtcVersion", K::kTwoIntOut}}};
constexpr std::array<VersionCall, 1> kNvJitLink{{{"nvJitLinkVersion", K::kTwoIntOut}}};
constexpr std::array<VersionCall, 2> kCufft{
    {{"cufftGetProperty", K::kProperty}, {"cufftGetVersion", K::kIntOut}}};
constexpr std::array<VersionCall, 1> kCusparse{{{"cusparseGetProperty", K::kProperty}}};
constexpr std::array<VersionCall, 1> kCusolver{{{"cusolverGetProperty", K::kProperty}}};
constexpr std::array<VersionCall, 2> kCurand{
    {{"curandGetProperty", K::kProperty}, {"curandGetVersion", K::kIntOut}}};
constexpr std::array<VersionCall, 1> kCupti{{{"cuptiGetVersion", K::kUint32Out}}};
constexpr std::array<VersionCall, 1> kTensorRt{{{"getInferLibVersion", K::kIntNoArg}}};

constexpr std::array<LibraryKind, 12> kCatalog{{
    {"cudnn", "cuDNN", "libcudnn.so", kCudnn, 3},
    {"cublas", "cuBLAS", "libcublas.so", kCublas, 3},
    {"cublaslt", "cuBLASLt", "libcublasLt.so", kCublasLt, 3},
    {"nccl", "NCCL", "libnccl.so", kNccl, 3},
    {"nvrtc", "NVRTC", "libnvrtc.so", kNvrtc, 2},
    {"nvjitlink", "nvJitLink", "libnvJitLink.so", kNvJitLink, 2},
    {"cufft", "cuFFT", "libcufft.so", kCufft, 3},
    {"cusparse", "cuSPARSE", "libcusparse.so", kCusparse, 3},
    {"cusolver", "cuSOLVER", "libcusolver.so", kCusolver, 3},
    {"curand", "cuRAND", "libcurand.so", kCurand, 3},
    {"cupti", "CUPTI", "libcupti.so", kCupti, 0},
    {"tensorrt", "TensorRT", "libnvinfer.so", kTensorRt, 0},
}};

// major*scale_major + minor*100 + patch, the encoding of cuDNN >= 9, NCCL >= 2.9,
// cuBLASLt and TensorRT >= 10; the older cuDNN 8 / NCCL < 2.9 / TensorRT 8 use 1000.
std::string decode_mmp(long value, long new_scale_threshold) {
  long scale = value >= new_scale_threshold ? 10000 : 1000;
  return fmt::format("{}.{}.{}", value / scale, (value % scale) / 100, value % 100);
}

}  // namespace

std::span<const LibraryKind> library_catalog() { return kCatalog; }

const LibraryKind* find_library_kind(std::string_view key) {
  for (const auto& k : kCatalog) {
    if (key == k.key) return &k;
  }
  return nullptr;
}

std::string decode_library_version(std::string_view key, const Json& calls, std::string* how) {
  if (!calls.is_object()) return "";
  for (const auto& [symbol, rec] : calls.items()) {
    // Answers come from a child or the answer cache: a field of another type is no answer.
    auto integer = [&](const char* k) { return rec.contains(k) && rec[k].is_number_integer(); };
    if (!rec.is_object() || !integer("result") || rec["result"] != 0) continue;
    if (integer("major") && integer("minor") && (!rec.contains("patch") || integer("patch"))) {
      if (how) *how = symbol;
      if (rec.contains("patch"))
        return fmt::format("{}.{}.{}", rec["major"].get<long>(), rec["minor"].get<long>(),
                           rec["patch"].get<long>());
      return fmt::format("{}.{}", rec["major"].get<long>(), rec["minor"].get<long>());
    }
    if (!rec.contains("value") || !rec["value"].is_number_integer()) continue;
    long v = rec["value"].get<long>();
    std::string out;
    if (key == "cudnn")
      out = decode_mmp(v, 90000);
    else if (key == "nccl")
      out = decode_mmp(v, 20900);
    else if (key == "tensorrt")
      out = decode_mmp(v, 100000);
    else if (key == "cublaslt")
      out = decode_mmp(v, 0);
    else if (key == "cupti")
      out = fmt::format("API {}", v);
    if (!out.empty()) {
      if (how) *how = symbol;
      return out;
    }
  }
  return "";
}

}  // namespace cudiag::model
