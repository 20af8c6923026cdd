#pragma once
// Driver version -> newest PTX ISA its JIT accepts. A stopgap: this belongs
// to the knowledge base (src/kb/) and moves there once it exists; only
// cmd_inspect.cpp calls it. Table: shared/reference/nvidia-compat.md
// section 3 (driver branch -> CUDA version; NVIDIA release notes Table 3) and
// section 5 (CUDA version -> PTX ISA; PTX ISA "Release History").
#include <optional>

#include "core/version.h"
#include "inspect/gpu_arch.h"

namespace cudiag::inspect {

struct DriverPtxSupport {
  Version cuda;                   // the CUDA version the driver reports ("12.4")
  PtxIsa max_isa;                 // the newest PTX ISA it JIT-compiles
  bool newer_than_table = false;  // branch newer than every row: a lower bound
};

// "550.54.15" -> CUDA 12.4, PTX ISA 8.4. nullopt for branches older than R384.
std::optional<DriverPtxSupport> driver_ptx_support(const Version& driver);

}  // namespace cudiag::inspect
