#include "explain/pasted_facts.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <mutex>
#include <regex>

#include "core/version.h"
#include "explain/pasted_prose.h"

namespace cudiag::explain {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t\r'\"`");
  auto e = s.find_last_not_of(" \t\r'\"`");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool has(const std::string& hay, const char* needle) { return hay.find(needle) != std::string::npos; }

const std::regex& re(const char* pattern) {
  // Each pattern is compiled once; the readers pass string literals. A deque,
  // so a reference handed out stays valid when later patterns are added; not
  // thread_local, whose destructor registration (__cxa_thread_atexit_impl,
  // GLIBC_2.18) would raise the portable binary's glibc floor.
  static std::mutex lock;
  static std::deque<std::pair<const char*, std::regex>> cache;
  std::lock_guard<std::mutex> hold(lock);
  for (const auto& [p, r] : cache) {
    if (p == pattern) return r;
  }
  cache.emplace_back(pattern, std::regex(pattern, std::regex::icase | std::regex::ECMAScript));
  return cache.back().second;
}

struct Reader {
  std::vector<PastedFact> facts;
  std::vector<PastedFact> prose;  // weaker: kept only for keys no dump line states
  std::size_t line = 0;
  // The CUDA variant of PyTorch's index an install command names ("--index-url
  // https://download.pytorch.org/whl/cu121"): the build a version-less "torch 2.1.0" is, when
  // nothing else says.
  std::string torch_index_tag;

