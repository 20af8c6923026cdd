#pragma once
// GPU architecture names as nvcc, cuobjdump and users write them: "sm_90a",
// "compute_100f", "sm_120", "12.0", "90". Fatbin entries store the arch as a
// decimal number (90, 100, 121) with the a/f suffix in separate flag bits;
// this type holds both halves so names and compatibility rules agree.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cudiag::inspect {

// 'a' = architecture-specific (runs only on that exact compute capability),
// 'f' = family-specific (runs on that CC and later ones of the same family).
enum class ArchVariant { kNone, kA, kF };

struct GpuArch {
  int major = 0;  // compute capability 12.1 -> major 12, minor 1
  int minor = 0;
  ArchVariant variant = ArchVariant::kNone;

  // The number fatbins and nvcc use: 10*major + minor (75, 90, 100, 121).
  int number() const { return major * 10 + minor; }
  bool operator==(const GpuArch&) const = default;

  static GpuArch from_number(std::uint32_t number, ArchVariant variant = ArchVariant::kNone);
};

// Accepts "sm_90a", "compute_100f", "lto_90", "sm_120", "120", "12.0", "9.0a".
// Returns nullopt for anything else (including an empty or absurd number).
std::optional<GpuArch> parse_gpu_arch(std::string_view text);

std::string variant_suffix(ArchVariant variant);  // "", "a", "f"
std::string sm_name(const GpuArch& arch);         // "sm_90a"
std::string compute_name(const GpuArch& arch);    // "compute_90a"
std::string cc_name(const GpuArch& arch);         // "9.0"

// A PTX ISA version (".version 8.4"), ordered numerically.
struct PtxIsa {
  int major = 0;
  int minor = 0;
  auto operator<=>(const PtxIsa&) const = default;
  bool empty() const { return major == 0 && minor == 0; }
  std::string text() const;  // "8.4"
};

// "8.4" -> {8, 4}; nullopt when malformed.
std::optional<PtxIsa> parse_ptx_isa(std::string_view text);

}  // namespace cudiag::inspect
