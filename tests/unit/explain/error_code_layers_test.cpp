// Every CUDA runtime, driver API and NVML code in the knowledge base carries
// its own layer and remedy (data/kb/error_codes.json, generated from the
// headers by scripts/gen_cuda_error_codes.py; the ctest
// kb_error_codes_cover_headers checks the headers against it), and explain
// names a code's layer from it: "no device" is the host (CUDA_VISIBLE_DEVICES
// hides the GPUs, the usual cause), the runtime's insufficient driver the
// driver API (the driver must change), NVML's "driver not loaded" the kernel
// module.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "explain/explain.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {
namespace {

const kb::KnowledgeBase& builtin() { return kb::KnowledgeBase::builtin(); }

TEST(ErrorCodeLayersTest, EveryRuntimeDriverAndNvmlCodeHasALayerAndARemedy) {
  int checked = 0;
  for (const auto& e : builtin().errors()) {
    if (e.code == 0 || (e.api != "runtime" && e.api != "driver" && e.api != "nvml")) continue;
    ++checked;
    EXPECT_FALSE(e.layer.empty()) << e.api << " " << e.name;
    EXPECT_GE(e.note.size(), 40u) << e.api << " " << e.name << ": no remedy";
  }
  // CUDA 13's driver_types.h (133 errors) + cuda.h (100) + nvml.h (31); fewer means rows were lost.
  EXPECT_GE(checked, 263);
}

std::string layer_of(const std::string& message) {
  ExplainOptions o;
  o.require_context = false;
  auto found = explain_text(message, builtin(), o);
  return found.empty() ? "" : found.front().layer;
}

TEST(ErrorCodeLayersTest, ExplainNamesEachCodesOwnLayer) {
  EXPECT_EQ(layer_of("CUDA_ERROR_NO_DEVICE"), "host");
  EXPECT_EQ(layer_of("cudaErrorInsufficientDriver"), "driver_api");
  EXPECT_EQ(layer_of("NVML_ERROR_DRIVER_NOT_LOADED"), "kernel_driver");
  EXPECT_EQ(layer_of("NVML_ERROR_LIB_RM_VERSION_MISMATCH"), "kernel_driver");
  EXPECT_EQ(layer_of("cudaErrorNoKernelImageForDevice"), "binaries");
  EXPECT_EQ(layer_of("CUDA_ERROR_ECC_UNCORRECTABLE"), "kernel_driver");
  EXPECT_EQ(layer_of("cudaErrorOperatingSystem"), "host");
  EXPECT_EQ(layer_of("CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"), "libraries");
}

TEST(ErrorCodeLayersTest, TheRemedyIsTheCodesOwnNotAGenericOne) {
  ExplainOptions o;
  o.require_context = false;
  auto found = explain_text("nvmlInit failed: NVML_ERROR_INSUFFICIENT_POWER", builtin(), o);
  ASSERT_FALSE(found.empty());
  ASSERT_FALSE(found.front().errors.empty());
  EXPECT_NE(found.front().errors.front().note.find("power"), std::string::npos);
  EXPECT_EQ(found.front().layer, "kernel_driver");
}

// cuFFT's, cuRAND's, cuSOLVER's and cuSPARSE's statuses come from their headers too
// (scripts/gen_library_status_codes.py): a status in a pasted message is named with its library's
// meaning, and a wrong argument is not blamed on the environment.
TEST(ErrorCodeLayersTest, TheMathLibrariesStatusesAreNamed) {
  ExplainOptions o;
  o.require_context = false;
  struct Case {
    const char* text;
    const char* name;
    const char* api;
    const char* note_word;
  } cases[] = {
      {"RuntimeError: cusolver error: CUSOLVER_STATUS_INTERNAL_ERROR, when calling `cusolverDnCreate(handle)`",
       "CUSOLVER_STATUS_INTERNAL_ERROR", "cusolver", "cusolverDnCreate"},
      {"curandCreateGenerator failed: CURAND_STATUS_INITIALIZATION_FAILED",
       "CURAND_STATUS_INITIALIZATION_FAILED", "curand", "CUDA context"},
      {"cufftPlanMany returned CUFFT_INVALID_SIZE", "CUFFT_INVALID_SIZE", "cufft", "calling program"},
      {"cusparse error CUSPARSE_STATUS_INSUFFICIENT_RESOURCES", "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
       "cusparse", "memory"},
  };
  for (const auto& c : cases) {
    auto found = explain_text(c.text, builtin(), o);
    ASSERT_FALSE(found.empty()) << c.text;
    const auto& errors = found.front().errors;
    auto it = std::find_if(errors.begin(), errors.end(), [&](const auto& e) { return e.name == c.name; });
    ASSERT_NE(it, errors.end()) << c.text;
    EXPECT_EQ(it->api, c.api);
    EXPECT_NE(it->note.find(c.note_word), std::string::npos) << c.name << ": " << it->note;
  }
  // cufft.h's other CUFFT_ names (transform types, directions) are not statuses.
  EXPECT_EQ(builtin().error_named("CUFFT_FORWARD"), nullptr);
}

}  // namespace
}  // namespace cudiag::explain
