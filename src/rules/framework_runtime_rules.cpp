// TensorFlow finds the CUDA runtime on the system: it dlopens the libcudart
// soname of the CUDA it was built with (libcudart.so.10.1 for a CUDA 10.1
// build: sonames carry the minor up to CUDA 10.2 and only the major from CUDA
// 11 on). When the machine's runtimes are known and none has that soname,
// TensorFlow runs on the CPU ("Could not load dynamic library
// 'libcudart.so.10.1'"), whatever else is installed. A release's CUDA comes
// from the framework matrix (TensorFlow's tested build configurations).
#include <fmt/format.h>

#include "kb/framework_matrix.h"
#include "model/cuda_runtimes.h"
#include "rules/engine.h"
#include "rules/framework_support.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"

namespace cudiag::rules {
namespace {

const RegisterRuleTable kRuleTable{
    {.id = "frameworks.cuda_runtime_soname_missing",
     // The runtime is what is missing, and what users install to fix it.
     .layer = "cuda_runtime",
     .severity = "error",
     .when = "A TensorFlow build's CUDA needs a libcudart soname (10.1: `libcudart.so.10.1`; 11.x: "
             "`libcudart.so.11.0`) that no CUDA runtime on the machine has, while the runtimes are known "
             "(collected, pasted or `--assume cuda_runtime`) and no nvidia-cuda-runtime wheel is in the "
             "environment.",
     .covered_by = "scenario tensorflow-built-for-other-cuda-runtime",
     .message =
         "{framework} was built with CUDA {built} and loads {soname}, but the CUDA runtime here is {have}: TensorFlow will not find it and runs on the CPU",
     .remediation =
         "Install the CUDA {built} runtime (and cuDNN {cudnn}) that {framework} was built with beside the other one, or install a TensorFlow release built for CUDA {have_major} (TensorFlow's tested build configurations: https://www.tensorflow.org/install/source#gpu)"},
};

// The soname a CUDA release's runtime has: the knowledge base's library_sonames
// (libcudart.so.11.0 for every 11.x, libcudart.so.12 ...); releases older than
// that table carried the minor (libcudart.so.10.1).
std::string cudart_soname(const kb::KnowledgeBase& kb, const Version& cuda) {
  for (const auto& l : kb.libraries()) {
    if (l.library == "cudart" && l.cuda_major == cuda.major() && !l.linux_sonames.empty())
      return l.linux_sonames.front();
  }
  if (cuda.major() <= 10) return fmt::format("libcudart.so.{}.{}", cuda.major(), cuda.minor());
  return fmt::format("libcudart.so.{}", cuda.major());
}

bool has_runtime_wheel(const Json& env) {
  const Json& packages = env.contains("nvidia_wheels") ? env["nvidia_wheels"] : Json();
  if (!packages.is_array()) return false;
  for (const auto& p : packages) {
    if (p.value("name", "").rfind("nvidia-cuda-runtime", 0) == 0) return true;
  }
  return false;
}

void tensorflow_runtime(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto runtimes = model::derive_cuda_runtimes(report, nullptr);
  std::vector<const model::CudaRuntimeView*> known;
  for (const auto& r : runtimes) {
    if (r.version) known.push_back(&r);
  }
  if (known.empty()) return;  // what is installed is unknown: nothing to say
  for (const auto& r : frameworks_in(report)) {
    if (r.fw->value("name", "") != "tensorflow" || has_runtime_wheel(*r.env)) continue;
    auto b = build_cuda(report, r);
    if (!b.version) continue;
    auto need = cudart_soname(kb, *b.version);
    bool found = false;
    std::string have;
    for (const auto* k : known) {
      auto soname = cudart_soname(kb, *k->version);
      if (soname == need) found = true;
      have += (have.empty() ? "" : ", ") + fmt::format("CUDA {} ({})", k->version->text(), soname);
    }
    if (found) continue;
    const Json* row = kb::framework_matrix_row(kb, "tensorflow", version_text(*r.fw), std::nullopt);
    std::string cudnn =
        row && row->contains("cudnn") ? (*row)["cudnn"].get<std::string>() : "of that release";
    auto f = finding("frameworks.cuda_runtime_soname_missing",
                     {{"framework", label(r)},
                      {"built", b.version->text()},
                      {"soname", need},
                      {"have", have},
                      {"cudnn", cudnn},
                      {"have_major", std::to_string(known.front()->version->major())}});
    f.evidence.push_back(evidence_from(report, b.fact));
    for (const auto* k : known) f.evidence.push_back(evidence_from(report, k->version_fact));
    if (row) f.docs = kb_docs(kb, *row);
    out.push_back(std::move(f));
  }
}

const RegisterRule kRule{
    {"framework_runtime", [](const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
       if (!present(report, "frameworks")) return;
       tensorflow_runtime(report, kb, out);
     }}};

}  // namespace
}  // namespace cudiag::rules
