// The reader of pasted environment dumps: each recognised line becomes the
// --assume fact it states, with its line number; the same facts then drive
// the rules (apply_stated_facts), marked as coming from the pasted text.
#include "explain/pasted_facts.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cli/explain_facts.h"
#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "report/collect.h"
#include "rules/engine.h"
#include "rules/finding.h"
#include "rules/rule_support.h"

namespace cudiag::explain {
namespace {

std::string fact(const std::vector<PastedFact>& facts, const std::string& key) {
  for (const auto& f : facts) {
    if (f.key == key) return f.value;
  }
  return "";
}

TEST(PastedFactsTest, NvidiaSmiHeaderAndGpuRow) {
  auto facts = read_pasted_facts(
      "+-----------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: 11.4     |\n"
      "|   0  NVIDIA GeForce RTX 3090     Off  | 00000000:01:00.0  On |                  N/A |\n");
  EXPECT_EQ(fact(facts, "driver"), "470.86");
  EXPECT_EQ(fact(facts, "gpu"), "GeForce RTX 3090");
  ASSERT_FALSE(facts.empty());
  EXPECT_EQ(facts.front().line, 2u);
}

TEST(PastedFactsTest, CollectEnvCompletesTheTorchBuild) {
  auto facts = read_pasted_facts(
      "PyTorch version: 1.10.2\nIs debug build: False\nCUDA used to build PyTorch: 11.3\n"
      "OS: Ubuntu 20.04.3 LTS (x86_64)\nPython platform: "
      "Linux-5.15.90.1-microsoft-standard-WSL2-x86_64-with-glibc2.35\n"
      "CUDA runtime version: 12.1.105\nNvidia driver version: 535.104.05\n");
  EXPECT_EQ(fact(facts, "torch"), "1.10.2+cu113");
  EXPECT_EQ(fact(facts, "os"), "ubuntu20.04");
  EXPECT_EQ(fact(facts, "wsl"), "2");
  EXPECT_EQ(fact(facts, "nvcc"), "12.1.105");
  EXPECT_EQ(fact(facts, "driver"), "535.104.05");
  EXPECT_EQ(fact(facts, "torch_cuda"), "");  // folded into torch
  EXPECT_EQ(fact(read_pasted_facts("PyTorch version: 2.0.0\nCUDA used to build PyTorch: None\n"), "torch"),
            "2.0.0+cpu");
}

// collect_env prints a None as "Could not collect": torch.version.cuda None is a CPU-only build. And a
// version-less torch takes the CUDA variant of the PyTorch index the install command named, unless a line
// says the build itself.
TEST(PastedFactsTest, TorchBuildFromCouldNotCollectAndFromTheIndexUrl) {
  EXPECT_EQ(fact(read_pasted_facts("PyTorch version: 1.8.1\nCUDA used to build PyTorch: Could not collect\n"),
                 "torch"),
            "1.8.1+cpu");
  EXPECT_EQ(fact(read_pasted_facts("pip install torch --index-url https://download.pytorch.org/whl/cu118\n"
                                   "torch                    2.1.0\n"),
                 "torch"),
            "2.1.0+cu118");
  EXPECT_EQ(fact(read_pasted_facts("pip install torch --index-url https://download.pytorch.org/whl/cu118\n"
                                   "PyTorch version: 2.1.0\nCUDA used to build PyTorch: None\n"),
                 "torch"),
            "2.1.0+cpu");
  // "PyTorch with CUDA version 1.9.1" is no CUDA release.
  EXPECT_EQ(
      fact(read_pasted_facts("installing PyTorch with CUDA version 1.9.1 or below fails\n"), "cuda_runtime"),
      "");
}

TEST(PastedFactsTest, PackageListsCondaBuildsAndPrintedVersions) {
  auto facts = read_pasted_facts(
      "torch==2.1.0+cu121\ntensorflow 2.15.0\njaxlib==0.4.31\ncupy-cuda12x==13.0.0\n"
      "nvidia-cudnn-cu12==8.9.2.26\n[conda] pytorch 2.1.0 py3.10_cuda12.1_cudnn8.9.2_0 pytorch\n");
  EXPECT_EQ(fact(facts, "torch"), "2.1.0+cu121");  // the first statement wins
  EXPECT_EQ(fact(facts, "tensorflow"), "2.15.0");
  EXPECT_EQ(fact(facts, "jaxlib"), "0.4.31");
  EXPECT_EQ(fact(facts, "cupy-cuda12x"), "13.0.0");
  EXPECT_EQ(fact(facts, "cudnn"), "8.9.2.26");
  // torch's companions, as pip list prints them (TorchCodec's name in its own capitals).
  auto companions =
      read_pasted_facts("torchvision                   0.19.0+cu124\nTorchCodec   0.1.1+cu124\n");
  EXPECT_EQ(fact(companions, "torchvision"), "0.19.0+cu124");
  EXPECT_EQ(fact(companions, "torchcodec"), "0.1.1+cu124");
  auto conda = read_pasted_facts(
      "pytorch                   1.3.0           py3.7_cuda10.1.243_cudnn7.6.3_0    pytorch\n");
  EXPECT_EQ(fact(conda, "torch"), "1.3.0+cu101");
  EXPECT_EQ(fact(conda, "cudnn"), "7.6.3");
  // conda's install plans: 4.6+ ("channel/platform::name-version-build") and 4.5 ("name: version-build
  // channel").
  auto plan = read_pasted_facts(
      "The following NEW packages will be INSTALLED:\n"
      "  jaxlib             conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1\n"
      "    pytorch:     0.3.0-py27_cuda9.0.176_cudnn7.0.3hdbbd62b_4 pytorch [cuda90]\n");
  EXPECT_EQ(fact(plan, "jaxlib"), "0.4.4");  // a CPU build: no CUDA in the build string
  EXPECT_EQ(fact(plan, "torch"), "0.3.0+cu90");
  EXPECT_EQ(fact(plan, "cudnn"), "7.0.3");
  auto cuda_jaxlib =
      read_pasted_facts("  jaxlib  conda-forge/linux-64::jaxlib-0.4.23-cuda120py311h5a49b2e_200\n");
  EXPECT_EQ(fact(cuda_jaxlib, "jaxlib"), "0.4.23+cuda12");
  auto banner = read_pasted_facts(
      "Ultralytics YOLOv8.0.196  Python-3.10.5 torch-2.2.1+cpu CPU (12th Gen Intel Core(TM) i5-12600KF)\n");
  EXPECT_EQ(fact(banner, "torch"), "2.2.1+cpu");
  auto yolov5 =
      read_pasted_facts("YOLOv5 v7.0-72 Python-3.8.10 torch-1.13.1+cu117 CUDA:0 (NVIDIA A10G, 22732MiB)\n");
  EXPECT_EQ(fact(yolov5, "torch"), "1.13.1+cu117");
  auto printed = read_pasted_facts("2.1.0+cu121 12.1 8902\n");
  EXPECT_EQ(fact(printed, "torch"), "2.1.0+cu121");
  EXPECT_EQ(fact(printed, "cudnn"), "8.9.2");
}

TEST(PastedFactsTest, ContainersNvccKernelLogAndLoader) {
  auto facts = read_pasted_facts(
      "Cuda compilation tools, release 11.8, V11.8.89\n"
      "`docker run -it nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04 bash`\n"
      "[ 5.1] NVRM: API mismatch: the client has the version 535.154.05, but this kernel module has the "
      "version "
      "535.129.03\n"
      "libcuda.so.1 => not found\nls: cannot access '/dev/nvidia*': No such file or directory\n");
  EXPECT_EQ(fact(facts, "nvcc"), "11.8.89");
  EXPECT_EQ(fact(facts, "cuda_runtime"), "12.4");
  EXPECT_EQ(fact(facts, "env.NVIDIA_REQUIRE_CUDA"), "cuda>=12.4");
  EXPECT_EQ(fact(facts, "container"), "docker");
  EXPECT_EQ(fact(facts, "nvidia_runtime"), "no");  // docker run without --gpus
  EXPECT_EQ(fact(facts, "kernel_module"), "535.129.03");
  EXPECT_EQ(fact(facts, "userspace_driver"), "535.154.05");
  EXPECT_EQ(fact(facts, "libcuda"), "missing");
  EXPECT_EQ(fact(facts, "device_nodes"), "missing");
  EXPECT_EQ(fact(read_pasted_facts("docker run --gpus all img\n"), "nvidia_runtime"), "yes");
}

TEST(PastedFactsTest, PlainProseGivesNoFacts) {
  EXPECT_TRUE(read_pasted_facts("I tried everything and it still does not work.\nPlease help!\n").empty());
}

// The pasted facts go through --assume and the rules exactly as stated facts do.
TEST(StatedFactsTest, PastedFactsAreDiagnosedAndLabelledWithTheirLine) {
  const auto& kb = kb::KnowledgeBase::builtin();
  Json report = report::new_report();
  auto facts = read_pasted_facts(
      "NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: 11.4\n"
      "torch==2.1.0+cu121\n");
  auto stated = cli::apply_stated_facts(report, {}, facts, kb);
  EXPECT_EQ(stated.applied.size(), 2u);
  EXPECT_NE(model::fact_at(report, "kernel_driver.version")
                .value("source", "")
                .find("from the pasted text, line 1"),
            std::string::npos);
  rules::attach_diagnosis(report, rules::diagnose(report, kb));
  auto findings = cli::stated_findings(report, {}, kb);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0]["id"], "frameworks.cuda_build_needs_newer_driver");
  EXPECT_EQ(findings[0]["severity"], "error");
}

