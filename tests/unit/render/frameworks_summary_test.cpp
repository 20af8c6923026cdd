// The frameworks layer in the human formats: the real cudiag binary on the
// frameworks fixture machine (tests/fixtures/frameworks/machine with its
// built ELF files, a 535 kernel module, no GPU) rendered as text, Markdown and
// HTML; then the summary's own rules on small reports.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../frameworks/frameworks_machine.h"
#include "render/render.h"
#include "render/text_summary.h"
#include "render_test_util.h"

namespace cudiag {
namespace {

namespace fs = std::filesystem;
using machine_test::run_program;
using machine_test::RunResult;

// Display columns of a UTF-8 line (every character cudiag writes is one column wide).
std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

// The frameworks block of the text report: its first line to the line before the next layer or blank line.
std::vector<std::string> frameworks_block(const std::string& text) {
  std::vector<std::string> block;
  bool in = false;
  for (const auto& line : lines_of(text)) {
    if (!in && line.find(" frameworks    ") != std::string::npos)
      in = true;
    else if (in && (line.empty() || line[0] != ' '))
      break;
    if (in) block.push_back(line);
  }
  return block;
}

bool has_line(const std::vector<std::string>& lines, const std::string& want) {
  return std::find(lines.begin(), lines.end(), want) != lines.end();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

class FrameworksSummaryMachine : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ =
        new fs::path(fs::path(CUDIAG_FRAMEWORKS_WORK_DIR) / ("render-machine-" + std::to_string(::getpid())));
    frameworks_test::build_frameworks_machine(*root_);
    std::string environ;
    for (const auto& [k, v] : frameworks_test::user_env()) environ += k + "=" + v + '\0';
    fs::create_directories(*root_ / "proc/self");
    std::ofstream(*root_ / "proc/self/environ", std::ios::binary) << environ;
    // The R535 kernel module this project's CI machine has: CUDA 12.2.
    fs::create_directories(*root_ / "proc/driver/nvidia");
    std::ofstream(*root_ / "proc/driver/nvidia/version")
        << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n";
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*root_, ec);
    delete root_;
    root_ = nullptr;
  }
  static RunResult cudiag(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {CUDIAG_BINARY, "--root", root_->string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv, 60);
  }
  static fs::path* root_;
};

fs::path* FrameworksSummaryMachine::root_ = nullptr;

