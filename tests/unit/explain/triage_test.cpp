// explain's last resort (explain/triage.h): the component a text names beside
// the words of its failure, from the built-in triage_terms table. The texts
// are shaped like real reports (a title, a traceback, a pasted table) but are
// written here; the corpora score real ones.
#include "explain/triage.h"

#include <gtest/gtest.h>

#include "explain/verdict.h"

namespace cudiag::explain {
namespace {

const kb::KnowledgeBase& kb() { return kb::KnowledgeBase::builtin(); }

TEST(TriageTest, TermsMatchAtWordEdgesUnlessAStarOpensThatEnd) {
  EXPECT_TRUE(has_term("import torch failed", "torch"));
  EXPECT_FALSE(has_term("import torchvision", "torch"));  // a longer word
  EXPECT_FALSE(has_term("pytorch_lightning", "torch"));
  EXPECT_TRUE(has_term("libcudnn_ops.so.9", "*cudnn*"));
  EXPECT_TRUE(has_term("nccl_debug=info", "nccl*"));
  EXPECT_FALSE(has_term("libnccl.so.2", "nccl*"));  // its start is closed
  EXPECT_TRUE(has_term("docker run --gpus all", "--gpus"));
  EXPECT_TRUE(has_term("make[2]: *** [all] error 2", "*]: ***"));
  EXPECT_FALSE(has_term("anything", "*"));
  // A directory of a source file names the program's code, not the machine; other paths still count.
  EXPECT_FALSE(
      has_term("error: unknown error: /root/core/src/cuda/containers/../convenience.cuh:68", "containers"));
  EXPECT_TRUE(has_term("mount error: /var/lib/docker/overlay2/merged/usr/lib/libnvidia-ml.so.1", "docker"));
  EXPECT_TRUE(has_term("running in containers/ on the node", "containers"));
}

TEST(TriageTest, NamesTheComponentOnTheFailureLine) {
  auto g = guess_from_words(
      "Environment: Ubuntu 22.04, driver 550\n"
      "onnxruntime.get_device() returns \"CPU\" although I installed the GPU package\n",
      kb());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->component, "onnxruntime");
  EXPECT_EQ(g->layer, "frameworks");
  EXPECT_EQ(g->term_line, 2u);
  EXPECT_EQ(g->symptom_line, 2u);
  EXPECT_NE(g->fix.find("onnxruntime-gpu"), std::string::npos);
  ASSERT_FALSE(g->sources.empty());
  EXPECT_EQ(g->sources.front().url.rfind("https://", 0), 0u);
}

// A cluster's own container setup answers before the generic container advice on the same line: RKE2/K3s
// regenerate containerd's config from a template, CRI-O needs the hook directory, EKS the GPU AMI.
TEST(TriageTest, AClustersOwnContainerSetupBeatsTheGenericContainerEntry) {
  struct Case {
    const char* text;
    const char* component;
    const char* fix_word;
  };
  for (
      const auto& c : {
          Case{"NVIDIA Container Toolkit fails to set default runtime on RKE2\n", "container-rke2-k3s",
               "config.toml.tmpl"},
          Case{"nvidia-device-plugin pods crash with CRI-O v1.20 after installing the GPU operator\n",
               "container-crio", "hooks_dir"},
          Case{
              "aws-node pods fail to start on g5 GPU nodes with the AL2023 AMI: no nvidia container runtime\n",
              "container-eks-node-image", "accelerated"},
          Case{"docker run --gpus all fails: could not select device driver\n", "container", "--gpus all"},
      }) {
    auto g = guess_from_words(c.text, kb());
    ASSERT_TRUE(g) << c.text;
    EXPECT_EQ(g->component, c.component) << c.text;
    EXPECT_EQ(g->layer, "container") << c.text;
    EXPECT_NE(g->fix.find(c.fix_word), std::string::npos) << g->fix;
  }
}

// A pasted shell prompt names the machine: "container" in its hostname is not the container component
// (https://github.com/pytorch/FBGEMM/issues/4334 ran on a host named autodl-container-...).
TEST(TriageTest, AShellPromptsHostnameIsNoComponent) {
  auto g = guess_from_words(
      "(hstu) root@autodl-container-64eb44b6f5-a462ac91:~/recsys# python -c 'import fbgemm_gpu'\n"
      "fbgemm_gpu import failed, torch cannot load it\n",
      kb());
  ASSERT_TRUE(g);
  EXPECT_NE(g->layer, "container") << g->component;
  // The same word in the report's own text still counts.
  auto inside = guess_from_words("inside the container torch import failed\n", kb());
  ASSERT_TRUE(inside);
  EXPECT_EQ(inside->layer, "container");
}

// GPU buffers handed to an MPI that is not CUDA-aware crash it: the MPI library is the component.
TEST(TriageTest, AnMpiCrashNamesTheMpiLibrary) {
  auto g =
      guess_from_words("mpirun -np 2 ./app crashes with a segfault when passing device pointers\n", kb());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->component, "mpi");
  EXPECT_EQ(g->layer, "libraries");
  EXPECT_NE(g->fix.find("CUDA-aware"), std::string::npos) << g->fix;
}

