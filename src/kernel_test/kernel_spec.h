#pragma once
// The one kernel `cudiag test` runs, as both sides see it: the children that
// launch it and the test doubles that emulate it. y[i] = fma(a, x[i], b) over
// kElements floats; the host recomputes every element with std::fma and
// compares bit for bit (the kernel uses a single correctly rounded fma, so
// there is exactly one right answer).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudiag::kernel_test {

inline constexpr const char* kEntryName = "cudiag_axpy";
inline constexpr unsigned kElements = 1u << 20;  // 1M floats: big enough to need many blocks
inline constexpr unsigned kBlockSize = 256;

// The kernel's inputs. A fresh random x per run, so a result left over from
// an earlier run (or never written) cannot pass.
struct AxpyInputs {
  std::vector<float> x;
  float a = 0;
  float b = 0;
  std::uint64_t seed = 0;
};

AxpyInputs random_inputs(std::uint64_t seed, unsigned elements = kElements);

// The first element where y differs from fma(a, x, b), bit for bit; nullopt when all match.
struct Mismatch {
  std::size_t index = 0;
  float expected = 0;
  float got = 0;
};
std::optional<Mismatch> first_mismatch(const AxpyInputs& in, const std::vector<float>& y);

// The embedded kernels (cmake/kernels.cmake).
std::string_view embedded_ptx();     // NUL-terminated; the checked-in axpy.ptx
std::string_view embedded_fatbin();  // empty when the build had no nvcc
// SM numbers with SASS in the fatbin (75, 80, ...); empty without nvcc.
std::vector<int> sass_archs();
std::string sass_nvcc_version();

// "6.0" and "sm_50" from the PTX's .version/.target lines ("" when absent).
std::string ptx_directive(std::string_view ptx, std::string_view directive);

}  // namespace cudiag::kernel_test