TEST(StatedFactsTest, AssumeWinsOverThePasteAndBadPastedValuesAreSkipped) {
  const auto& kb = kb::KnowledgeBase::builtin();
  Json report = report::new_report();
  auto facts = read_pasted_facts("Driver Version: 470.86\nProduct Name : NVIDIA Frobnicator 9000\n");
  auto stated = cli::apply_stated_facts(report, {"driver=550.54.15"}, facts, kb);
  EXPECT_EQ(rules::string_at(report, "kernel_driver.version").value_or(""), "550.54.15");
  ASSERT_EQ(stated.skipped.size(), 1u);
  EXPECT_NE(stated.skipped[0].find("Frobnicator"), std::string::npos);
  EXPECT_THROW(cli::apply_stated_facts(report, {"nonsense=1"}, {}, kb), InputError);
}

// A GPU named in words is one the reporter has, not all of them: CUDA_VISIBLE_DEVICES=1,2,3 beside
// "4 L4 gpus" (https://github.com/PrimeIntellect-ai/verifiers/issues/208) hides nothing, while the
// same index beside an nvidia-smi table that lists one GPU hides it.
TEST(StatedFactsTest, AGpuNamedInProseIsNotTheCountOfTheMachinesGpus) {
  const auto& kb = kb::KnowledgeBase::builtin();
  auto hides_all = [&](const std::string& text) {
    Json report = report::new_report();
    cli::apply_stated_facts(report, {"env.CUDA_VISIBLE_DEVICES=1,2,3"}, read_pasted_facts(text), kb);
    rules::attach_diagnosis(report, rules::diagnose(report, kb));
    auto findings = cli::stated_findings(report, {}, kb);
    return std::any_of(findings.begin(), findings.end(),
                       [](const Json& f) { return f["id"] == "host.cuda_visible_devices_hides_all"; });
  };
  EXPECT_FALSE(
      hides_all("My setup is 4 L4 gpus, I'm using 1 GPU as vLLM server and the rest for training.\n"));
  EXPECT_TRUE(hides_all(
      "|   0  NVIDIA L4                      Off | 00000000:00:03.0 Off |                    0 |\n"));
}

