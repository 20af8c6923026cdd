#include "inspect/arch_compat.h"

namespace cudiag::inspect {

bool cc_less(const GpuArch& a, const GpuArch& b) {
  return a.major != b.major ? a.major < b.major : a.minor < b.minor;
}

bool sass_runs_on(const GpuArch& image, const GpuArch& device) {
  if (image.variant == ArchVariant::kA) return image.major == device.major && image.minor == device.minor;
  // Plain and 'f' SASS agree: both stay inside one major number.
  return image.major == device.major && device.minor >= image.minor;
}

bool ptx_jits_for(const GpuArch& image, const GpuArch& device) {
  switch (image.variant) {
    case ArchVariant::kA:
      return image.major == device.major && image.minor == device.minor;
    case ArchVariant::kF:
      return image.major == device.major && device.minor >= image.minor;
    case ArchVariant::kNone:
      break;
  }
  return !cc_less(device, image);
}

}  // namespace cudiag::inspect
