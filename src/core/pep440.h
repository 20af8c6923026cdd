#pragma once
// PEP 440 version matching, as pip applies a wheel's Requires-Dist pins
// ("nvidia-cudnn-cu12==9.1.0.70"). Python packaging, not CUDA knowledge: the
// frameworks probe reads the pins, the framework rules judge them.
#include <string_view>

namespace cudiag {

// Whether `version` satisfies a PEP 440 specifier list such as ">=9.8,<10.0",
// "==12.8.*", "~=2.25". Local tags (+cu124) are ignored; pre-release letters
// make a component compare as its leading digits. Unknown operators: true.
bool version_satisfies(std::string_view version, std::string_view spec);

}  // namespace cudiag
