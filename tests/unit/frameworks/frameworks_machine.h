#pragma once
// The frameworks fixture machine (tests/fixtures/frameworks/machine, see its
// README.md) completed with the ELF files tests/unit/frameworks/CMakeLists.txt
// builds: shared by the frameworks layer tests and the renderer tests that
// read its report.
#include <filesystem>
#include <map>
#include <string>

namespace cudiag::frameworks_test {

namespace fs = std::filesystem;

inline const std::string kVenvSp = "/home/u/venv/lib/python3.11/site-packages";
inline const std::string kCondaSp = "/opt/conda/envs/ml/lib/python3.10/site-packages";

inline fs::path elf(const std::string& name) { return fs::path(CUDIAG_FRAMEWORKS_ELF_DIR) / name; }

// The variables of the user the fixture describes: a venv activated, an old
// CUDA toolkit on LD_LIBRARY_PATH.
inline std::map<std::string, std::string> user_env() {
  return {{"VIRTUAL_ENV", "/home/u/venv"},
          {"PATH", "/home/u/venv/bin:/usr/bin"},
          {"HOME", "/home/u"},
          {"LD_LIBRARY_PATH", "/usr/local/cuda-12.1/lib64"}};
}

// Copies the fixture tree to `root` (replacing it) and places the ELF files.
inline void build_frameworks_machine(const fs::path& root) {
  fs::remove_all(root);
  fs::copy(fs::path(CUDIAG_TEST_DIR) / "fixtures/frameworks/machine", root,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  auto place = [&](const std::string& from, const std::string& to) {
    auto dest = root / to.substr(1);
    fs::create_directories(dest.parent_path());
    fs::copy_file(elf(from), dest, fs::copy_options::overwrite_existing);
  };
  auto link = [&](const std::string& target, const std::string& at) {
    auto dest = root / at.substr(1);
    fs::create_directories(dest.parent_path());
    fs::create_symlink(target, dest);
  };
  place("libtorch_global_deps.so", kVenvSp + "/torch/lib/libtorch_global_deps.so");
  if (fs::exists(elf("libtorch_cuda.so"))) place("libtorch_cuda.so", kVenvSp + "/torch/lib/libtorch_cuda.so");
  place("libcudnn.so.9", kVenvSp + "/nvidia/cudnn/lib/libcudnn.so.9");
  place("libcudart.so.12", kVenvSp + "/nvidia/cuda_runtime/lib/libcudart.so.12");
  place("libcusparse.so.12", kVenvSp + "/nvidia/cusparse/lib/libcusparse.so.12");
  place("libnvJitLink.so.12", kVenvSp + "/nvidia/nvjitlink/lib/libnvJitLink.so.12");
  // An older CUDA toolkit on LD_LIBRARY_PATH and a system NCCL.
  place("libnvJitLink.so.12", "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12.1.105");
  link("libnvJitLink.so.12.1.105", "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12");
  place("libnccl.so.2", "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3");
  link("libnccl.so.2.18.3", "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
  place("libcudart.so.12", "/usr/lib/x86_64-linux-gnu/libcudart.so.12");
  place("libonnxruntime_providers_cuda.so", kCondaSp + "/onnxruntime/capi/libonnxruntime_providers_cuda.so");
  fs::create_directories(root / "usr/lib/python3/dist-packages/torch/lib");
  // A conda environment has a bin/ directory; git keeps no empty directory,
  // so the copy of the fixture gets it here.
  fs::create_directories(root / "opt/conda/envs/ml/bin");
}

}  // namespace cudiag::frameworks_test