// What reporters write in words: a GPU, an OS, WSL, framework and driver versions.
TEST(PastedFactsTest, ProseNamesGpusOsAndVersions) {
  auto facts = read_pasted_facts(
      "I rebuild this project on Ubuntu 16.04 with GTX1080.\n"
      "tensorflow==2.16 can't utilize the gpu. OS platform and distribution: win10\n"
      "it listed my current PyTorch version as `1.12.0+cu102`\n"
      "My CUDA version is 12.9.41 and my CUDA driver is 570.133.20.\n");
  EXPECT_EQ(fact(facts, "gpu"), "GeForce GTX 1080");
  EXPECT_EQ(fact(facts, "os"), "ubuntu16.04");  // the first OS named
  EXPECT_EQ(fact(facts, "tensorflow"), "2.16");
  EXPECT_EQ(fact(facts, "torch"), "1.12.0+cu102");
  EXPECT_EQ(fact(facts, "driver"), "570.133.20");
  EXPECT_EQ(fact(read_pasted_facts("two RTX 3090 Ti cards and a Tesla T4\n"), "gpu"), "GeForce RTX 3090 Ti");
  EXPECT_EQ(fact(read_pasted_facts("runs on an A100 node\n"), "gpu"), "A100");
  // Workstation cards: the Ada and Blackwell ones share Turing's "RTX 4000" and "RTX 6000".
  EXPECT_EQ(fact(read_pasted_facts("GPU: RTX 4000 Ada\n"), "gpu"), "RTX 4000 Ada Generation");
  EXPECT_EQ(fact(read_pasted_facts("on an RTX PRO 6000 Blackwell\n"), "gpu"), "RTX PRO 6000 Blackwell");
  EXPECT_EQ(fact(read_pasted_facts("two RTX A6000\n"), "gpu"), "RTX A6000");
  EXPECT_EQ(fact(read_pasted_facts("GPU is GTX TITAN X\n"), "gpu"), "GeForce GTX TITAN X");
  EXPECT_EQ(fact(read_pasted_facts("on a TITAN Xp\n"), "gpu"), "TITAN Xp");
  EXPECT_TRUE(read_pasted_facts("Titan is the cluster's name\n").empty());
  // The architecture said outright; a build's list is not the GPU's.
  auto both = read_pasted_facts("I have GTX 980 on my machine and it has compute capability 5.2\n");
  ASSERT_EQ(both.size(), 1u);  // one GPU, by its capability
  EXPECT_EQ(fact(both, "gpu"), "5.2");
  EXPECT_EQ(fact(read_pasted_facts("it has compute capability 5.2\n"), "gpu"), "5.2");
  // A program's minimum is not the GPU's.
  EXPECT_TRUE(
      read_pasted_facts("This program needs a CUDA-Enabled GPU (with at least compute capability 2.0).\n")
          .empty());
  EXPECT_TRUE(read_pasted_facts("requires a GPU with compute capability 7.0 or higher\n").empty());
  EXPECT_EQ(fact(read_pasted_facts("CUDA Capability Major/Minor version number:    6.1\n"), "gpu"), "6.1");
  EXPECT_TRUE(
      read_pasted_facts("The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.\n")
          .empty());
  // The toolkit said in words; not nvidia-smi's header, a path or a framework's build.
  EXPECT_EQ(fact(read_pasted_facts("OSError: ... (in server with cuda 11.1)\n"), "cuda_runtime"), "11.1");
  EXPECT_EQ(fact(read_pasted_facts("我用的是cuda10.0\n"), "cuda_runtime"), "10.0");
  EXPECT_TRUE(read_pasted_facts("| NVIDIA-SMI 535.54   Driver Version: 535.54   CUDA Version: 12.2 |\n"
                                "ls /usr/local/cuda-11.7/lib64\nCUDA used to build PyTorch: 11.8\n")
                  .size() == 1);  // the driver only
  // Lower-case datacenter names, versions inside words and paths are not facts.
  EXPECT_TRUE(read_pasted_facts("see a100.log and /opt/t4/x; profile 2.16 of stuff\n").empty());
  // pip's "===" pin, and a driver version alone on a line of an environment list.
  auto listed = read_pasted_facts("$ pip install torch===1.3.0 torchvision===0.4.1\nUbuntu1804,\n410.48\n");
  EXPECT_EQ(fact(listed, "torch"), "1.3.0");
  EXPECT_EQ(fact(listed, "driver"), "410.48");
  // Not a number inside a sentence, nor a loss value with more digits.
  EXPECT_TRUE(read_pasted_facts("loss 410.4812\nepoch 3 took 410.48 s\n").empty());
}