TEST_F(FrameworksSummaryMachine, TextNamesEachFrameworkItsBuildAndItsLibraries) {
  auto r = cudiag({"check"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  auto block = frameworks_block(r.out);
  ASSERT_FALSE(block.empty()) << r.out;
  auto text = joined(block);
  // Layer mark from the diagnosis; one line per environment, home shown as ~.
  EXPECT_EQ(block[0], "✗ frameworks    ~/venv (venv, Python 3.11) · nvidia-* wheels: 4 cu12") << text;
  // torch: its local tag, the CUDA it was built for, the finding about its CUDA on R535.
  bool nvcc = fs::exists(frameworks_test::elf("libtorch_cuda.so"));
  if (nvcc) {
    EXPECT_TRUE(has_line(block, "                  ✗ torch 2.4.0+cu124 · CUDA 12.4 · sm_75,80,86 + PTX"))
        << text;
    EXPECT_TRUE(
        has_line(block, "                      compute_86 · frameworks.cuda_build_needs_newer_driver"))
        << text;
  } else {
    EXPECT_NE(text.find("✗ torch 2.4.0+cu124 · CUDA 12.4 · frameworks.cuda_build_needs_newer_driver"),
              std::string::npos)
        << text;
  }
  // The libraries it would load: the wheels' copies together, the two wrong copies flagged with their
  // findings.
  EXPECT_TRUE(
      has_line(block, "                    loads cudart 12.4.99, cuDNN 9.1.0.70, cuSPARSE 12.3.1.170"))
      << text;
  EXPECT_TRUE(has_line(block, "                      from nvidia-* wheels")) << text;
  EXPECT_TRUE(
      has_line(block, "                    ! NCCL 2.18.3 from /usr/lib/x86_64-linux-gnu (default path)"))
      << text;
  EXPECT_TRUE(has_line(block, "                    ✗ nvJitLink 12.1.105 from /usr/local/cuda-12.1/lib64"))
      << text;
  EXPECT_TRUE(has_line(block, "                        (LD_LIBRARY_PATH) · frameworks.library_shadowed"))
      << text;
  // Debian's CPU build: no finding without a GPU.
  EXPECT_TRUE(has_line(block, "                /usr (system, Python 3.11)")) << text;
  EXPECT_TRUE(has_line(block, "                  ✓ torch 1.13.0a0+gitunknown · CPU-only")) << text;
  // The conda environment: every framework, JAX's CUDA 13 plugin an error on R535, the missing cuDNN 8.
  EXPECT_TRUE(
      has_line(block, "                  ! tensorflow 2.15.0 · CUDA 12.2, cuDNN 8 · sm_50,60,70,80 +"))
      << text;
  EXPECT_TRUE(has_line(block, "                  ✗ jax 0.7.1 · CUDA 13 (jax-cuda13-plugin 0.7.1) ·")) << text;
  EXPECT_TRUE(
      has_line(block, "                    ! libcudart.so.13, libcublas.so.13, libcudnn.so.9 not found"))
      << text;
  EXPECT_TRUE(has_line(block, "                  ! cupy-cuda12x 13.3.0 · CUDA 12")) << text;
  EXPECT_TRUE(has_line(block, "                  ✗ onnxruntime-gpu 1.18.0 · CUDA 12.2, cuDNN 8")) << text;
  EXPECT_TRUE(has_line(block, "                    ✗ libcudnn.so.8 not found (needed at load time) ·"))
      << text;
  // A finding about the environment as a whole sits under it, once.
  EXPECT_TRUE(has_line(block, "                  ! frameworks.mixed_cuda_majors")) << text;
  EXPECT_EQ(text.find("mixed_cuda_majors"), text.rfind("mixed_cuda_majors")) << text;
  EXPECT_EQ(block.back(), "                no framework in /opt/conda") << text;
  for (const auto& line : block) EXPECT_LE(columns(line), 80u) << line;
  // Not a terminal: no colour.
  EXPECT_EQ(r.out.find('\033'), std::string::npos);
}

// Colour only on a terminal, and never with NO_COLOR: the frameworks marks too.
TEST_F(FrameworksSummaryMachine, ColourOnlyOnATerminalWithoutNoColor) {
  const char* script = R"py(
import os, pty, sys
no_color = sys.argv[1] == "1"
pid, fd = pty.fork()
if pid == 0:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    if no_color:
        env["NO_COLOR"] = "1"
    os.execve(sys.argv[2], sys.argv[2:], env)
out = b""
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
)py";
  auto tty = render_test::python(script, {"0", CUDIAG_BINARY, "--root", root_->string(), "check"});
  EXPECT_NE(tty.out.find("\033[31m✗\033[0m torch 2.4.0+cu124"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("\033[32m✓\033[0m torch 1.13.0a0+gitunknown"), std::string::npos);
  auto no_color = render_test::python(script, {"1", CUDIAG_BINARY, "--root", root_->string(), "check"});
  EXPECT_NE(no_color.out.find("✓ torch 1.13.0a0+gitunknown"), std::string::npos) << no_color.out;
  EXPECT_EQ(no_color.out.find('\033'), std::string::npos);
}

TEST_F(FrameworksSummaryMachine, MarkdownAndHtmlNestTheSameLines) {
  // Exit 1: the report has error findings.
  auto md = cudiag({"report", "--format", "md"});
  ASSERT_EQ(md.exit_code, 1) << md.err;
  EXPECT_NE(md.out.find("<b>frameworks</b> — error"), std::string::npos);
  EXPECT_NE(md.out.find("\n- \\~/venv (venv, Python 3.11) · nvidia-\\* wheels: 4 cu12\n"), std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("\n  - ✅ torch 1.13.0a0+gitunknown · CPU-only\n"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("\n    - ⚠️ NCCL 2.18.3 from /usr/lib/x86\\_64-linux-gnu (default path) · "
                        "frameworks.library\\_version\\_mismatch\n"),
            std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("- **Frameworks:** torch 2.4.0+cu124 built for CUDA 12.4 (\\~/venv) · torch "
                        "1.13.0a0+gitunknown CPU-only (/usr)"),
            std::string::npos)
      << md.out;

  auto html = cudiag({"report", "--format", "html"});
  ASSERT_EQ(html.exit_code, 1) << html.err;
  EXPECT_NE(
      html.out.find("<div class=\"line d1\"><span class=\"mark ok\">✓</span> torch 1.13.0a0+gitunknown · "
                    "CPU-only</div>"),
      std::string::npos)
      << html.out;
  EXPECT_NE(
      html.out.find("<div class=\"line d2\"><span class=\"mark error\">✗</span> libcudnn.so.8 not found"),
      std::string::npos);
  EXPECT_NE(html.out.find("<div class=\"line d0\">/opt/conda/envs/ml (conda, Python 3.10)</div>"),
            std::string::npos);
}

// ---------------------------------------------------------------- small reports

Json fact_of(Json v) { return {{"value", std::move(v)}, {"source", "test"}}; }

Json one_env(Json frameworks) {
  Json env = {{"prefix", "/opt/venv"},          {"kind", "venv"},
              {"python_version", "3.12"},       {"found_via", Json::array()},
              {"site_packages", Json::array()}, {"frameworks", std::move(frameworks)},
              {"nvidia_wheels", Json::array()}};
  return {{"frameworks", {{"environments", Json::array({env})}}}};
}

std::vector<std::string> texts(const std::vector<render::SummaryLine>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines)
    out.push_back(fmt::format("{}{}|{}", l.depth, l.mark.empty() ? "" : " " + l.mark, l.text));
  return out;
}

TEST(FrameworksSummary, BuildVersionArchitecturesAndUnknownBuilds) {
  Json torch = {
      {"name", "torch"},
      {"package", "torch"},
      {"version", fact_of("2.8.0")},
      {"build",
       {{"version", fact_of("2.8.0+cu128")}, {"cuda", fact_of("12.8")}, {"cpu_only", fact_of(false)}}},
      {"binaries",
       Json::array({{{"path", "/x/libtorch_cuda.so"},
                     {"architectures",
                      {{"sass", {"sm_90a", "sm_120", "sm_75", "sm_89", "sm_90", "sm_100a"}},
                       {"ptx", Json::array({{{"arch", "compute_120"}, {"ptx_isa", "8.7"}}})}}}}})}};
  Json rocm = {
      {"name", "torch"},
      {"package", "torch"},
      {"version", fact_of("2.5.1+rocm6.2")},
      {"build", {{"hip", fact_of("6.2.41133")}, {"cuda", fact_of(nullptr)}, {"cpu_only", fact_of(false)}}}};
  Json numba = {{"name", "numba-cuda"}, {"package", "numba-cuda"}, {"version", fact_of("0.9.0")}};
  auto lines = texts(render::framework_summary_lines(one_env(Json::array({torch, rocm, numba}))));
  ASSERT_EQ(lines.size(), 4u) << testing::PrintToString(lines);
  EXPECT_EQ(lines[0], "0|/opt/venv (venv, Python 3.12)");
  // version.py's local tag over the PyPI dist-info's plain version; architectures by compute capability.
  EXPECT_EQ(lines[1], "1 ok|torch 2.8.0+cu128 · CUDA 12.8 · sm_75,89,90,90a,100a,120 + PTX compute_120");
  EXPECT_EQ(lines[2], "1 ok|torch 2.5.1+rocm6.2 · ROCm 6.2.41133");
  // Nothing says what it was built for: "?", not "✓".
  EXPECT_EQ(lines[3], "1 unknown|numba-cuda 0.9.0 · build not known");
}

// torch's companions, from its environment, on torch's line.
TEST(FrameworksSummary, TorchLineNamesItsCompanions) {
  Json torch = {{"name", "torch"}, {"package", "torch"}, {"version", fact_of("2.4.0+cu124")}};
  Json report = one_env(Json::array({torch}));
  report["frameworks"]["environments"][0]["torch_companions"] = {{"torchvision", fact_of("0.19.0+cu124")},
                                                                 {"torchcodec", fact_of("0.1.1")}};
  auto lines = texts(render::framework_summary_lines(report));
  ASSERT_EQ(lines.size(), 2u) << testing::PrintToString(lines);
  EXPECT_EQ(
      lines[1],
      "1 unknown|torch 2.4.0+cu124 · build not known · with torchvision 0.19.0+cu124, torchcodec 0.1.1");
}

TEST(FrameworksSummary, MarksComeFromTheFindingsThatCiteTheFrameworkOrLibrary) {
  Json loads = Json::array({{{"soname", "libcudart.so.12"},
                             {"library", "cudart"},
                             {"how", "DT_NEEDED"},
                             {"path", "/v/nvidia/cuda_runtime/lib/libcudart.so.12"},
                             {"via", "RPATH $ORIGIN/../../nvidia/cuda_runtime/lib"},
                             {"wheel", "nvidia-cuda-runtime-cu12"},
                             {"version", fact_of("12.4.99")}},
                            {{"soname", "libcublasLt.so.12"},
                             {"library", "cublas"},
                             {"how", "DT_NEEDED"},
                             {"path", "/v/nvidia/cublas/lib/libcublasLt.so.12"},
                             {"via", "RUNPATH $ORIGIN"},
                             {"wheel", "nvidia-cublas-cu12"},
                             {"version", fact_of("12.4.5.8")}},
                            {{"soname", "libcudnn.so.8"},
                             {"library", "cudnn"},
                             {"how", "DT_NEEDED"},
                             {"path", nullptr},
                             {"via", "not found"}},
                            {{"soname", "libcufft.so.11"},
                             {"library", "cufft"},
                             {"how", "DT_NEEDED"},
                             {"path", nullptr},
                             {"via", "not found"}},
                            {{"soname", "libnccl.so.2"},
                             {"library", "nccl"},
                             {"how", "DT_NEEDED"},
                             {"path", "/usr/lib/libnccl.so.2"},
                             {"via", "ld.so.cache"},
                             {"version", fact_of("2.18.3")}}});
  Json ort = {
      {"name", "onnxruntime"},
      {"package", "onnxruntime-gpu"},
      {"version", fact_of("1.18.0")},
      {"build", {{"cuda", fact_of("12.2")}, {"cudnn_major", fact_of(8)}, {"cpu_only", fact_of(false)}}},
      {"loads", loads}};
  Json cupy = {{"name", "cupy"},
               {"package", "cupy-cuda12x"},
               {"version", fact_of("13.3.0")},
               {"build", {{"cuda_major", fact_of(12)}, {"cpu_only", fact_of(false)}}}};
  Json report = one_env(Json::array({ort, cupy}));
  report["frameworks"]["environments"][0]["nvidia_wheels"] = Json::array(
      {{{"name", "nvidia-cudnn-cu12"}, {"cuda_major", 12}}, {{"name", "nvidia-cudnn"}, {"cuda_major", 13}}});
  auto ev = [](const std::string& fact) { return Json{{"fact", fact}, {"value", 1}, {"source", "t"}}; };
  const std::string fw0 = "frameworks.environments[0].frameworks[0]";
  report["findings"] = Json::array(
      {{{"id", "frameworks.library_not_found"}, {"severity", "error"}, {"evidence", {ev(fw0 + ".loads[2]")}}},
       {{"id", "frameworks.library_not_found"}, {"severity", "error"}, {"evidence", {ev(fw0 + ".loads[3]")}}},
       {{"id", "frameworks.library_version_mismatch"},
        {"severity", "warning"},
        {"evidence", {ev(fw0 + ".requires"), ev(fw0 + ".loads[4].version")}}},
       {{"id", "frameworks.mixed_cuda_wheels"},
        {"severity", "warning"},
        {"evidence", {ev("frameworks.environments[0].nvidia_wheels")}}},
       // Info findings and findings about other layers leave the marks alone.
       {{"id", "frameworks.note"},
        {"severity", "info"},
        {"evidence", {ev("frameworks.environments[0].frameworks[1]")}}},
       {{"id", "driver_api.init_failed"}, {"severity", "error"}, {"evidence", {ev("driver_api.cuInit")}}}});
  auto lines = texts(render::framework_summary_lines(report));
  std::vector<std::string> want = {
      "0|/opt/venv (venv, Python 3.12) · nvidia-* wheels: 1 cu12, 1 cu13",
      "1 error|onnxruntime-gpu 1.18.0 · CUDA 12.2, cuDNN 8",
      "2|loads cudart 12.4.99, cuBLASLt 12.4.5.8 from nvidia-* wheels",
      "2 error|libcudnn.so.8, libcufft.so.11 not found (needed at load time) · frameworks.library_not_found",
      "2 warning|NCCL 2.18.3 from /usr/lib (ld.so.cache) · frameworks.library_version_mismatch",
      "1 ok|cupy-cuda12x 13.3.0 · CUDA 12",
      "1 warning|frameworks.mixed_cuda_wheels"};
  EXPECT_EQ(lines, want);
}

TEST(FrameworksSummary, EnvironmentsWithoutFrameworksAndNone) {
  Json report = one_env(Json::array());
  report["frameworks"]["environments"][0]["nvidia_wheels"] =
      Json::array({{{"name", "nvidia-cuda-nvcc-cu12"}}});
  EXPECT_EQ(texts(render::framework_summary_lines(report)),
            std::vector<std::string>{"0|no framework in /opt/venv (1 nvidia-* wheel)"});
  Json none = {{"frameworks", {{"environments", Json::array()}}}};
  EXPECT_EQ(texts(render::framework_summary_lines(none)),
            std::vector<std::string>{"0|no Python environment found"});
}

TEST(FrameworksSummary, TextLayerNotCollectedAndColour) {
  Json report = one_env(Json::array({{{"name", "torch"},
                                      {"package", "torch"},
                                      {"version", fact_of("2.4.0")},
                                      {"build", {{"cuda", fact_of("12.4")}}}}}));
  report["tool"] = {{"version", "t"}};
  report["layer_status"] = {{"frameworks", "ok"}};
  auto plain = render::render_report(report, "text", render::RenderOptions{});
  EXPECT_NE(
      plain.find(
          "✓ frameworks    /opt/venv (venv, Python 3.12)\n                  ✓ torch 2.4.0 · CUDA 12.4\n"),
      std::string::npos)
      << plain;
  EXPECT_EQ(plain.find('\033'), std::string::npos);
  render::RenderOptions colour;
  colour.color = true;
  EXPECT_NE(render::render_report(report, "text", colour).find("  \033[32m✓\033[0m torch 2.4.0"),
            std::string::npos);
  // A report from `--no-frameworks` (or an older cudiag) says so.
  report.erase("frameworks");
  EXPECT_NE(
      render::render_report(report, "text", render::RenderOptions{}).find("? frameworks    not collected\n"),
      std::string::npos);
}

}  // namespace
}  // namespace cudiag