  void add(std::string key, std::string value, const char* what) {
    value = trim(std::move(value));
    if (value.empty()) return;
    bool repeatable = key == "gpu";
    for (const auto& f : facts) {
      if (f.key != key) continue;
      if (!repeatable || f.value == value) return;  // the first statement of a key wins
    }
    facts.push_back({std::move(key), std::move(value), line, what});
  }
};

// "12.1" -> "cu121"; something without a major.minor keeps its digits ("12" -> "cu12").
std::string cu_tag(const std::string& cuda) {
  auto v = Version::parse(cuda);
  if (v && v->parts().size() >= 2) return v->cuda_tag();
  std::string digits;
  for (char c : cuda) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  return "cu" + digits;
}

// "8902" -> "8.9.2", "90100" -> "9.1.0" (cudnnGetVersion's encoding for 8 and 9).
std::string decode_cudnn(const std::string& n) {
  long v = std::atol(n.c_str());
  if (v >= 90000)
    return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
  if (v >= 1000)
    return std::to_string(v / 1000) + "." + std::to_string((v / 100) % 10) + "." + std::to_string(v % 100);
  return "";
}

// "NVIDIA GeForce RTX 3090" -> "GeForce RTX 3090" (the knowledge base's names have no vendor).
std::string gpu_name(std::string name) {
  name = trim(name);
  auto uuid = name.find("(UUID");
  if (uuid != std::string::npos) name = trim(name.substr(0, uuid));
  if (lower(name).rfind("nvidia ", 0) == 0) name = name.substr(7);
  return name;
}

std::string os_value(const std::string& text) {
  auto l = lower(text);
  if (has(l, "windows")) return "windows";
  if (has(l, "macos") || has(l, "mac os") || has(l, "darwin")) return "macos";
  std::smatch m;
  if (std::regex_search(l, m, re(R"(([a-z]+)[^0-9]*(\d+(?:\.\d+)?))"))) return m[1].str() + m[2].str();
  return "";
}

void read_nvidia_smi(Reader& r, const std::string& s, const std::string& l) {
  std::smatch m;
  if (has(l, "driver version") &&
      std::regex_search(s, m, re(R"(Driver Version\s*:\s*(\d{3}\.\d+(?:\.\d+)?))")))
    r.add("driver", m[1], has(l, "nvidia-smi") ? "nvidia-smi header" : "driver version line");
  if (has(l, "product name") && std::regex_search(s, m, re(R"(^\s*Product Name\s*:\s*(.+)$)")))
    r.add("gpu", gpu_name(m[1]), "nvidia-smi -q");
  // The table's GPU row: "|   0  NVIDIA GeForce RTX 3090     Off  | 00000000:01:00.0  On |"
  if (l.size() > 10 && l[0] == '|' &&
      std::regex_search(s, m,
                        re(R"(^\|\s+\d+\s+((?:NVIDIA |Tesla |Quadro |GeForce )\S.*?)\s{2,}(?:On|Off)\s+\|)")))
    r.add("gpu", gpu_name(m[1]), "nvidia-smi table");
  if (has(l, "gpu ") &&
      std::regex_search(s, m, re(R"(^\s*GPU \d+:\s*(NVIDIA .+|Tesla .+|GeForce .+|Quadro .+)$)")))
    r.add("gpu", gpu_name(m[1]), "GPU list");
}

void read_collect_env(Reader& r, const std::string& s, const std::string& l) {
  std::smatch m;
  if (l.rfind("pytorch version:", 0) == 0 && std::regex_search(s, m, re(R"(^PyTorch version:\s*(\S+))")))
    r.add("torch", m[1], "torch collect_env");
  else if (l.rfind("cuda used to build pytorch:", 0) == 0 &&
           std::regex_search(s, m, re(R"(^CUDA used to build PyTorch:\s*(\S+))")))
    // collect_env prints a None as "Could not collect": torch.version.cuda is None in a CPU-only build.
    r.add("torch_cuda", lower(m[1].str()) == "none" || lower(m[1].str()) == "could" ? "cpu" : m[1].str(),
          "torch collect_env");
  else if (l.rfind("os:", 0) == 0)
    r.add("os", os_value(s.substr(3)), "torch collect_env");
  else if (l.rfind("python platform:", 0) == 0 && has(l, "microsoft-standard-wsl2"))
    r.add("wsl", "2", "torch collect_env");
  else if (l.rfind("cuda runtime version:", 0) == 0 &&
           std::regex_search(s, m, re(R"(^CUDA runtime version:\s*(\d+\.\d+(?:\.\d+)?))")))
    r.add("nvcc", m[1], "torch collect_env (the toolkit's nvcc)");
  else if (l.rfind("nvidia driver version:", 0) == 0 &&
           std::regex_search(s, m, re(R"(^Nvidia driver version:\s*(\d{3}\.\d+(?:\.\d+)?))")))
    r.add("driver", m[1], "torch collect_env");
  else if (l.rfind("gpu models and configuration:", 0) == 0 &&
           std::regex_search(s, m, re(R"(GPU \d+:\s*(.+)$)")))
    r.add("gpu", gpu_name(m[1]), "torch collect_env");
  else if (l.rfind("cudnn version:", 0) == 0 &&
           std::regex_search(s, m, re(R"(libcudnn\.so\.(\d+\.\d+\.\d+)|^cuDNN version:\s*(\d+\.\d+\.\d+))")))
    r.add("cudnn", m[1].matched ? m[1] : m[2], "torch collect_env");
  else if (std::regex_search(s, m, re(R"(^\s*/\S*libcudnn\.so\.(\d+\.\d+\.\d+)\s*$)")))
    r.add("cudnn", m[1], "torch collect_env (cuDNN candidates)");
}

// "name:   1.2-build": a colon, spaces, then a digit (conda 4.5's plan lines), tested before the regex
// that reads them, which most log lines would otherwise run.
bool version_after_colon(const std::string& l) {
  auto colon = l.find(':');
  if (colon == std::string::npos) return false;
  auto digit = l.find_first_not_of(" \t", colon + 1);
  return digit != std::string::npos && digit > colon + 1 &&
         std::isdigit(static_cast<unsigned char>(l[digit]));
}

// "pip install torch torchvision --index-url https://download.pytorch.org/whl/cu121": the first such
// command's variant.
void read_torch_index(Reader& r, const std::string& l) {
  if (!r.torch_index_tag.empty() || !has(l, "download.pytorch.org/whl/") || !has(l, "torch")) return;
  std::smatch m;
  if (std::regex_search(l, m, re(R"(download\.pytorch\.org/whl/(cu\d{2,3}|cpu)(?![\w.]))")))
    r.torch_index_tag = m[1];
}

// pip list ("torch  2.1.0+cu121"), pip freeze ("torch==2.1.0+cu121"), collect_env's "[pip3] torch==2.1.0".
void read_packages(Reader& r, const std::string& s_in, const std::string& l_in) {
  std::smatch m;
  // conda's download plan: "    pytorch-0.4.1    |py36_cuda9.0.176_cudnn7.1.2_1   463.8 MB  pytorch" reads as
  // conda list's "pytorch 0.4.1 py36_cuda9.0.176_cudnn7.1.2_1".
  std::string s = s_in;
  std::string l = l_in;
  if (has(l, "|") &&
      std::regex_search(s_in, m,
                        re(R"(^\s*([A-Za-z][\w.\-]*?)-(\d+(?:\.\d+)+)\s*\|\s*(\S+)\s+[\d.]+ [KMG]B)"))) {
    s = m[1].str() + " " + m[2].str() + " " + m[3].str();
    l = lower(s) + " [conda]";
  } else if (has(l, "::") &&
             std::regex_search(
                 s_in, m,
                 re(R"(^\s*[A-Za-z][\w.\-]*\s+[\w./\-]+::([A-Za-z][\w.\-]*?)-(\d+(?:\.\d+)+)-(\S+))"))) {
    // conda 4.6+'s install plan: "  jaxlib   conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1".
    s = m[1].str() + " " + m[2].str() + " " + m[3].str();
    l = lower(s) + " [conda]";
  } else if (
      version_after_colon(l) &&
      std::regex_search(
          s_in, m,
          re(R"(^\s*([A-Za-z][\w.\-]*):\s+(\d+(?:\.\d+)+)-(\S+)\s+[\w./\-]+(?:\s+\[[\w\s]*\])?\s*$)"))) {
    // conda 4.5's plan: "    pytorch:     0.3.0-py27_cuda9.0.176_cudnn7.0.3hdbbd62b_4 pytorch [cuda90]".
    s = m[1].str() + " " + m[2].str() + " " + m[3].str();
    l = lower(s) + " [conda]";
  }
  if (!std::regex_search(
          s, m,
          re(R"(^\s*(?:\[(?:pip3?|conda)\]\s+)?([A-Za-z][A-Za-z0-9_.\-\[\]]*)\s*(?:==|\s{1,40})\s*v?(\d+(?:\.\d+)+(?:\+[A-Za-z0-9_.]+)?)(?:\s+(\S+))?(?:\s+(\S+))?\s*$)")))
    return;
  const char* what = has(l, "==") ? "pip freeze" : (has(l, "[conda]") ? "conda list" : "package list");
  std::string name = lower(m[1].str());
  std::string version = m[2];
  std::string build = lower(m[3].str());  // conda: "py3.10_cuda12.1_cudnn8.9.2_0", "py3.9_cpu_0"
  std::replace(name.begin(), name.end(), '_', '-');
  if (name == "torch" || name == "pytorch") {
    std::smatch b;
    if (version.find('+') == std::string::npos && !build.empty()) {
      if (std::regex_search(build, b, re(R"(cuda(\d+\.\d+))")))
        version += "+" + cu_tag(b[1]);
      else if (has(build, "cpu"))
        version += "+cpu";
    }
    r.add("torch", version, what);
    if (std::regex_search(build, b, re(R"(cudnn(\d+\.\d+\.\d+))"))) r.add("cudnn", b[1], what);
  } else if (name == "torchvision" || name == "torchaudio" || name == "torchcodec") {
    r.add(name, version, what);  // each release's ops are built against one torch release
  } else if (name == "cpuonly") {
    r.add("torch_cuda", "cpu", what);
  } else if (name == "tensorflow" || name == "tensorflow-gpu" || name == "tensorflow-cpu" ||
             name == "tensorflow-intel") {
    r.add(name == "tensorflow-cpu" ? "tensorflow-cpu" : "tensorflow", version, what);
  } else if (name == "jaxlib") {
    // conda-forge's jaxlib builds say their CUDA in the build string ("cuda112py311h…", "cuda120py312h…").
    std::smatch b;
    if (version.find('+') == std::string::npos && std::regex_search(build, b, re(R"(^cuda(\d{2,3}))"))) {
      long cuda = std::stol(b[1].str());
      version += "+cuda" + std::to_string(cuda >= 100 ? cuda / 10 : cuda);
    }
    r.add("jaxlib", version, what);
  } else if (name.rfind("jax-cuda", 0) == 0 && has(name, "plugin")) {
    r.add("jax-cuda" + name.substr(8, name.find('-', 8) - 8), version, what);
  } else if (name.rfind("cupy-cuda", 0) == 0 || name == "onnxruntime-gpu" || name == "onnxruntime") {
    r.add(name, version, what);
  } else if (std::regex_search(name, m, re(R"(^nvidia-cudnn-cu\d+$)"))) {
    r.add("cudnn", version, what);
  } else if (std::regex_search(name, m, re(R"(^nvidia-nccl-cu\d+$)"))) {
    r.add("nccl", version, what);
  } else if (std::regex_search(name, m, re(R"(^nvidia-cuda-runtime-cu\d+$)"))) {
    r.add("cuda_runtime", version, what);
  } else if (name == "cudatoolkit" || name == "cuda-toolkit" || name == "cuda-cudart" ||
             name == "pytorch-cuda") {
    r.add("cuda_runtime", version, what);
  } else if (name == "cudnn") {
    r.add("cudnn", version, what);
  }
}

void read_versions(Reader& r, const std::string& s, const std::string& l) {
  std::smatch m;
  // nvcc --version: "Cuda compilation tools, release 11.8, V11.8.89"
  if (has(l, "cuda compilation tools") &&
      std::regex_search(s, m, re(R"(release (\d+\.\d+), V(\d+\.\d+\.\d+))")))
    r.add("nvcc", m[2], "nvcc --version");
  // print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version())
  else if (
      std::regex_search(
          s, m,
          re(R"(^\s*(\d+\.\d+\.\d+(?:\+(?:cu\d+|cpu|rocm[\d.]+))?)\s+(\d+\.\d+|None)\s+(\d{4,5}|None)\s*$)"))) {
    std::string v = m[1];
    if (v.find('+') == std::string::npos) v += lower(m[2].str()) == "none" ? "+cpu" : "+" + cu_tag(m[2]);
    r.add("torch", v, "printed torch versions");
    if (lower(m[3].str()) != "none") r.add("cudnn", decode_cudnn(m[3]), "printed torch versions");
  } else if (
      has(l, "torch") &&
      std::regex_search(
          s, m, re(R"(torch(?:\.__version__)?\s*[:=]?\s*['"]?(\d+\.\d+\.\d+(?:\+(?:cu\d+|cpu))?)['"]?\s*$)")))
    r.add("torch", m[1], "printed torch version");
  // The banner Ultralytics (YOLOv5/v8/11) prints at start: "Ultralytics YOLOv8.0.196 Python-3.10.5
  // torch-2.2.1+cpu CPU (...)" or "... torch-2.0.1+cu117 CUDA:0 (NVIDIA ...)".
  else if (has(l, " torch-") &&
           std::regex_search(
               s, m, re(R"(\btorch-(\d+\.\d+\.\d+(?:\+(?:cu\d+|cpu|rocm[\d.]+))?)\s+(?:cuda:\d|cpu))")))
    r.add("torch", m[1], "Ultralytics banner");
  else if (has(l, "torch.version.cuda") &&
           std::regex_search(s, m, re(R"(torch\.version\.cuda\s*[:=)]?\s*['"]?(\d+\.\d+|None))")))
    r.add("torch_cuda", lower(m[1].str()) == "none" ? "cpu" : m[1].str(), "printed torch.version.cuda");
  else if (has(l, "tensorflow") &&
           std::regex_search(
               s, m, re(R"(tensorflow(?: version)?(?:\s*\([^)]{0,40}\))?\s*[:=]\s*['"]?v?(\d+\.\d+\.\d+))")))
    r.add("tensorflow", m[1],
          has(l, "use command below") ? "TensorFlow issue template" : "printed tensorflow version");
  // TensorFlow's issue template: "- CUDA/cuDNN version: 10.2.89" or "CUDA/cuDNN version: 11.2 / 8.1".
  else if (
      has(l, "cuda/cudnn version") &&
      std::regex_search(
          s, m,
          re(R"(CUDA/cuDNN version\s*:\s*(?:CUDA\s*)?(\d+\.\d+)(?:\.\d+)?(?:\s*[/,]\s*(?:cuDNN\s*)?v?(\d+\.\d+(?:\.\d+)?))?)"))) {
    r.add("cuda_runtime", m[1], "TensorFlow issue template");
    if (m[2].matched) r.add("cudnn", m[2], "TensorFlow issue template");
  } else if (l.rfind("jaxlib:", 0) == 0 && std::regex_search(s, m, re(R"(^jaxlib:\s*(\d+\.\d+\.\d+))")))
    r.add("jaxlib", m[1], "jax.print_environment_info()");
}

// nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04, pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime,
// tensorflow/tensorflow:2.15.0-gpu; docker run / compose / Kubernetes GPU requests.
void read_containers(Reader& r, const std::string& l) {
  std::smatch m;
  if (std::regex_search(l, m, re(R"(nvidia/cuda:(\d+\.\d+)(?:\.\d+)?-(?:(cudnn)(\d*)-)?)"))) {
    r.add("cuda_runtime", m[1], "container image name");
    r.add("env.NVIDIA_REQUIRE_CUDA", "cuda>=" + m[1].str(),
          "container image name (the image's NVIDIA_REQUIRE_CUDA)");
    if (m[2].matched && !m[3].str().empty()) r.add("cudnn", m[3].str() + ".0", "container image name");
    r.add("container", "docker", "container image name");
  }
  if (std::regex_search(l, m, re(R"(pytorch/pytorch:(\d+\.\d+\.\d+)-cuda(\d+\.\d+)-cudnn(\d+))"))) {
    r.add("torch", m[1].str() + "+" + cu_tag(m[2]), "container image name");
    r.add("container", "docker", "container image name");
  }
  // NVIDIA's NGC framework containers name their monthly release: nvcr.io/nvidia/pytorch:21.10-py3.
  if (std::regex_search(l, m, re(R"(nvcr\.io/nvidia/[\w.-]{1,40}:(\d\d\.\d\d)\b)"))) {
    r.add("ngc", m[1], "NGC container image name");
  }
  if (std::regex_search(l, m, re(R"(tensorflow/tensorflow:(\d+\.\d+\.\d+)-gpu)"))) {
    r.add("tensorflow", m[1], "container image name");
    r.add("container", "docker", "container image name");
  }
  bool run = std::regex_search(
      l, re(R"((?:^|[\s$#>`(])(?:sudo\s+)?(?:docker|podman|nerdctl)\s+(?:container\s+)?run\s)"));
  if (run) {
    r.add("container", has(l, "podman") ? "podman" : "docker", "docker run");
    bool gpus = has(l, "--gpus") || has(l, "--runtime=nvidia") || has(l, "--runtime nvidia") ||
                has(l, "nvidia.com/gpu") || has(l, "--device=/dev/nvidia") || has(l, "--device /dev/nvidia");
    r.add("nvidia_runtime", gpus ? "yes" : "no", "docker run");
  }
  if (std::regex_search(l, re(R"(^\s*runtime:\s*nvidia)")) ||
      std::regex_search(l, re(R"(^\s*-?\s*driver:\s*nvidia)")) ||
      std::regex_search(l, re(R"(^\s*nvidia\.com/gpu:\s*\d)")))
    r.add("nvidia_runtime", "yes", "compose or Kubernetes GPU request");
}

void read_host(Reader& r, const std::string& s, const std::string& l) {
  std::smatch m;
  if (has(l, "microsoft-standard-wsl2") || has(l, "wsl version: 2") ||
      std::regex_search(l, re(R"(^\s*wsl\s*2\b)")))
    r.add("wsl", "2", "WSL kernel string");
  // WSL 1 has no Linux kernel: uname and /proc/version say "4.4.0-<Windows build>-Microsoft".
  else if (has(l, "-microsoft") && std::regex_search(l, re(R"(\b4\.4\.0-\d{4,5}-microsoft\b)")))
    r.add("wsl", "1", "WSL 1 kernel string (4.4.0-<build>-Microsoft)");
  if (std::regex_search(s, m, re(R"(^PRETTY_NAME="?([^"]+))"))) r.add("os", os_value(m[1]), "os-release");
  if (std::regex_search(s, m, re(R"(^Description:\s+(.+)$)")) && has(l, "ubuntu"))
    r.add("os", os_value(m[1]), "lsb_release");
  if (has(l, "docker desktop")) r.add("docker_desktop", "yes", "Docker Desktop");
  // A script that sets it: os.environ["CUDA_VISIBLE_DEVICES"] = "-1"; a command prefixed with it.
  if (has(l, "cuda_visible_devices") &&
      (std::regex_search(s, m,
                         re(R"(os\.environ\[\s*['"]CUDA_VISIBLE_DEVICES['"]\s*\]\s*=\s*['"]([^'"]*)['"])")) ||
       std::regex_search(
           s, m,
           re(R"((?:^|[\s;$])CUDA_VISIBLE_DEVICES=['"]?([\w,-]*)['"]?\s+(?:python|torchrun|accelerate|bash|sh|\./)\S*)"))))
    r.add("env.CUDA_VISIBLE_DEVICES", m[1], "the script's environment");
  // export LD_LIBRARY_PATH=..., CUDA_HOME=..., CUDA_VISIBLE_DEVICES=...
  if (std::regex_search(
          s, m,
          re(R"(^\s*(?:export\s+|\$\s*)?(LD_LIBRARY_PATH|CUDA_HOME|CUDA_VISIBLE_DEVICES)=(\S*)\s*$)"))) {
    std::string name = m[1];
    std::string value = m[2];
    if (name == "CUDA_VISIBLE_DEVICES")
      r.add("env.CUDA_VISIBLE_DEVICES", value.empty() ? "" : value, "environment");
    else if (value.find('$') == std::string::npos || name == "LD_LIBRARY_PATH")
      r.add(name == "CUDA_HOME" ? "cuda_home" : "ld_library_path", value, "environment");
  }
}

void read_loader_and_kernel(Reader& r, const std::string& s, const std::string& l) {
  std::smatch m;
  // ldd: "libcuda.so.1 => not found", "libcuda.so.1 => /usr/lib/wsl/lib/libcuda.so.1 (0x...)"
  if (has(l, "libcuda.so.1 =>")) {
    if (has(l, "not found"))
      r.add("libcuda", "missing", "ldd");
    else if (std::regex_search(s, m, re(R"(libcuda\.so\.1 => (/\S+))")))
      r.add("libcuda", m[1], "ldd");
  }
  // dmesg: "NVRM: API mismatch: the client has the version 535.154.05, but this kernel module has the version
  // 535.129.03"
  if (has(l, "nvrm") &&
      std::regex_search(
          s, m,
          re(R"(client has the version (\d+\.\d+(?:\.\d+)?), but this kernel module has the version (\d+\.\d+(?:\.\d+)?))"))) {
    r.add("kernel_module", m[2], "kernel log");
    r.add("userspace_driver", m[1], "kernel log");
  } else if (has(l, "nvrm") &&
             std::regex_search(s, m,
                               re(R"(NVRM: loading NVIDIA UNIX .*Kernel Module\s+(\d+\.\d+(?:\.\d+)?))"))) {
    r.add("kernel_module", m[1], "kernel log");
  } else if (std::regex_search(l, re(R"(modprobe: fatal: module nvidia(?:_uvm)? not found)")) ||
             std::regex_search(l, re(R"(modprobe: error: could not insert 'nvidia')"))) {
    r.add("kernel_module", "not_loaded", "modprobe");
  } else if (std::regex_search(l, re(R"(^\[[\s\d.]+\]\s*nouveau \d{4}:)")) || has(l, "nouveau: detected")) {
    r.add("nouveau", "loaded", "kernel log");
  }
  // ldconfig -p / ls -l: "libcudart.so.9.1 (libc6,x86-64) => …", "libcuda.so.1 -> libcuda.so.375.82".
  if (has(l, "libcudart.so.") && std::regex_search(s, m, re(R"(libcudart\.so\.(\d+\.\d+) \(libc6)")))
    r.add("cuda_runtime", m[1], "ldconfig -p");
  if (has(l, "libcuda.so") &&
      std::regex_search(s, m, re(R"(libcuda\.so(?:\.1)? -> libcuda\.so\.(\d{3}\.\d+(?:\.\d+)?))")))
    r.add("driver", m[1], "libcuda file name");
  // TensorFlow's old loader and cuda_diagnostics lines.
  if (has(l, "couldn't open cuda library libcuda.so.1")) r.add("libcuda", "missing", "TensorFlow dso_loader");
  if (has(l, "kernel module") &&
      std::regex_search(s, m, re(R"(NVRM version: NVIDIA UNIX \S+ Kernel Module\s+(\d{3}\.\d+(?:\.\d+)?))")))
    r.add("kernel_module", m[1], "/proc/driver/nvidia/version");
  // ls /dev/nvidia* and lsmod output.
  if (has(l, "cannot access") && has(l, "/dev/nvidia")) r.add("device_nodes", "missing", "ls /dev/nvidia*");
  if (std::regex_search(l, re(R"(^nvidia\s+\d{4,}\s+\d+)"))) r.add("kernel_module", "loaded", "lsmod");
  if (std::regex_search(l, re(R"(^nouveau\s+\d{4,}\s+\d+)"))) r.add("nouveau", "loaded", "lsmod");
}

// What the reporter wrote in words counts where no pasted output states the key: a GPU named in
// prose when no tool listed one, an OS when no os-release or collect_env did. Under WSL, a
// Windows named in prose is the host, not where the program runs.
void add_prose_facts(Reader& r) {
  auto stated = [&](const std::string& key) {
    return std::any_of(r.facts.begin(), r.facts.end(), [&](const PastedFact& f) { return f.key == key; });
  };
  bool wsl = stated("wsl") ||
             std::any_of(r.prose.begin(), r.prose.end(), [](const PastedFact& f) { return f.key == "wsl"; });
  std::vector<std::string> strong;
  for (const auto& f : r.facts) strong.push_back(f.key);
  for (auto& f : r.prose) {
    if (std::find(strong.begin(), strong.end(), f.key) != strong.end()) continue;
    if (f.key == "os" && f.value == "windows" && wsl) continue;
    r.line = f.line;
    auto before = r.facts.size();
    r.add(f.key, f.value, f.what.c_str());
    if (r.facts.size() > before) r.facts.back().prose = true;
  }
}

}  // namespace

std::vector<PastedFact> read_pasted_facts(std::string_view text) {
  Reader r;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    ++r.line;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Markdown quoting and list markers around pasted output.
    auto first = line.find_first_not_of(" >");
    if (first != std::string::npos && first > 0 && line[first - 1] == '>') line = line.substr(first);
    if (line.size() > 2 && line.size() < 600) {
      std::string l = lower(line);
      read_nvidia_smi(r, line, l);
      read_collect_env(r, line, l);
      read_packages(r, line, l);
      read_versions(r, line, l);
      read_containers(r, l);
      read_host(r, line, l);
      read_loader_and_kernel(r, line, l);
      read_torch_index(r, l);
      for (auto& p : read_prose_line(line, l)) r.prose.push_back({p.key, p.value, r.line, p.what});
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  add_prose_facts(r);
  // "CUDA used to build PyTorch: 12.1" completes a bare "PyTorch version: 2.1.0".
  auto cuda =
      std::find_if(r.facts.begin(), r.facts.end(), [](const PastedFact& f) { return f.key == "torch_cuda"; });
  if (cuda != r.facts.end()) {
    for (auto& f : r.facts) {
      if (f.key == "torch" && f.value.find('+') == std::string::npos)
        f.value += cuda->value == "cpu" ? "+cpu" : "+" + cu_tag(cuda->value);
    }
    r.facts.erase(cuda);
  } else if (!r.torch_index_tag.empty()) {
    for (auto& f : r.facts) {
      if (f.key == "torch" && f.value.find('+') == std::string::npos) f.value += "+" + r.torch_index_tag;
    }
  }
  return r.facts;
}

}  // namespace cudiag::explain
