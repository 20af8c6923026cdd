#pragma once
// Dotted numeric versions ("535.104.05", "12.4", "9.1.0.70") compared the way
// NVIDIA's tools do: component by component, missing components are 0, so
// "470" == "470.0". Leading zeros ("05") are kept in the text for display.
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudiag {

class Version {
 public:
  Version() = default;
  static std::optional<Version> parse(std::string_view text);
  // CUDA's integer encoding: 1000*major + 10*minor (12040 -> 12.4).
  static Version from_cuda_int(long encoded);

  const std::vector<long>& parts() const { return parts_; }
  long major() const { return part(0); }
  long minor() const { return part(1); }
  long part(std::size_t i) const { return i < parts_.size() ? parts_[i] : 0; }
  const std::string& text() const { return text_; }
  bool empty() const { return parts_.empty(); }
  long to_cuda_int() const { return major() * 1000 + minor() * 10; }
  // The tag of the wheels built for this CUDA release: 12.1 -> "cu121" (PyTorch's index, +cu121).
  std::string cuda_tag() const { return "cu" + std::to_string(major()) + std::to_string(minor()); }

  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const { return (*this <=> other) == 0; }

 private:
  std::vector<long> parts_;
  std::string text_;
};

}  // namespace cudiag
