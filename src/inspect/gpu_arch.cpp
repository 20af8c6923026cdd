#include "inspect/gpu_arch.h"

#include <fmt/format.h>

#include <charconv>

namespace cudiag::inspect {

namespace {

// Parses a run of decimal digits at the front of `text`; advances past it.
std::optional<int> take_number(std::string_view& text) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(ptr - text.data()));
  return value;
}

std::optional<ArchVariant> take_variant(std::string_view text) {
  if (text.empty()) return ArchVariant::kNone;
  if (text == "a") return ArchVariant::kA;
  if (text == "f") return ArchVariant::kF;
  return std::nullopt;
}

}  // namespace

GpuArch GpuArch::from_number(std::uint32_t number, ArchVariant variant) {
  return GpuArch{static_cast<int>(number / 10), static_cast<int>(number % 10), variant};
}

std::optional<GpuArch> parse_gpu_arch(std::string_view text) {
  for (std::string_view prefix : {"sm_", "compute_", "lto_"}) {
    if (text.starts_with(prefix)) {
      text.remove_prefix(prefix.size());
      break;
    }
  }
  auto first = take_number(text);
  if (!first || *first < 0) return std::nullopt;
  GpuArch arch;
  if (text.starts_with('.')) {  // "12.0", "9.0a": a compute capability
    text.remove_prefix(1);
    auto second = take_number(text);
    if (!second || *second < 0 || *second > 9 || *first > 99) return std::nullopt;
    arch.major = *first;
    arch.minor = *second;
  } else {  // "120", "sm_90": the decimal arch number
    if (*first < 10 || *first > 999) return std::nullopt;
    arch = GpuArch::from_number(static_cast<std::uint32_t>(*first));
  }
  auto variant = take_variant(text);
  if (!variant) return std::nullopt;
  arch.variant = *variant;
  return arch;
}

std::string variant_suffix(ArchVariant variant) {
  switch (variant) {
    case ArchVariant::kA:
      return "a";
    case ArchVariant::kF:
      return "f";
    case ArchVariant::kNone:
      break;
  }
  return "";
}

std::string sm_name(const GpuArch& arch) {
  return fmt::format("sm_{}{}", arch.number(), variant_suffix(arch.variant));
}
std::string compute_name(const GpuArch& arch) {
  return fmt::format("compute_{}{}", arch.number(), variant_suffix(arch.variant));
}
std::string cc_name(const GpuArch& arch) { return fmt::format("{}.{}", arch.major, arch.minor); }

std::string PtxIsa::text() const { return fmt::format("{}.{}", major, minor); }

std::optional<PtxIsa> parse_ptx_isa(std::string_view text) {
  auto major = take_number(text);
  if (!major || !text.starts_with('.')) return std::nullopt;
  text.remove_prefix(1);
  auto minor = take_number(text);
  if (!minor || !text.empty() || *major < 0 || *minor < 0) return std::nullopt;
  return PtxIsa{*major, *minor};
}

}  // namespace cudiag::inspect
