// `cudiag explain` end to end: runs the built binary. Messages are verbatim
// from the public reports in cases.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../run_cudiag.h"
#include "core/json.h"

namespace cudiag {
namespace {

// stdout and stderr together, as a user sees them.
test_run::RunResult cudiag(const std::string& args) { return test_run::run_cudiag_merged(args); }

// The text output word-wrapped back into one line, so a phrase can be found whatever the wrapping.
std::string flat(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\n';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  return out;
}

std::string fixture(const std::string& name) {
  return std::string(CUDIAG_TEST_DIR) + "/unit/explain/" + name;
}

class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("cudiag-explain-" + name + "-" + std::to_string(::getpid()))) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

std::size_t line_count(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

const char* kInsufficient =
    "'ERROR: cudaGetDeviceCount CUDA driver version is insufficient for CUDA runtime version'";

TEST(ExplainCliTest, UnknownTextExitsOneAndSuggestsCheck) {
  auto r = cudiag("explain --no-collect 'Segmentation fault (core dumped)'");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("cudiag check"), std::string::npos) << r.out;
}

TEST(ExplainCliTest, ReadsStandardInputWithDashOrNoArgument) {
  for (const char* arg : {"-", ""}) {
    auto r = test_run::run_shell(
        std::string("printf '%s\\n' 'AssertionError: Torch not compiled with CUDA enabled' | ") +
        CUDIAG_BINARY + " explain --no-collect " + arg + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("torch-not-compiled-with-cuda"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("layer: frameworks"), std::string::npos) << r.out;
  }
}

TEST(ExplainCliTest, FileFindsEveryMessageOfALog) {
  TempFile log("log",
               "[task] [nvidia-smi(stdout)] Failed to initialize NVML: Driver/library version mismatch\n"
               "some other line\n"
               "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
               "before calling "
               "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was "
               "attempted on non "
               "supported HW\n"
               "nvcc fatal   : Unsupported gpu architecture 'compute_120'\n");
  auto r = cudiag("explain --no-collect --format json --file " + log.path());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Json j = Json::parse(r.out);
  EXPECT_EQ(j["schema"], "cudiag.explain/1");
  EXPECT_EQ(j["recognised"], true);
  ASSERT_EQ(j["explanations"].size(), 3u) << r.out;
  EXPECT_EQ(j["explanations"][0]["id"], "nvml-driver-library-mismatch");
  EXPECT_EQ(j["explanations"][1]["id"], "compat-not-supported-on-device");
  EXPECT_EQ(j["explanations"][1]["lines"], Json::array({3}));
  EXPECT_EQ(j["explanations"][2]["id"], "nvcc-unsupported-arch");
  EXPECT_EQ(j["explanations"][2]["values"]["arch"], "compute_120");
}

// A report no signature knows still names what broke in words: the answer is a guess, said to be one,
// with the named component's layer, its first change and the vendor page it comes from.
TEST(ExplainCliTest, UnknownReportGetsAGuessFromItsWordsMarkedAsOne) {
  TempFile issue("guess",
                 "Kokoro synthesises on the CPU\n"
                 "onnxruntime.get_device() returns \"CPU\" although the server sets the CUDA provider\n");
  auto text = cudiag("explain --no-collect --file " + issue.path());
  EXPECT_EQ(text.exit_code, 1) << text.out;  // still nothing recognised
  EXPECT_NE(flat(text.out).find("Answer: the frameworks layer, from the words of the text (a guess)."),
            std::string::npos)
      << text.out;
  EXPECT_NE(flat(text.out).find("line 2 names ONNX Runtime's build"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("No known CUDA, driver, container or framework error message"), std::string::npos);

  auto json = cudiag("explain --no-collect --format json --file " + issue.path());
  Json j = Json::parse(json.out);
  EXPECT_EQ(j["recognised"], false);
  EXPECT_TRUE(j["explanations"].empty());
  EXPECT_EQ(j["verdict"]["from"], "words");
  EXPECT_EQ(j["verdict"]["id"], "words/onnxruntime");
  EXPECT_NE(j["verdict"]["fix"].get<std::string>().find("onnxruntime-gpu"), std::string::npos);
  EXPECT_EQ(j["verdict"]["sources"][0]["url"],
            "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html");

  // No failure in the words, no guess.
  TempFile healthy("healthy", "INFO torch 2.3.0+cu121 loaded\nstep 10 loss 0.31\n");
  Json quiet = Json::parse(cudiag("explain --no-collect --format json --file " + healthy.path()).out);
  EXPECT_TRUE(quiet["verdict"].is_null()) << quiet.dump();
  // With no answer and nothing stated, the text says which facts would let explain check the
  // reporter's layers; a guess already answers, so it does not.
  TempFile vague("vague", "My training is very slow.\n");
  auto none = cudiag("explain --no-collect --file " + vague.path());
  EXPECT_EQ(none.exit_code, 1) << none.out;
  EXPECT_NE(flat(none.out).find("--assume driver=VERSION --assume gpu=NAME"), std::string::npos) << none.out;
  EXPECT_EQ(text.out.find("--assume driver=VERSION"), std::string::npos) << text.out;
}

// Real reported failures like the text are shown with the fix each thread confirmed, whatever answers;
// with nothing else to go on they answer, marked as coming from them.
TEST(ExplainCliTest, ShowsReportedFailuresLikeTheTextWithTheirConfirmedFixes) {
  TempFile issue(
      "similar",
      "Rootless Podman Error: setting up CDI devices: failed to inject devices: failed to stat CDI "
      "host device \"/dev/dri/renderD129\": no such file or directory\n");
  Json j = Json::parse(cudiag("explain --no-collect --format json --file " + issue.path()).out);
  ASSERT_TRUE(j["similar_reports"].is_array()) << j.dump();
  ASSERT_FALSE(j["similar_reports"].empty()) << j.dump();
  const Json& first = j["similar_reports"][0];
  EXPECT_TRUE(first["url"].get<std::string>().starts_with("https://")) << first.dump();
  EXPECT_FALSE(first["fix"].get<std::string>().empty());
  EXPECT_GE(first["similarity"].get<double>(), 0.25);
  EXPECT_LE(j["similar_reports"].size(), 3u);
  auto text = cudiag("explain --no-collect --file " + issue.path());
  EXPECT_NE(text.out.find("Reported failures like this one, and the fix each thread confirmed:"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find(first["url"].get<std::string>()), std::string::npos) << text.out;
}

TEST(ExplainCliTest, MissingFileIsBadInputOnOneLine) {
  auto r = cudiag("explain --no-collect --file /nonexistent/cuda.log");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(line_count(r.out), 1u) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/cuda.log"), std::string::npos) << r.out;
}

TEST(ExplainCliTest, SavedReportGivesTheMachineSpecificLine) {
  auto r = cudiag(std::string("explain --report ") + fixture("report_driver_535.json") +
                  " 'nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please "
                  "update your driver "
                  "to a newer version, or use an earlier cuda container'");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(flat(r.out).find("Your driver 535.104.05 supports CUDA up to 12.2 (cuDriverGetVersion 12020)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(flat(r.out).find(
                "needs a driver that supports CUDA 12.8; yours supports 12.2 -> install driver 570.26"),
            std::string::npos)
      << r.out;
  EXPECT_NE(flat(r.out).find("first failing layer is cuda_runtime"), std::string::npos) << r.out;
}

TEST(ExplainCliTest, MalformedReportIsBadInputOnOneLine) {
  TempFile broken("broken", "{\"schema\": \"cudiag.report/1\", ");
  auto r = cudiag("explain --report " + broken.path() + " " + kInsufficient);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(line_count(r.out), 1u) << r.out;
  EXPECT_NE(r.out.find(broken.path()), std::string::npos) << r.out;

  TempFile other("other", "[1, 2, 3]");
  auto r2 = cudiag("explain --report " + other.path() + " " + kInsufficient);
  EXPECT_EQ(r2.exit_code, 2) << r2.out;
  EXPECT_NE(r2.out.find("not a cudiag report"), std::string::npos) << r2.out;

  // Bad input even when the text itself is not recognised.
  auto r3 = cudiag("explain --report " + broken.path() + " 'hello'");
  EXPECT_EQ(r3.exit_code, 2) << r3.out;
}

TEST(ExplainCliTest, TextOutputFitsEightyColumns) {
  auto r = cudiag(std::string("explain --no-collect ") + kInsufficient);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::size_t start = 0;
  while (start < r.out.size()) {
    auto end = r.out.find('\n', start);
    if (end == std::string::npos) end = r.out.size();
    std::string line = r.out.substr(start, end - start);
    if (line.find("https://") == std::string::npos) {
      EXPECT_LE(line.size(), 80u) << line;
    }
    start = end + 1;
  }
}

// The real machine: Debian's NVIDIA 535 user-space libraries answer
// cuDriverGetVersion with 12020 (no GPU), so the explanation collected here
// must say the driver supports CUDA 12.2.
TEST(ExplainCliTest, RealMachineExplanationMentionsItsDriverCuda) {
  auto r = cudiag(std::string("explain ") + kInsufficient);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("On this machine (collected now)"), std::string::npos) << r.out;
  EXPECT_NE(flat(r.out).find("supports CUDA up to 12.2 (cuDriverGetVersion 12020)"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace cudiag

namespace cudiag {
namespace {

// Issue 12 §3: explain honours --assume (an unknown key is exit 2 even with --no-collect) and diagnoses it.
TEST(ExplainCliAssumeTest, NoCollectHonoursAssumeAndRejectsUnknownKeys) {
  auto bad = cudiag(std::string("explain --no-collect --assume torchh=2.1.0 ") + kInsufficient);
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("unknown key 'torchh'"), std::string::npos) << bad.out;
  auto r = cudiag(std::string("explain --no-collect --assume torch=2.1.0+cu121 --assume driver=470.82.01 ") +
                  kInsufficient);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto text = flat(r.out);
  EXPECT_NE(text.find("Your driver 470.82.01 supports CUDA up to 11.4"), std::string::npos) << text;
  EXPECT_NE(text.find("frameworks.cuda_build_needs_newer_driver"), std::string::npos) << text;
  EXPECT_NE(text.find("R530"), std::string::npos) << text;
}

// Issue 12 §2: a pasted issue's dumps become facts marked with their line, and the rules name the fix.
TEST(ExplainCliAssumeTest, PastedIssueBodyIsReadIntoFacts) {
  TempFile issue("issue",
                 "Cuda compilation tools, release 11.8, V11.8.89\n"
                 "PyTorch version: 2.1.0+cu121\n"
                 "RuntimeError:\nThe detected CUDA version (11.8) mismatches the version that was used to "
                 "compile\nPyTorch (12.1). Please make sure to use the same CUDA versions.\n");
  auto r = cudiag("explain --file " + issue.path());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto text = flat(r.out);
  EXPECT_NE(text.find("nvcc=11.8.89 (from the pasted text, line 1: nvcc --version)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("torch=2.1.0+cu121 (from the pasted text, line 2"), std::string::npos) << text;
  EXPECT_NE(text.find("frameworks.extension_toolkit_mismatch"), std::string::npos) << text;
  EXPECT_NE(text.find("CUDA_HOME=/usr/local/cuda-12.1"), std::string::npos) << text;
}

}  // namespace
}  // namespace cudiag
