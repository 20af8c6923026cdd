// The fix a verdict gives when the stated facts pin it down: the GPU's own
// sm_XY for a binary without its kernels, the torch wheel that carries more
// architectures, and the layer a message means in a stated context (a
// container, an out-of-memory on a GPU the reporter says is free).
#include <gtest/gtest.h>

#include "cli/explain_facts.h"
#include "explain/explain.h"
#include "explain/pasted_facts.h"
#include "explain/verdict.h"
#include "kb/knowledge_base.h"
#include "report/collect.h"
#include "rules/engine.h"

namespace cudiag::explain {
namespace {

// What `cudiag explain --file - --no-collect` answers for `text`.
Verdict answer(const std::string& text, const std::vector<std::string>& assumptions = {}) {
  const auto& kb = kb::KnowledgeBase::builtin();
  auto found = explain_text(text, kb);
  Json report = report::new_report();
  cli::apply_stated_facts(report, assumptions, read_pasted_facts(text), kb);
  rules::attach_diagnosis(report, rules::diagnose(report, kb));
  add_machine_lines(found, report, kb);
  return decide(found, cli::stated_findings(report, found, kb));
}

// PyTorch's "driver too old (found version N)" has two ways out: a newer driver, or the newest torch
// build that driver runs (framework_matrix), named with its wheel index.
TEST(MachineFixTest, ADriverTooOldForTorchAlsoNamesTheNewestTorchBuildItRuns) {
  auto v = answer("The NVIDIA driver on your system is too old (found version 11080)\n");
  EXPECT_NE(v.fix.find("torch 2.7 for CUDA 11.8"), std::string::npos) << v.fix;
  EXPECT_NE(v.fix.find("https://download.pytorch.org/whl/cu118"), std::string::npos) << v.fix;
  // Before CUDA 11 no minor-version compatibility: a build of the driver's CUDA or older.
  v = answer("The NVIDIA driver on your system is too old (found version 10010)\n");
  EXPECT_NE(v.fix.find("whl/cu101"), std::string::npos) << v.fix;
  // From CUDA 11 on a build of the driver's major runs on any of its minors.
  v = answer("The NVIDIA driver on your system is too old (found version 12020)\n");
  EXPECT_NE(v.fix.find("for CUDA 12."), std::string::npos) << v.fix;
}

TEST(MachineFixTest, AKnownGpuNamesTheArchitectureToBuildFor) {
  auto v = answer("KinFu2 error: invalid device function\nI rebuild this project with GTX1080.\n");
  EXPECT_EQ(v.layer, "binaries");
  EXPECT_NE(v.fix.find("arch=compute_61,code=sm_61"), std::string::npos) << v.fix;
  auto ggml = answer(
      "ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. ggml-cuda.cu was "
      "compiled for: 520\n",
      {"gpu=RTX 4090"});
  EXPECT_EQ(ggml.id, "ggml-no-device-code-for-arch");
  EXPECT_NE(ggml.fix.find("CMAKE_CUDA_ARCHITECTURES=89"), std::string::npos) << ggml.fix;
  // Without a GPU the signature's own advice stands.
  EXPECT_EQ(answer("RuntimeError: CUDA error: invalid device function\n").fix.rfind("Build for this GPU", 0),
            std::string::npos);
}

TEST(MachineFixTest, ATorchBuildWithoutTheGpusArchitectureNamesTheWheel) {
  // GPU unknown: the variant of the same release that carries the newest architecture.
  auto v = answer(
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
      "torch.__version__ is 1.12.0+cu102\n");
  EXPECT_EQ(v.layer, "binaries");
  EXPECT_NE(v.fix.find("whl/cu116"), std::string::npos) << v.fix;
  // GPU known: the frameworks rule, confirmed by the message, names the wheel that carries it.
  auto known = answer("CUDA error: no kernel image is available for execution on the device\n",
                      {"torch=2.5.1+cu124", "gpu=RTX 5090"});
  EXPECT_EQ(known.id, "frameworks.no_kernel_for_gpu");
  EXPECT_NE(known.fix.find("sm_120"), std::string::npos) << known.fix;
  EXPECT_NE(known.fix.find("whl/cu12"), std::string::npos) << known.fix;
}

// torch 2.8.0 for CUDA 12.8 reaches sm_120 already: another variant carries no newer architecture, so the
// kernels missing are another package's, the one the text names
// (https://github.com/Ksuriuri/index-tts-vllm/issues/37: vLLM rebuilt for an RTX 50).
TEST(MachineFixTest, ATorchThatReachesTheNewestArchitectureLeavesTheFixToTheProgramNamed) {
  auto v = answer(
      "no kernel image is available for execution\n"
      "vllm must be compiled by hand, not 0.9.0 from requirements.txt\n"
      "torch 2.8.0+cu128\n");
  EXPECT_EQ(v.layer, "binaries");
  EXPECT_EQ(v.fix.find("whl/cu129"), std::string::npos) << v.fix;
  EXPECT_EQ(v.fix.rfind("The text names vLLM", 0), 0u) << v.fix;
}

// No architecture list for old torch releases, but a build whose CUDA predates every architecture the GPU
// runs cannot carry SASS for it (https://github.com/zzhang1987/Factor-Graph-Neural-Network/issues/4:
// 1.5.1+cu101 on an RTX 3080 Ti; the maintainer: a CUDA 11 build).
TEST(MachineFixTest, ABuildWhoseCudaPredatesTheGpuFamilyHasNoKernelForIt) {
  const std::string text = "training fails on the GPU, on the CPU it works\n";
  auto ampere = answer(text, {"torch=1.7.1+cu101", "gpu=RTX 3090"});
  EXPECT_EQ(ampere.id, "frameworks.no_kernel_for_gpu");
  EXPECT_NE(ampere.fix.find("sm_86"), std::string::npos) << ampere.fix;
  // sm_86 runs the sm_80 SASS CUDA 11.0 compiles: nothing to say from the CUDA alone.
  EXPECT_NE(answer(text, {"torch=1.7.1+cu110", "gpu=RTX 3090"}).id, "frameworks.no_kernel_for_gpu");
  // A conda command says the build's CUDA as +cu101 would.
  auto conda =
      answer("conda install pytorch==1.6.0 cudatoolkit=10.1 -c pytorch; it fails\n", {"gpu=RTX 4060"});
  EXPECT_EQ(conda.id, "frameworks.no_kernel_for_gpu");
}

// nvcc given an architecture it cannot use because of the build, not the toolkit.
TEST(MachineFixTest, AnArchitecturePlaceholderOrOneNewerThanTheGpuIsTheBuildsListToChange) {
  // A detection that found no GPU (a docker build): no number, or the detection's own output.
  for (const char* text :
       {"nvcc fatal : Unsupported gpu architecture 'compute_'\n",
        "nvcc fatal   : Unsupported gpu architecture 'compute_No CUDA devices found.'\n"}) {
    auto v = answer(text, {"gpu=RTX 3090"});
    EXPECT_EQ(v.layer, "binaries") << text;
    EXPECT_NE(v.fix.find("CMAKE_CUDA_ARCHITECTURES=86"), std::string::npos) << v.fix;
  }
  // Blackwell's compute_103 on an RTX 4090
  // (https://github.com/marcoslucianops/DeepStream-Yolo-Seg/issues/29), the GPU as the reporter wrote it: the
  // GPU's own architecture, and the toolkit for another GPU.
  auto ada = answer(
      "nvcc fatal   : Unsupported gpu architecture 'compute_103'\n"
      "We were using 4090 GPU and Nvidia Driver Version was 575.57.08\n");
  EXPECT_EQ(ada.layer, "binaries");
  EXPECT_NE(ada.fix.find("CMAKE_CUDA_ARCHITECTURES=89"), std::string::npos) << ada.fix;
  EXPECT_NE(ada.fix.find("CUDA 12.9 or newer"), std::string::npos) << ada.fix;
  // An architecture the GPU runs, unknown to an old nvcc: the toolkit stays the answer.
  auto older = answer("nvcc fatal   : Unsupported gpu architecture 'compute_86'\n", {"gpu=RTX 3090"});
  EXPECT_EQ(older.layer, "cuda_runtime") << older.fix;
}

// The same message, another layer where the text says where the libraries came from.
TEST(MachineFixTest, ContextNamesTheLayerOfADriverMismatchAndThePtxLinker) {
  auto image = answer(
      "In my Fedora25 Dockerfile, I first install NVidia graphic drivers 384.90\n"
      "Failed to initialize NVML: Driver/library version mismatch\n");
  EXPECT_EQ(image.layer, "container");
  EXPECT_NE(image.fix.find("remove them from the image"), std::string::npos) << image.fix;
  // A host whose module lags its libraries stays the kernel driver, containers or not.
  EXPECT_EQ(
      answer("nvidia-container-cli: initialization error: nvml error: driver/library version mismatch\n")
          .layer,
      "kernel_driver");
  auto numba = answer(
      "ERROR:numba.cuda.cudadrv.driver:Call to cuLinkAddData results in CUDA_ERROR_UNSUPPORTED_PTX_VERSION\n");
  EXPECT_EQ(numba.layer, "driver_api");
  EXPECT_NE(numba.fix.find("pynvjitlink"), std::string::npos) << numba.fix;
}

// Facts of the host that decide the answer: a WSL 1 kernel, a Slurm job, MIG and visible devices.
TEST(MachineFixTest, HostFactsInThePastedTextDecideTheLayer) {
  auto wsl1 = answer(
      "Linux version 4.4.0-20150-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) )\n"
      "Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file\n");
  EXPECT_EQ(wsl1.id, "host.wsl1_no_gpu");
  EXPECT_NE(wsl1.fix.find("wsl --set-version"), std::string::npos) << wsl1.fix;
  auto slurm = answer(
      "#SBATCH --partition=gpu\nsrun python train.py\n"
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n");
  EXPECT_EQ(slurm.layer, "host");
  EXPECT_NE(slurm.fix.find("--gres=gpu:1"), std::string::npos) << slurm.fix;
  // The same message on a plain machine stays the kernel module.
  EXPECT_EQ(answer("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n").layer,
            "kernel_driver");
  auto per_task = answer(
      "#SBATCH --gpus-per-task=1\ntorch.cuda.set_device(local_rank)\nRuntimeError: CUDA error: invalid device "
      "ordinal\n");
  EXPECT_NE(per_task.fix.find("--gpus-per-node"), std::string::npos) << per_task.fix;
  auto assert_failed = answer("RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED\n");
  EXPECT_EQ(assert_failed.layer, "host");
  EXPECT_NE(assert_failed.fix.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << assert_failed.fix;
}

// Where the libraries come from decides: an L4T container without the NVIDIA runtime, WSL's libcuda.
TEST(MachineFixTest, AMissingLibraryInAJetsonContainerOrUnderWslIsWhereItShouldComeFrom) {
  auto l4t = answer(
      "docker run -it dustynv/ros:noetic-pytorch-l4t-r32.5.0\n"
      "OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n");
  EXPECT_EQ(l4t.layer, "container");
  EXPECT_NE(l4t.fix.find("default-runtime"), std::string::npos) << l4t.fix;
  // Without the L4T image the same line is the library's.
  EXPECT_NE(
      answer("OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n").layer,
      "container");
  auto wsl = answer("Could not load library libcudnn_cnn_infer.so.8\nOn WSL Ubuntu 22.04.2 LTS\n");
  EXPECT_EQ(wsl.layer, "driver_api");
  EXPECT_NE(wsl.fix.find("/usr/lib/wsl/lib"), std::string::npos) << wsl.fix;
}

// A GPU older than every architecture of a torch build: the same release's variant that still carries it.
TEST(MachineFixTest, AGpuOlderThanTheBuildNamesTheVariantThatStillCarriesIt) {
  auto pascal = answer("it fails with a kernel error\n", {"torch=2.8.0+cu129", "gpu=GTX 1070"});
  EXPECT_EQ(pascal.id, "frameworks.gpu_older_than_build");
  EXPECT_NE(pascal.fix.find("whl/cu126"), std::string::npos) << pascal.fix;
}

TEST(MachineFixTest, TheWheelNamedForAGpuIsOneTheStatedDriverRuns) {
  // R570 supports CUDA 12.8: of torch 2.8's cu128 and cu129 builds, the one not newer than the driver
  // (https://github.com/pytorch/pytorch/issues/160804: RTX 5090, 2.2.0+cu121, driver 570.181).
  auto r570 = answer("CUDA error: no kernel image is available for execution on the device\n",
                     {"torch=2.2.0+cu121", "gpu=RTX 5090", "driver=570.181"});
  EXPECT_EQ(r570.id, "frameworks.no_kernel_for_gpu");
  EXPECT_NE(r570.fix.find("whl/cu128"), std::string::npos) << r570.fix;
  // A driver newer than every build: the newest build.
  auto r580 = answer("CUDA error: no kernel image is available for execution on the device\n",
                     {"torch=2.2.0+cu121", "gpu=RTX 5090", "driver=580.65.06"});
  EXPECT_EQ(r580.fix.find("whl/cu128"), std::string::npos) << r580.fix;
  // A driver that runs no build with Blackwell kernels: the driver comes first, and the text says so.
  auto r470 = answer("CUDA error: no kernel image is available for execution on the device\n",
                     {"torch=2.2.0+cu121", "gpu=RTX 5090", "driver=470.256.02"});
  EXPECT_NE(r470.fix.find("upgrade it to one for CUDA 12.8 first"), std::string::npos) << r470.fix;
}

TEST(MachineFixTest, TheSameMessageMeansAnotherLayerInItsContext) {
  EXPECT_EQ(answer("Found no NVIDIA driver on your system.\n").layer, "driver_api");
  auto compose =
      answer("docker compose --profile auto up\nRuntimeError: Found no NVIDIA driver on your system.\n");
  EXPECT_EQ(compose.layer, "container");
  EXPECT_NE(compose.fix.find("NVIDIA_DRIVER_CAPABILITIES"), std::string::npos);
  EXPECT_EQ(answer("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 50.00 MiB\n").layer,
            "cuda_runtime");
  auto busy = answer(
      "export CUDA_VISIBLE_DEVICES=5\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 50.00 "
      "MiB\n");
  EXPECT_EQ(busy.layer, "host");
  EXPECT_NE(busy.fix.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
  auto mismatch =
      answer("nvidia-container-cli: initialization error: nvml error: driver/library version mismatch\n");
  EXPECT_EQ(mismatch.layer, "kernel_driver");
  EXPECT_NE(mismatch.fix.find("reboot"), std::string::npos);
}

// A library of another CUDA than the one the reporter has: the program's build is what changes.
TEST(MachineFixTest, ALibraryOfAnotherCudaPointsAtTheProgramsBuild) {
  auto v = answer(
      "ImportError: libcudart.so.9.0: cannot open shared object file: No such file or directory\n"
      "I use cuda10.0 here\n");
  EXPECT_EQ(v.layer, "frameworks");
  EXPECT_NE(v.fix.find("built for CUDA 9.0"), std::string::npos) << v.fix;
  EXPECT_NE(v.fix.find("CUDA 10.0"), std::string::npos) << v.fix;
  auto newer =
      answer("ImportError: libcublas.so.11: cannot open shared object file\nWith CUDA 12.2 installed\n");
  EXPECT_EQ(newer.layer, "frameworks");
  EXPECT_NE(newer.fix.find("CUDA 11.x"), std::string::npos) << newer.fix;
  // The same CUDA: a loader-path problem, the library's own layer.
  EXPECT_EQ(answer("ImportError: libcudart.so.10.0: cannot open shared object file\nwith CUDA 10.0\n").layer,
            "cuda_runtime");
  // No CUDA stated: nothing to compare.
  EXPECT_EQ(answer("ImportError: libcublas.so.11: cannot open shared object file\n").layer, "libraries");
}

// A wrapper whose details follow, or a symptom in words, gives way to the message that says more.
TEST(MachineFixTest, WrappersAndSymptomsInWordsDeferToTheSpecificMessage) {
  auto v = answer(
      "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:268, unhandled system error (run with "
      "NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
      "Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)\n");
  EXPECT_EQ(v.id, "nccl-shm-exhausted");
  auto words =
      answer("my model does not use the GPU at all\nCould not load dynamic library 'libcudnn.so.8'\n");
  EXPECT_NE(words.id, "gpu-not-used-said");
  EXPECT_EQ(answer("my model does not use the GPU at all\n").id, "gpu-not-used-said");
  EXPECT_EQ(answer("CUDA not found on WSL\n").layer, "driver_api");
  EXPECT_EQ(answer("Can't get nvidia-smi to work: the pod does not detect the GPU\n").layer, "container");
  auto ort =
      answer("docker run --gpus all img\nonnxruntime is not using the GPU, only CPUExecutionProvider\n");
  EXPECT_EQ(ort.layer, "frameworks");
  EXPECT_NE(ort.fix.find("onnxruntime-gpu"), std::string::npos);
}

// A ROCm build of PyTorch on an NVIDIA machine (a launcher that chose AMD's index).
TEST(MachineFixTest, ARocmBuildOfTorchCannotUseNvidiaGpus) {
  auto v = answer(
      "Looking in indexes: https://download.pytorch.org/whl/rocm5.4.2\n"
      "Collecting torch==2.0.1+rocm5.4.2\n"
      "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS\n");
  EXPECT_EQ(v.layer, "frameworks");
  EXPECT_EQ(v.id, "frameworks.rocm_build");
  EXPECT_NE(v.fix.find("whl/cu"), std::string::npos) << v.fix;
  // With an NVIDIA GPU stated the build alone is an error.
  Json report = report::new_report();
  cli::apply_stated_facts(report, {"torch=2.0.1+rocm5.4.2", "gpu=RTX 3090"}, {},
                          kb::KnowledgeBase::builtin());
  rules::attach_diagnosis(report, rules::diagnose(report, kb::KnowledgeBase::builtin()));
  auto findings = cli::stated_findings(report, {}, kb::KnowledgeBase::builtin());
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0]["id"], "frameworks.rocm_build");
  EXPECT_EQ(findings[0]["severity"], "error");
}

// nvcc rejecting an architecture: dropped by newer toolkits, or "native", is the build's list to change;
// one newer than this nvcc keeps the toolkit answer.
TEST(MachineFixTest, AnArchitectureNvccDroppedIsTheBuildsListToChange) {
  auto dropped = answer("nvcc fatal : Unsupported gpu architecture 'compute_35'\n");
  EXPECT_EQ(dropped.layer, "binaries");
  EXPECT_NE(dropped.fix.find("last targeted by CUDA 11.8"), std::string::npos) << dropped.fix;
  // An nvcc that still targets it: not the dropped case.
  auto old_nvcc = answer(
      "nvcc fatal : Unsupported gpu architecture 'compute_35'\n"
      "Cuda compilation tools, release 11.5, V11.5.119\n");
  EXPECT_EQ(old_nvcc.layer, "cuda_runtime");
  auto too_new = answer("nvcc fatal : Unsupported gpu architecture 'compute_89'\n");
  EXPECT_EQ(too_new.layer, "cuda_runtime");
  auto native = answer(
      "nvcc fatal   : Value 'native' is not defined for option 'gpu-architecture'\n"
      "Cuda compilation tools, release 11.5, V11.5.119\n",
      {"gpu=Tesla T4"});
  EXPECT_EQ(native.layer, "binaries");
  EXPECT_NE(native.fix.find("-arch=sm_75"), std::string::npos) << native.fix;
  EXPECT_NE(native.fix.find("11.6"), std::string::npos) << native.fix;
  EXPECT_NE(native.fix.find("yours is 11.5"), std::string::npos) << native.fix;
  EXPECT_EQ(answer("nvcc fatal : Unsupported gpu architecture 'compute_native'\n").layer, "binaries");
}

// Without a report (explain --no-collect, nothing stated) the fixes that need only the message and the
// knowledge base still apply.
TEST(MachineFixTest, MessageOnlyFixesNeedNoReport) {
  const auto& kb = kb::KnowledgeBase::builtin();
  auto found = explain_text("nvcc fatal : Unsupported gpu architecture 'compute_30'\n", kb);
  add_message_fixes(found, kb);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front().machine_layer, "binaries");
  EXPECT_NE(found.front().machine_fix.find("compute_30"), std::string::npos);
  EXPECT_TRUE(found.front().machine.empty());  // no machine lines about a machine nobody described
}

// A torch build for a newer CUDA than the driver is the driver's to fix, with the driver's version; before
// CUDA 11 there is no minor-version compatibility to run it.
TEST(MachineFixTest, ADriverOlderThanTheTorchBuildNamesTheDriver) {
  auto v = answer("torch.cuda.is_available() False\n", {"torch=1.3.0", "driver=410.48"});
  EXPECT_EQ(v.layer, "driver_api");
  EXPECT_NE(v.fix.find("418.39"), std::string::npos) << v.fix;
  EXPECT_NE(v.summary.find("no minor-version compatibility"), std::string::npos) << v.summary;
  // A torch wheel without the GPU's kernels is the binaries layer, as "no kernel image" is.
  auto wheel = answer("CUDA error: no kernel image is available for execution on the device\n",
                      {"torch=2.10.0+cu128", "gpu=Tesla P100"});
  EXPECT_EQ(wheel.layer, "binaries");
  EXPECT_NE(wheel.fix.find("cu126"), std::string::npos) << wheel.fix;
}

// Error 35 beside a driver that runs every runtime of its CUDA major (minor-version compatibility) is
// not a version gap: in a container the container does not reach the driver, elsewhere another
// libcuda (or none) is loaded. A runtime of a newer major stated beside it is a real gap.
TEST(MachineFixTest, InsufficientDriverBesideANewEnoughDriverIsNotAVersionGap) {
  const std::string msg = "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n";
  auto pod =
      answer("I'm running the faster-whisper container in my k8s cluster.\n" + msg, {"driver=550.144.03"});
  EXPECT_EQ(pod.layer, "container");
  EXPECT_NE(pod.fix.find("nvidia.com/gpu"), std::string::npos) << pod.fix;
  EXPECT_NE(pod.fix.find("CUDA 13"), std::string::npos) << pod.fix;  // the one runtime it would refuse
  auto bare = answer(msg, {"driver=550.144.03", "torch=2.4.0+cu121"});
  EXPECT_EQ(bare.layer, "driver_api");
  EXPECT_NE(bare.fix.find("LD_LIBRARY_PATH"), std::string::npos) << bare.fix;
  EXPECT_EQ(bare.fix.find("CUDA 13"), std::string::npos) << bare.fix;  // the runtime is known: 12.1
  // A CUDA 12 torch on a CUDA 11 driver is a real gap: the driver is what changes.
  auto gap = answer("docker run --gpus all img\n" + msg, {"driver=470.256.02", "torch=2.4.0+cu121"});
  EXPECT_EQ(gap.layer, "driver_api");
  EXPECT_EQ(gap.fix.find("does not reach"), std::string::npos) << gap.fix;
  // An old driver and no runtime stated: most often the runtime is newer; the message's own fix stands.
  EXPECT_EQ(answer("in a container\n" + msg, {"driver=470.256.02"}).layer, "driver_api");
}

// A driver that does not come up on a GPU past its last driver branch: the K80 (Kepler) needs R470
// (https://github.com/skypilot-org/skypilot/issues/449: a newer cloud image on Azure's K80).
TEST(MachineFixTest, ANoDriverMessageOnAGpuPastItsLastBranchNamesThatBranch) {
  const std::string smi =
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
      "NVIDIA driver is installed and running.\n";
  auto k80 = answer(smi, {"gpu=Tesla K80"});
  EXPECT_EQ(k80.layer, "kernel_driver");
  EXPECT_NE(k80.fix.find("R470"), std::string::npos) << k80.fix;
  // A driver of the GPU's own branch is not the cause: the signature's own advice stands.
  auto r470 = answer(smi, {"gpu=Tesla K80", "driver=470.256.02"});
  EXPECT_EQ(r470.fix.find("R470"), std::string::npos) << r470.fix;
  // Pascal's last branch (R580) still runs the newest CUDA: an unknown driver is not presumed too new.
  EXPECT_EQ(answer(smi, {"gpu=GTX 1080"}).fix.find("R580"), std::string::npos);
  // A GPU every branch still drives: nothing about legacy branches.
  EXPECT_EQ(answer(smi, {"gpu=RTX 4090"}).fix.find("legacy"), std::string::npos);
}

// Messages whose layer the setting decides: a full /dev/shm in a container, a GPU Operator's toolkit
// looking for a driver container, a Microsoft Store Python that ignores PATH.
TEST(MachineFixTest, TheSettingDecidesTheLayerOfAFullDiskAToolkitRootAndADllSearch) {
  EXPECT_EQ(answer("OSError: [Errno 28] No space left on device\n").layer, "host");
  auto shm = answer(
      "docker run --gpus all nvcr.io/nvidia/pytorch:23.09-py3\nOSError: [Errno 28] No space left on device\n");
  EXPECT_EQ(shm.layer, "container");
  EXPECT_NE(shm.fix.find("--shm-size"), std::string::npos) << shm.fix;
  auto operator_root = answer(
      "microk8s enable gpu\nstderr: nvidia-container-cli.real: initialization error: load library failed: "
      "libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown\n");
  EXPECT_EQ(operator_root.layer, "container");
  EXPECT_NE(operator_root.fix.find("root = \"/\""), std::string::npos) << operator_root.fix;
  auto store =
      answer("Could not load dynamic library 'cudart64_101.dll'\nI'm using Python3.8 from Windows Store.\n");
  EXPECT_EQ(store.layer, "host");
  EXPECT_NE(store.fix.find("System32"), std::string::npos) << store.fix;
}

// CTranslate2's float16 refused: on a GPU without FP16 tensor cores the compute type changes; on one
// with them the model ran on the CPU (https://github.com/m-bain/whisperX/issues/1143: an RTX 4050 with a
// CPU-only torch).
TEST(MachineFixTest, CTranslate2sFloat16RefusalDependsOnTheGpusComputeCapability) {
  const std::string msg =
      "ValueError: Requested float16 compute type, but the target device or backend do not support efficient "
      "float16 computation.\n";
  auto pascal = answer(msg, {"gpu=GTX 1070"});
  EXPECT_EQ(pascal.layer, "binaries");
  EXPECT_NE(pascal.fix.find("compute_type='float32' or 'int8'"), std::string::npos) << pascal.fix;
  auto ada = answer(msg, {"gpu=RTX 4050"});
  EXPECT_EQ(ada.layer, "frameworks");
  EXPECT_NE(ada.fix.find("CUDA build of PyTorch"), std::string::npos) << ada.fix;
  EXPECT_EQ(answer(msg).layer, "binaries");
}

// A GPU passed through to a VM: the hypervisor's settings, not the GPU, decide.
TEST(MachineFixTest, AGpuInAVirtualMachineIsTheVmsSetting) {
  auto kvm = answer(
      "If in VM xml I add <kvm><hidden state='on'/></kvm> then nvidia-smi works, however remove it, we have "
      "`Unable to determine the device handle for GPU 0000:02:01.0: Unknown Error`\n(passed through with vfio)\n");
  EXPECT_EQ(kvm.layer, "host");
  EXPECT_NE(kvm.fix.find("kvm=off"), std::string::npos) << kvm.fix;
  // Bare metal: the GPU itself.
  EXPECT_EQ(answer("Unable to determine the device handle for GPU 0000:02:00.0: Unknown Error\n").layer,
            "nvml");
}

}  // namespace
}  // namespace cudiag::explain