TEST(PastedFactsTest, CondasDownloadPlanIsAPackageList) {
  auto facts = read_pasted_facts(
      "    pytorch-0.4.1              |py36_cuda9.0.176_cudnn7.1.2_1       463.8 MB  pytorch\n"
      "    cudatoolkit-9.2            |                0       351.0 MB\n"
      "I work under Ubuntu 18.04 and nVidia drivers 390.\n");
  EXPECT_EQ(fact(facts, "torch"), "0.4.1+cu90");
  EXPECT_EQ(fact(facts, "cudnn"), "7.1.2");
  EXPECT_EQ(fact(facts, "cuda_runtime"), "9.2");
  EXPECT_EQ(fact(facts, "driver"), "390");
}

TEST(PastedFactsTest, ADumpLineWinsOverProseAndWslIsNotNativeWindows) {
  auto facts = read_pasted_facts(
      "my GTX 1060 does not work\n"
      "|   0  NVIDIA GeForce RTX 3090     Off  | 00000000:01:00.0  On |                  N/A |\n");
  ASSERT_EQ(std::count_if(facts.begin(), facts.end(), [](const PastedFact& f) { return f.key == "gpu"; }), 1);
  EXPECT_EQ(fact(facts, "gpu"), "GeForce RTX 3090");
  auto wsl = read_pasted_facts("Windows 11\nrunning under WSL2 with Ubuntu 22.04\n");
  EXPECT_EQ(fact(wsl, "wsl"), "2");
  EXPECT_EQ(fact(wsl, "os"), "ubuntu22.04");
}

