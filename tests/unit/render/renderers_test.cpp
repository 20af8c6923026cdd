// The bug-report and CI formats (md, html, junit, github) on fixture reports.
#include <gtest/gtest.h>

#include "render/render.h"
#include "render_test_util.h"

namespace cudiag {
namespace {

using render_test::fixture_report;
using render_test::python;
using render_test::TempFile;

std::string render(const Json& report, const std::string& format) {
  return render::render_report(report, format, render::RenderOptions{});
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(MarkdownFormat, FindingsComeFirstThenOneLinePerPieceThenDetails) {
  auto md = render(fixture_report("ngc-pytorch-driver-too-old.json"), "md");
  auto findings = md.find("### Findings");
  auto environment = md.find("### Environment");
  auto layers = md.find("### Layers");
  ASSERT_NE(findings, std::string::npos);
  ASSERT_LT(findings, environment);
  ASSERT_LT(environment, layers);
  EXPECT_NE(md.find("First failing layer: **cuda\\_runtime**"), std::string::npos) << md;
  EXPECT_NE(md.find("- **error** · `cuda_runtime` · libcudart 12.4 needs a driver"), std::string::npos) << md;
  EXPECT_NE(md.find("**Fix:** Install driver 550.54.14 or newer"), std::string::npos);
  EXPECT_NE(md.find("- **OS:** Ubuntu 22.04.3 LTS · kernel 5.15.0-91-generic"), std::string::npos) << md;
  EXPECT_NE(md.find("- **GPU:** NVIDIA A100-SXM4-80GB ×2"), std::string::npos) << md;
  EXPECT_NE(md.find("- **Host driver:** kernel module 535.104.05 · supports CUDA 12.2"), std::string::npos)
      << md;
  EXPECT_NE(md.find("- **Container image:** NGC PyTorch 24.04 · CUDA 12.4.1 · Ubuntu 22.04.3 LTS · digest "
                    "nvcr.io/nvidia/pytorch@sha256:0123"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- **Frameworks:** torch 2.3.0a0+6ddf5cf85e built for CUDA 12.4 (/usr)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- **CUDA runtime:** libcudart 12.4 "
                    "(/usr/local/cuda-12.4/targets/x86\\_64-linux/lib/libcudart.so.12.4.127)"),
            std::string::npos)
      << md;
  // A collapsible section per layer, plus the container.
  EXPECT_EQ(count(md, "<details>"), 10u);
  EXPECT_EQ(count(md, "<details>"), count(md, "</details>"));
  EXPECT_NE(md.find("<b>cuda_runtime</b> — error (first failing layer)"), std::string::npos);
  EXPECT_NE(md.find("<b>kernel_test</b> — not collected"), std::string::npos);
  EXPECT_EQ(count(md, "```") % 2, 0u);
}

TEST(MarkdownFormat, SkipsFrameworksWhenAbsentAndEscapesMarkup) {
  auto report = fixture_report("bare-metal-no-kernel-module.json");
  report["findings"][0]["message"] = "a <script>alert(1)</script> and *stars* | pipes";
  auto md = render(report, "md");
  EXPECT_EQ(md.find("**Frameworks:**"), std::string::npos);
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("\\<script\\>"), std::string::npos);
  EXPECT_NE(md.find("- **Container image:** not in a container"), std::string::npos) << md;
  EXPECT_NE(md.find("- **Host driver:** no NVIDIA kernel module loaded · user-space libcuda 535.104.05"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("_(follows from kernel\\_driver)_"), std::string::npos) << md;
}

TEST(MarkdownFormat, StaysUnderGitHubsIssueLimitForAHugeReport) {
  auto report = fixture_report("bare-metal-no-kernel-module.json");
  std::string long_path = "/opt/" + std::string(280, 'p');
  for (int i = 0; i < 3000; ++i) {
    report["libraries"]["lib" + std::to_string(i)] = {{"name", long_path},
                                                      {"instances", Json::array()},
                                                      {"distinct_versions", Json::array()},
                                                      {"multiple_versions", false}};
    report["kernel_driver"]["pci_devices"].push_back({{"bus_id", long_path},
                                                      {"device_id", "0x20b2"},
                                                      {"class", "0x030200"},
                                                      {"kind", "other"},
                                                      {"bound_driver", long_path}});
  }
  EXPECT_LT(render(report, "md").size(), 65536u);
}

TEST(HtmlFormat, IsSelfContained) {
  auto html = render(fixture_report("ngc-pytorch-driver-too-old.json"), "html");
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  for (const char* external : {"<script", "<link", "<img", "<iframe", "@import", "url(", "src="}) {
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  }
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
}

TEST(HtmlFormat, StacksLayersTopToBottomAndMarksTheFirstFailure) {
  auto html = render(fixture_report("ngc-pytorch-driver-too-old.json"), "html");
  std::size_t last = 0;
  for (const char* layer : {"host", "kernel_driver", "nvml", "driver_api", "cuda_runtime", "libraries",
                            "frameworks", "binaries", "kernel_test"}) {
    auto at = html.find(std::string("id=\"box-") + layer + "\"");
    ASSERT_NE(at, std::string::npos) << layer;
    EXPECT_GT(at, last) << layer;
    last = at;
  }
  EXPECT_NE(html.find("<div class=\"layer error first\" id=\"box-cuda_runtime\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"layer ok\" id=\"box-host\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"layer warning\" id=\"box-libraries\">"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"layer unknown\" id=\"box-kernel_test\">"), std::string::npos);
  EXPECT_EQ(count(html, "first failing layer</div>"), 1u);
  EXPECT_NE(html.find("100% of the time"), std::string::npos);
  EXPECT_NE(html.find("&quot;/usr/local/nvidia/lib&quot; &amp; not the image&#39;s default &lt;lib&gt;"),
            std::string::npos);
}

TEST(HtmlFormat, ParsesAsWellFormedMarkup) {
  // Python's HTML parser reports unbalanced tags through our handler.
  TempFile page("r.html", render(fixture_report("ngc-pytorch-driver-too-old.json"), "html"));
  auto r = python(R"(
import sys, html.parser
VOID = {"meta", "br", "hr", "input", "img", "link"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.bad = []
    def handle_starttag(self, tag, attrs):
        if tag not in VOID: self.stack.append(tag)
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag: self.bad.append(tag)
        else: self.stack.pop()
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read()); p.close()
print("unclosed", p.stack, "mismatched", p.bad)
sys.exit(0 if not p.stack and not p.bad else 1)
)",
                  {page.path()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

const char* kJunitCheck = R"(
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
out = []
for suite in root.findall("testsuite"):
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases)
    assert int(suite.get("failures")) == len([c for c in cases if c.find("failure") is not None])
    for c in cases:
        state = "failure" if c.find("failure") is not None else "skipped" if c.find("skipped") is not None else "pass"
        msg = c.find("failure").get("message") if state == "failure" else ""
        out.append("%s|%s|%s|%s" % (suite.get("name"), c.get("name"), state, msg))
print("\n".join(out))
)";

TEST(JunitFormat, OneTestcasePerLayerAndPerRequirement) {
  TempFile xml("r.xml", render(fixture_report("ngc-pytorch-driver-too-old.json"), "junit"));
  auto r = python(kJunitCheck, {xml.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      "cudiag.layers|host|pass|\n"
      "cudiag.layers|kernel_driver|pass|\n"
      "cudiag.layers|nvml|pass|\n"
      "cudiag.layers|driver_api|pass|\n"
      "cudiag.layers|cuda_runtime|failure|libcudart 12.4 needs a driver that supports CUDA 12.4, but driver "
      "535.104.05 "
      "supports CUDA 12.2 and no forward-compatibility package is in use.\n"
      "cudiag.layers|libraries|pass|\n"
      "cudiag.layers|frameworks|failure|torch 2.3.0a0 was built for CUDA 12.4; the driver supports CUDA "
      "12.2.\n"
      "cudiag.layers|binaries|skipped|\n"
      "cudiag.layers|kernel_test|skipped|\n"
      "cudiag.requirements|driver>=535|pass|\n"
      "cudiag.requirements|cuda>=12.4|failure|the driver supports CUDA 12.2, below the required 12.4\n");
}

TEST(JunitFormat, HostileTextStaysWellFormed) {
  auto report = fixture_report("bare-metal-no-kernel-module.json");
  report["findings"][0]["message"] = std::string("]]> <x> & \"q\" \x01\x1b[31m bad \xff\xfe bytes");
  TempFile xml("r.xml", render(report, "junit"));
  auto r = python(kJunitCheck, {xml.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cudiag.layers|kernel_driver|failure|]]> <x> & \"q\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("requirements"), std::string::npos);  // no requirements: no suite
}

TEST(GithubFormat, OneAnnotationPerFindingWithEscaping) {
  auto report = fixture_report("ngc-pytorch-driver-too-old.json");
  auto out = render(report, "github");
  EXPECT_TRUE(out.starts_with(
      "::error title=cudiag cuda_runtime%3A cuda_runtime.needs_newer_driver::libcudart 12.4 needs"));
  EXPECT_NE(out.find("%0AFix: Install driver 550.54.14 or newer"), std::string::npos);
  EXPECT_NE(out.find("\n::warning title=cudiag libraries%3A libraries.cudnn_path_note::cuDNN 9.1.0 is found"),
            std::string::npos);
  EXPECT_NE(out.find("100%25 of the time"), std::string::npos);
  EXPECT_EQ(count(out, "\n::error "), 1u);  // plus the first line
  EXPECT_NE(out.find("::group::cudiag layers\n"), std::string::npos);
  EXPECT_NE(out.find("  cuda_runtime   error  <- first failing layer\n"), std::string::npos) << out;
}

TEST(GithubFormat, ReportTextCannotInjectAWorkflowCommand) {
  auto report = fixture_report("bare-metal-no-kernel-module.json");
  report["findings"][0]["message"] = "x\n::add-mask::y\r\n::set-env name=A::B";
  report["findings"][0]["id"] = "kernel_driver.a,b:c";
  auto out = render(report, "github");
  std::istringstream lines(out);
  std::string line;
  int commands = 0;
  while (std::getline(lines, line)) {
    if (!line.starts_with("::")) continue;
    ++commands;
    EXPECT_TRUE(line.starts_with("::error ") || line.starts_with("::group::") ||
                line.starts_with("::endgroup::"))
        << line;
  }
  EXPECT_EQ(commands, 5);  // three errors, group, endgroup
  EXPECT_NE(out.find("title=cudiag kernel_driver%3A kernel_driver.a%2Cb%3Ac::x%0A::add-mask::y %0A::set-env"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace cudiag
