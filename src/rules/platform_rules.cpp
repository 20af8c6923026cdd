// Rules on what a platform rules out before any library is loaded, most often
// known only because the user stated it (--assume, a pasted issue): no GPU
// TensorFlow on native Windows from 2.11, no GPU under WSL 1, a CUDA extension
// built with a toolkit of another major than PyTorch's, a framework that is a
// CPU-only build, and the forward-compatibility package an nvidia/cuda image
// names in NV_CUDA_COMPAT_PACKAGE.
#include <fmt/format.h>

#include <regex>

#include "rules/engine.h"
#include "rules/framework_support.h"
#include "rules/rule_support.h"
#include "rules/rule_table.h"
#include "rules/torch_variants.h"

namespace cudiag::rules {
namespace {

// The findings this file emits (docs/rules.md is generated from this table: rules/rule_table.h).
const RegisterRuleTable kRuleTable{
    {.id = "host.wsl1_no_gpu",
     .layer = "host",
     .severity = "error",
     .when = "WSL 1 (stated with `--assume wsl=1`): no GPU paravirtualization at all",
     .covered_by = "test unit/rules/assume_layers_test.cpp",
     .message = "This is WSL 1, which has no GPU paravirtualization: CUDA sees no device.",
     .remediation =
         "Convert the distribution to WSL 2 (`wsl --set-version <distro> 2` in PowerShell, `wsl -l -v` shows the version) and install the NVIDIA Windows driver; install no Linux driver inside WSL."},
    {.id = "host.image_needs_forward_compat",
     .layer = "host",
     .severity = "warning",
     .when = "an nvidia/cuda image's `NV_CUDA_COMPAT_PACKAGE` (cuda-compat-X-Y) is newer than the host "
             "driver's CUDA: it runs only through forward compatibility (supported GPUs and branches), else "
             "804; names the driver the image's CUDA needs",
     .covered_by = "test unit/rules/assume_layers_test.cpp",
     .message =
         "The image is built for CUDA {cuda} (NV_CUDA_COMPAT_PACKAGE={package}) but the host driver {driver} supports CUDA {driver_cuda}: it runs only through the image's forward-compatibility libcuda, which works on data-center and some professional GPUs with a supported host branch; elsewhere cuInit fails with CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804).",
     .remediation =
         "Install {need} on the host (cudiag kb driver-for {cuda}), or use an image for CUDA {driver_cuda} or older."},
    {.id = "frameworks.tensorflow_no_gpu_on_native_windows",
     .layer = "frameworks",
     .severity = "error",
     .when = "TensorFlow ≥ 2.11 on native Windows (`os=windows`, not WSL): no GPU build exists",
     .covered_by = "test unit/rules/assume_layers_test.cpp",
     .message =
         "TensorFlow {version} on native Windows has no GPU support: from 2.11 on, TensorFlow's Windows builds are CPU-only, so it lists no GPU.",
     .remediation =
         "Run TensorFlow in WSL 2 (pip install 'tensorflow[and-cuda]' inside the Linux distribution; the Windows driver provides the GPU), or use TensorFlow 2.10 (the last native Windows GPU release) with CUDA 11.2 and cuDNN 8.1.",
     .group = "platform"},
    {.id = "frameworks.extension_toolkit_mismatch",
     .layer = "frameworks",
     .severity = "error",
     .when =
         R"(nvcc on PATH is another CUDA major than PyTorch's build: building a CUDA extension fails with "The detected CUDA version … mismatches")",
     .covered_by = "test unit/rules/assume_layers_test.cpp",
     .message =
         "nvcc on PATH is CUDA {toolkit} but PyTorch was built with CUDA {built}: building a CUDA extension (torch.utils.cpp_extension, setup.py of flash-attn, apex, detectron2 …) fails with \"The detected CUDA version ({toolkit}) mismatches the version that was used to compile PyTorch ({built})\".",
     .remediation =
         "Install CUDA toolkit {built_major}.x and point the build at it (export CUDA_HOME=/usr/local/cuda-{built_major}.{built_minor} and PATH=$CUDA_HOME/bin:$PATH), or install the PyTorch build for CUDA {toolkit_major}.x (pip install torch --index-url https://download.pytorch.org/whl/cu{toolkit_major}{toolkit_minor}).",
     .group = "platform"},
    {.id = "frameworks.cpu_only_build",
     .layer = "frameworks",
     .severity = "warning",
     .when =
         R"(a stated CPU-only framework build (`torch=…+cpu`, `jaxlib=…` without a CUDA plugin, `onnxruntime`) with no GPU known; an error when the pasted message is "not compiled with CUDA" (the signature's `confirms`))",
     .covered_by = "test unit/rules/assume_layers_test.cpp",
     .message = "{framework} is a CPU-only build: it cannot use a GPU whatever the driver.",
     .remediation = "{remedy}",
     .group = "platform"},
};

constexpr const char* kTfInstall = "https://www.tensorflow.org/install/pip";
constexpr const char* kWslGuide = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html";
constexpr const char* kCppExtension =
    "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py";
constexpr const char* kFwdCompat =
    "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html";

struct Fw {
  std::string path;
  std::string name;
  const Json* fw;
};

std::vector<Fw> frameworks(const Json& report) {
  std::vector<Fw> out;
  const Json& envs = value_at(report, "frameworks.environments");
  if (!envs.is_array()) return out;
  for (std::size_t i = 0; i < envs.size(); ++i) {
    if (!envs[i].contains("frameworks") || !envs[i]["frameworks"].is_array()) continue;
    for (std::size_t j = 0; j < envs[i]["frameworks"].size(); ++j) {
      const Json& fw = envs[i]["frameworks"][j];
      out.push_back(
          {fmt::format("frameworks.environments[{}].frameworks[{}]", i, j), fw.value("name", ""), &fw});
    }
  }
  return out;
}

void tensorflow_on_windows(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  if (string_at(report, "host.os.id").value_or("") != "windows" ||
      bool_at(report, "host.wsl.detected").value_or(false))
    return;
  for (const auto& f : frameworks(report)) {
    if (f.name != "tensorflow") continue;
    auto v = version_at(report, f.path + ".build.version");
    if (!v || *v < *Version::parse("2.11")) continue;
    auto x = finding("frameworks.tensorflow_no_gpu_on_native_windows", {{"version", v->text()}});
    x.evidence.push_back(evidence_from(report, f.path + ".build.version"));
    x.evidence.push_back(evidence_from(report, "host.os.id"));
    add_doc(x, kTfInstall,
            "Windows Native: GPU support on native Windows is only available for 2.10 or earlier");
    out.push_back(std::move(x));
  }
}

void wsl1(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  const Json& v = value_at(report, "host.wsl.version");
  if (!v.is_number_integer() || v.get<long>() != 1) return;
  auto x = finding("host.wsl1_no_gpu");
  x.evidence.push_back(evidence_from(report, "host.wsl.version"));
  add_doc(x, kWslGuide, "Getting Started with CUDA on WSL 2");
  out.push_back(std::move(x));
}

// torch.utils.cpp_extension refuses a toolkit of another CUDA major than the
// one PyTorch was built with ("The detected CUDA version (X) mismatches the
// version that was used to compile PyTorch (Y)") and warns on a minor difference.
void extension_toolkit(const Json& report, const kb::KnowledgeBase&, std::vector<Finding>& out) {
  const Json& nvcc = value_at(report, "cuda_runtime.nvcc_on_path");
  if (!nvcc.is_object() || !nvcc.contains("version")) return;
  const Json& nv = nvcc["version"].is_object() ? nvcc["version"]["value"] : nvcc["version"];
  auto toolkit = nv.is_string() ? Version::parse(nv.get<std::string>()) : std::nullopt;
  if (!toolkit) return;
  for (const auto& f : frameworks(report)) {
    if (f.name != "torch") continue;
    auto built = version_at(report, f.path + ".build.cuda");
    if (!built || built->major() == toolkit->major()) continue;
    auto x = finding("frameworks.extension_toolkit_mismatch", {{"toolkit", toolkit->text()},
                                                               {"built", built->text()},
                                                               {"built_major", built->major()},
                                                               {"built_minor", built->minor()},
                                                               {"toolkit_major", toolkit->major()},
                                                               {"toolkit_minor", toolkit->minor()}});
    x.evidence.push_back(evidence_from(report, "cuda_runtime.nvcc_on_path"));
    x.evidence.push_back(evidence_from(report, f.path + ".build.cuda"));
    add_doc(x, kCppExtension, "_check_cuda_version");
    out.push_back(std::move(x));
  }
}

// A CPU-only build stated without any GPU known: frameworks.cpu_only_build_with_gpu
// needs a GPU; this says what a CPU-only build means by itself.
void cpu_only_stated(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  if (!gpus(report, kb).empty()) return;
  for (const auto& f : frameworks(report)) {
    if (value_at(report, f.path + ".build.cpu_only") != true ||
        !is_assumed(report, f.path + ".build.cpu_only"))
      continue;
    auto release = f.name == "torch" ? Version::parse(version_text(*f.fw)) : std::nullopt;
    auto same_release = release ? torch_cuda_wheel(kb, *release, host_driver(report, kb).cuda) : std::nullopt;
    std::string fix =
        same_release ? "Install a CUDA build: " + *same_release
        : f.name == "torch"
            ? "Install a CUDA build: pip install torch --index-url https://download.pytorch.org/whl/cu126 (or the cuXXX index for a CUDA the driver supports; `cudiag kb` lists them); with conda, remove cpuonly and install pytorch-cuda"
        : f.name == "tensorflow" ? "pip install 'tensorflow[and-cuda]' on Linux or WSL 2"
        : f.name == "jax"        ? kJaxCudaInstall
        : f.name == "onnxruntime"
            ? "pip uninstall onnxruntime && pip install onnxruntime-gpu (only one of them may be installed)"
            : "Install the framework's CUDA build";
    auto x = finding("frameworks.cpu_only_build", {{"framework", f.name}, {"remedy", fix}});
    x.evidence.push_back(evidence_from(report, f.path + ".build.cpu_only"));
    add_doc(x, "https://pytorch.org/get-started/locally/", "Start Locally: choose the CUDA compute platform");
    out.push_back(std::move(x));
  }
}

// nvidia/cuda images name their forward-compatibility package (cuda-compat-12-4):
// it helps only when the host driver is older than the image's CUDA, and then
// only on the GPUs and host branches forward compatibility supports.
void image_compat_package(const Json& report, const kb::KnowledgeBase& kb, std::vector<Finding>& out) {
  auto pkg = env(report, "NV_CUDA_COMPAT_PACKAGE");
  if (!pkg) return;
  std::smatch m;
  static const std::regex pattern(R"(cuda-compat-(\d+)-(\d+))");
  if (!std::regex_search(*pkg, m, pattern)) return;
  auto cuda = Version::parse(m[1].str() + "." + m[2].str());
  auto d = host_driver(report, kb);
  if (!cuda || !d.cuda || *d.cuda >= *cuda) return;
  auto req = kb.driver_for_cuda(*cuda);
  std::string need = req && req->full_min ? fmt::format("driver {} or newer", req->full_min->text())
                                          : fmt::format("a driver that supports CUDA {}", cuda->text());
  auto x = finding("host.image_needs_forward_compat", {{"cuda", cuda->text()},
                                                       {"package", *pkg},
                                                       {"driver", describe(d)},
                                                       {"driver_cuda", d.cuda->text()},
                                                       {"need", need}});
  x.evidence.push_back(
      evidence("host.environment.NV_CUDA_COMPAT_PACKAGE", *pkg, "env:NV_CUDA_COMPAT_PACKAGE"));
  add_driver_evidence(x, report, d);
  add_doc(x, kFwdCompat, "Forward Compatibility");
  out.push_back(std::move(x));
}

const RegisterRule kTfWindows{{"frameworks.tensorflow_no_gpu_on_native_windows", tensorflow_on_windows}};
const RegisterRule kWsl1{{"host.wsl1_no_gpu", wsl1}};
const RegisterRule kExtension{{"frameworks.extension_toolkit_mismatch", extension_toolkit}};
const RegisterRule kCpuOnly{{"frameworks.cpu_only_build", cpu_only_stated}};
const RegisterRule kCompatPackage{{"host.image_needs_forward_compat", image_compat_package}};

}  // namespace
}  // namespace cudiag::rules
