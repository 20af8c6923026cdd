// explain's machine check for CTranslate2's "Requested float16 compute type, but the target device
// or backend do not support efficient float16 computation": on a GPU without FP16 tensor cores
// (compute capability below 7.0) the compute type is what to change; on one with them the model
// never reached the GPU (a CPU-only torch made WhisperX pick the CPU, or CTranslate2 found no CUDA
// device), so the framework's setup is.
#include <fmt/format.h>

#include "explain/machine_context.h"
#include "rules/rule_support.h"

namespace cudiag::explain {

void check_compute_type(const Context& c) {
  if (!c.fix.empty()) return;
  for (const auto& g : rules::gpus(c.report, c.kb)) {
    if (!g.cc) continue;
    const auto& cc = *g.cc;
    if (cc.major() >= 7) {
      c.fix = fmt::format(
          "{} (compute capability {}) runs float16 in CTranslate2, so the model is not on it but on the CPU: "
          "make the GPU the device (device='cuda'), install a CUDA build of PyTorch (pip install torch "
          "--index-url https://download.pytorch.org/whl/cu121; with a +cpu torch WhisperX picks the CPU), and "
          "put the cuBLAS and cuDNN of CTranslate2's CUDA on the loader's path; "
          "python -c \"import ctranslate2; print(ctranslate2.get_cuda_device_count())\" must print 1 or more.",
          g.label, cc.text());
      c.layer = "frameworks";
    } else {
      c.fix = fmt::format(
          "{} (compute capability {}) has no FP16 tensor cores, which CTranslate2's float16 needs: use "
          "compute_type='float32'{} (WhisperModel(..., compute_type=...), or the tool's --compute_type).",
          g.label, cc.text(), cc.major() == 6 && cc.minor() == 1 ? " or 'int8'" : "");
      c.layer = "binaries";
    }
    return;
  }
}

}  // namespace cudiag::explain