// A torch build's wheel architectures come from the knowledge base, so the frameworks rules can
// say which wheel carries the GPU's architecture.
TEST(StatedFactsTest, AStatedTorchBuildCarriesItsWheelsArchitectures) {
  const auto& kb = kb::KnowledgeBase::builtin();
  Json report = report::new_report();
  cli::apply_stated_facts(report, {"torch=1.12.0+cu102", "gpu=RTX 3090"}, {}, kb);
  rules::attach_diagnosis(report, rules::diagnose(report, kb));
  auto findings = cli::stated_findings(report, {}, kb);
  auto it = std::find_if(findings.begin(), findings.end(),
                         [](const Json& f) { return f.value("id", "") == "frameworks.no_kernel_for_gpu"; });
  ASSERT_NE(it, findings.end());
  EXPECT_NE(it->value("message", "").find("only sm_37 sm_50 sm_60 sm_70"), std::string::npos);
  EXPECT_NE(it->value("remediation", "").find("whl/cu116"), std::string::npos);
  // A build whose list has the GPU: no finding.
  Json fine = report::new_report();
  cli::apply_stated_facts(fine, {"torch=1.12.0+cu116", "gpu=RTX 3090"}, {}, kb);
  rules::attach_diagnosis(fine, rules::diagnose(fine, kb));
  for (const auto& f : cli::stated_findings(fine, {}, kb))
    EXPECT_NE(f.value("id", ""), "frameworks.no_kernel_for_gpu");
}

}  // namespace
}  // namespace cudiag::explain