TEST(TriageTest, SpecificFailureWordsCountBeforeGeneralOnes) {
  // "error" on the tensorflow line is general; "not found" on the cuDNN line is specific.
  auto g = guess_from_words(
      "tensorflow error while starting the session\n"
      "libcudnn_cnn_infer.so.8 not found\n",
      kb());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->component, "cudnn");
  EXPECT_EQ(g->symptom_line, 2u);
}

TEST(TriageTest, TheLastFailureLineAnswersFirst) {
  auto g = guess_from_words(
      "docker compose up fails\n"
      "...\n"
      "...\n"
      "nvcc fatal error: unsupported gpu architecture\n",
      kb());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->component, "toolkit");
  EXPECT_EQ(g->layer, "cuda_runtime");
}

TEST(TriageTest, ALineBesideTheFailureCountsWhenTheFailureLineNamesNothing) {
  auto g = guess_from_words(
      "import tensorflow as tf\n"
      "Num GPUs Available:   0\n",  // padded columns are one space
      kb());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->component, "tensorflow");
  EXPECT_EQ(g->term_line, 1u);
  EXPECT_EQ(g->symptom_line, 2u);
}

TEST(TriageTest, OneLineNamingTwoComponentsAnswersWithTheEarlierLayer) {
  auto g = guess_from_words("inside the docker container torch.cuda.is_available() is False\n", kb());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->layer, "container");
}

TEST(TriageTest, NoGuessWithoutFailureWordsOrWithoutAComponent) {
  // A healthy training log names components but says nothing failed.
  EXPECT_FALSE(guess_from_words("INFO torch 2.3.0+cu121 cudnn 8902 nccl 2.20.5\nstep 10 loss 0.31\n", kb()));
  // A failure that names no component of the stack.
  EXPECT_FALSE(guess_from_words("Error: the dataset path does not exist\n", kb()));
  EXPECT_FALSE(guess_from_words("", kb()));
}

// A --kb table is input: entries and symptoms of the wrong shape never match and never throw.
TEST(TriageTest, AMalformedTableGivesNoGuessInsteadOfFailing) {
  const std::string text = "torch fails\n";
  EXPECT_FALSE(guess_from_words(text, Json::array()));
  EXPECT_FALSE(guess_from_words(text, Json{{"entries", Json::array()}, {"symptoms", Json::object()}}));
  Json odd = {
      {"entries", Json::array({42, Json{{"id", 7}, {"terms", Json::array({"torch"})}},
                               Json{{"id", "torch"}, {"layer", "frameworks"}, {"terms", "torch"}}})},
      {"symptoms", Json{{"f", Json{{"terms", Json::array({"fails"})}, {"generic", "yes"}}}, {"g", 3}}}};
  EXPECT_NO_THROW({ EXPECT_FALSE(guess_from_words(text, odd)); });
  Json fine = {
      {"entries",
       Json::array({Json{{"id", "torch"}, {"layer", "frameworks"}, {"terms", Json::array({"torch"})}}})},
      {"symptoms", Json{{"f", Json{{"terms", Json::array({"fails"})}}}}}};
  auto g = guess_from_words(text, fine);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->layer, "frameworks");
  EXPECT_TRUE(g->sources.empty());
}

TEST(TriageTest, TheVerdictSaysItIsAGuessAndOnlyAnswersWhenNothingElseDoes) {
  const std::string text = "GPUtil.getGPUs() raises an exception on this box\n";
  auto v = decide_or_guess(text, {}, Json::array(), kb());
  EXPECT_EQ(v.layer, "nvml");
  EXPECT_EQ(v.from, "words");
  EXPECT_EQ(v.id, "words/nvml");
  EXPECT_NE(v.summary.find("A guess"), std::string::npos);
  EXPECT_NE(v.summary.find("line 1"), std::string::npos);
  EXPECT_FALSE(v.sources.empty());

  Explanation e;
  e.id = "sig";
  e.layer = "driver_api";
  e.title = "a known message";
  auto known = decide_or_guess(text, {e}, Json::array(), kb());
  EXPECT_EQ(known.from, "message");
  EXPECT_EQ(known.layer, "driver_api");

  Json findings = Json::array({Json{{"id", "kernel_driver.x"},
                                    {"layer", "kernel_driver"},
                                    {"severity", "error"},
                                    {"message", "m"},
                                    {"remediation", "r"}}});
  EXPECT_EQ(decide_or_guess(text, {}, findings, kb()).from, "facts");
}

// The setting a message was seen in, for the machine checks that weigh it: any line naming the
// component, at word edges, in any case; an unknown id or a malformed table names nothing.
TEST(TriageTest, NamesComponentFindsTheSettingAnywhereInTheText) {
  const Json& table = kb().raw("triage_terms");
  EXPECT_TRUE(names_component("first line\nRunning it in my K8s cluster\n", table, "container"));
  EXPECT_TRUE(names_component("docker run --gpus all img", table, "container"));
  EXPECT_FALSE(names_component("a dockerfile-free host\n", table, "container"));  // not at a word edge
  EXPECT_FALSE(names_component("docker run img", table, "no-such-component"));
  EXPECT_FALSE(names_component("docker run img", Json::array(), "container"));
}

// A report names what it runs, then pastes the failure lines further down: with no component on
// or beside any failure line, the line nearest the last failure that names one answers (an
// earlier one on a tie); a component beside a failure still counts before a nearer-anywhere one.
TEST(TriageTest, WithNothingBesideAFailureTheNearestNamedLineAnswers) {
  auto far = guess_from_words("keras 2.15\n\nsomething went wrong\n", kb());
  ASSERT_TRUE(far);
  EXPECT_EQ(far->component, "tensorflow");
  auto docker = guess_from_words(
      "Command:\nsudo docker run --runtime=nvidia --rm nvidia/cuda nvidia-smi\nOutputs:\n"
      "standard_init_linux.go:190: exec user process caused \"no such file or directory\"\n",
      kb());
  ASSERT_TRUE(docker);
  EXPECT_EQ(docker->layer, "container");
  auto tie = guess_from_words("jax 0.4\n\nit fails\n\ncupy 13\n", kb());
  ASSERT_TRUE(tie);
  EXPECT_EQ(tie->component, "jax");
  auto beside = guess_from_words("torch 2.3\n\n\n\ncudnn failed to load\n", kb());
  ASSERT_TRUE(beside);
  EXPECT_EQ(beside->component, "cudnn");
}

// A CUDA source being compiled (make's "x.cu.o", nvcc's "x.cu(12): error") names the toolkit; a
// source location in a runtime log ("kernels.cu:2338") does not.
TEST(TriageTest, ACudaSourceBeingCompiledNamesTheToolkit) {
  auto make = guess_from_words(
      "nms_kernel.cu(12): error: identifier \"THCCeilDiv\" is undefined\n"
      "make[2]: *** [CMakeFiles/nms.dir/nms_kernel.cu.o] Error 1\n",
      kb());
  ASSERT_TRUE(make);
  EXPECT_EQ(make->component, "toolkit");
  EXPECT_FALSE(guess_from_words("CUDA error: launch failure at kernels.cu:2338\n", kb()));
}

}  // namespace
}  // namespace cudiag::explain
