// --format prometheus and --format nfd on a fixture report (an NGC PyTorch image
// on an A100 node whose 535 driver is too old for its CUDA 12.4 runtime). The
// real programs (promtool, node_exporter, Prometheus) check this output in
// tests/fleet/; here: the values, the label rules and the redaction.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "../run_cudiag.h"
#include "kb/knowledge_base.h"
#include "render/nfd_labels.h"
#include "render/render.h"
#include "render_test_util.h"
#include "workflow/fleet_view.h"

namespace cudiag {
namespace {

Json fixture_with_fleet(const std::string& format) {
  auto report = render_test::fixture_report("ngc-pytorch-driver-too-old.json");
  workflow::add_fleet_view_for(report, format, kb::KnowledgeBase::builtin());
  return report;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool has_line(const std::string& text, const std::string& line) {
  auto lines = lines_of(text);
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

TEST(FleetView, StackGpusAndNewestRuntimeComeFromTheReportAndTheKnowledgeBase) {
  auto v = workflow::fleet_view(render_test::fixture_report("ngc-pytorch-driver-too-old.json"),
                                kb::KnowledgeBase::builtin());
  EXPECT_EQ(v["stack"]["driver"], "535.104.05");
  EXPECT_EQ(v["stack"]["cuda_driver"], "12.2");
  EXPECT_EQ(v["stack"]["cuda_runtime"], "12.4");
  EXPECT_EQ(v["stack"]["cudnn"], "9.1.0");
  ASSERT_EQ(v["gpus"].size(), 2u);
  EXPECT_EQ(v["gpus"][0]["sm"], "sm_80");
  EXPECT_EQ(v["gpus"][0]["architecture"], "Ampere");
  EXPECT_EQ(v["newest_cuda_runtime"], "12.2");
  EXPECT_EQ(v["torch_cuda_variant"], "cu121");    // the newest PyTorch CUDA build a 12.2 driver serves
  EXPECT_EQ(v["collected_at_unix"], 1796119200);  // 2026-12-01T10:00:00Z
  EXPECT_DOUBLE_EQ(v["collect_seconds"].get<double>(), 0.0415);
  EXPECT_FALSE(v.contains("kernel_test"));  // not run
}

TEST(FleetView, OnlyTheFleetFormatsGetIt) {
  EXPECT_TRUE(fixture_with_fleet("prometheus").contains("fleet"));
  EXPECT_TRUE(fixture_with_fleet("nfd").contains("fleet"));
  EXPECT_FALSE(fixture_with_fleet("json").contains("fleet"));
}

TEST(PrometheusFormat, MetricsOfTheReport) {
  auto out = render::render_report(fixture_with_fleet("prometheus"), "prometheus", render::RenderOptions{});
  EXPECT_TRUE(has_line(out, "cudiag_build_info{version=\"0.1.0\",commit=\"fixture\"} 1")) << out;
  EXPECT_TRUE(has_line(out, "cudiag_layer_status{layer=\"driver_api\"} 0")) << out;
  EXPECT_TRUE(has_line(out, "cudiag_layer_status{layer=\"libraries\"} 1")) << out;
  EXPECT_TRUE(has_line(out, "cudiag_layer_status{layer=\"cuda_runtime\"} 2")) << out;
  EXPECT_TRUE(has_line(out, "cudiag_layer_status{layer=\"kernel_test\"} 3")) << out;  // not collected
  EXPECT_TRUE(has_line(out, "cudiag_first_failing_layer_info{layer=\"cuda_runtime\"} 1")) << out;
  EXPECT_TRUE(has_line(
      out,
      "cudiag_finding{id=\"cuda_runtime.needs_newer_driver\",layer=\"cuda_runtime\",severity=\"error\"} 1"))
      << out;
  EXPECT_TRUE(has_line(out, "cudiag_gpus 2")) << out;
  EXPECT_TRUE(has_line(out, "cudiag_last_run_timestamp_seconds 1796119200")) << out;
  EXPECT_TRUE(has_line(out, "cudiag_collect_duration_seconds 0.0415")) << out;
  EXPECT_NE(out.find("cudiag_stack_info{driver=\"535.104.05\",cuda_driver=\"12.2\""), std::string::npos)
      << out;
  EXPECT_NE(out.find("cudnn=\"9.1.0\""), std::string::npos) << out;
  EXPECT_NE(out.find("cudiag_gpu_info{index=\"0\",name=\"NVIDIA A100-SXM4-80GB\",compute_capability=\"8.0\""),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("cudiag_kernel_test_success"), std::string::npos) << "the kernel test did not run";
}

TEST(PrometheusFormat, OneHelpAndTypePerMetricNoTimestampsNoDuplicateSeries) {
  auto out = render::render_report(fixture_with_fleet("prometheus"), "prometheus", render::RenderOptions{});
  std::set<std::string> typed, series;
  const std::regex sample(R"(^([a-z_]+)(\{.*\})? ([^ ]+)$)");
  std::string last_type;
  for (const auto& line : lines_of(out)) {
    if (line.starts_with("# TYPE ")) {
      auto name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(typed.insert(name).second) << "two TYPE lines for " << name;
      EXPECT_TRUE(line.ends_with(" gauge")) << line;
      last_type = name;
      continue;
    }
    if (line.starts_with("# HELP ")) continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, sample)) << "not a sample without timestamp: " << line;
    EXPECT_EQ(m[1].str(), last_type) << "sample outside its family: " << line;
    EXPECT_TRUE(series.insert(m[1].str() + m[2].str()).second) << "duplicate series " << line;
  }
}

TEST(PrometheusFormat, LabelValuesAreEscaped) {
  auto report = fixture_with_fleet("prometheus");
  report["fleet"]["gpus"][0]["name"] = "A \"quoted\" \\ name\nnext";
  auto out = render::render_report(report, "prometheus", render::RenderOptions{});
  EXPECT_NE(out.find(R"(name="A \"quoted\" \\ name\nnext")"), std::string::npos) << out;
}

TEST(PrometheusFormat, GpuUuidOnlyWithIncludeIdentity) {
  auto report = fixture_with_fleet("prometheus");
  EXPECT_EQ(render::render_report(report, "prometheus", render::RenderOptions{}).find("uuid="),
            std::string::npos);
  render::RenderOptions with;
  with.include_identity = true;
  EXPECT_NE(render::render_report(report, "prometheus", with)
                .find("uuid=\"GPU-6a2bb6b3-1e7c-2a8f-3d5e-1f0a9b8c7d01\""),
            std::string::npos);
}

TEST(NfdFormat, LabelsOfTheReportAfterAnExpiry) {
  auto out = render::render_report(fixture_with_fleet("nfd"), "nfd", render::RenderOptions{});
  auto lines = lines_of(out);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[1], "# +expiry-time=2026-12-01T11:00:00Z");  // collected_at + 1 h
  for (const char* l :
       {"cudiag.dev/healthy=false", "cudiag.dev/first-failing-layer=cuda_runtime",
        "cudiag.dev/driver_api.ok=true", "cudiag.dev/cuda_runtime.ok=false", "cudiag.dev/libraries.ok=true",
        "cudiag.dev/driver.full=535.104.05", "cudiag.dev/driver.major=535", "cudiag.dev/driver.minor=104",
        "cudiag.dev/driver.revision=05", "cudiag.dev/driver.cuda=12.2", "cudiag.dev/cuda-runtime.newest=12.2",
        "cudiag.dev/torch.cuda-variant.newest=cu121", "cudiag.dev/gpu.sm_80=true", "cudiag.dev/gpu.count=2",
        "cudiag.dev/gpu.family=ampere"}) {
    EXPECT_TRUE(has_line(out, l)) << l << "\n" << out;
  }
  EXPECT_EQ(out.find("kernel_test.ok"), std::string::npos) << "not collected: no label";
  for (const auto& line : lines) {
    if (line.starts_with("#")) continue;
    auto eq = line.find('=');
    ASSERT_NE(eq, std::string::npos) << line;
    EXPECT_TRUE(render::is_nfd_feature_name(line.substr(0, eq))) << line;
    EXPECT_TRUE(render::is_nfd_label_value(line.substr(eq + 1))) << line;
  }
}

TEST(NfdFormat, WithoutACollectionTimeNoLabels) {
  auto report = fixture_with_fleet("nfd");
  report["fleet"].erase("collected_at_unix");
  auto out = render::render_report(report, "nfd", render::RenderOptions{});
  EXPECT_EQ(out.find("cudiag.dev/"), std::string::npos) << out;
}

// `analyze` hands the fleet formats whatever a saved report holds.
TEST(FleetFormats, PartialOrOddReportsAreRenderedNotAnInternalError) {
  for (const char* text :
       {R"({"schema": "cudiag.report/1", "host": {}})",
        R"({"schema": "cudiag.report/1", "tool": "cudiag 0.1", "collected_at": 5, "root": 7})",
        R"({"schema": "cudiag.report/1", "collected_at": "yesterday", "timings": {"total_ms": "x"}})"}) {
    render_test::TempFile file("r.json", text);
    for (const char* format : {"prometheus", "nfd"}) {
      auto r = test_run::run_cudiag(std::string("analyze --format ") + format + " " + file.path());
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << format << " " << text << "\n" << r.out << r.err;
    }
  }
}

TEST(NfdLabels, NamesAndValuesFollowNfdMastersRules) {
  EXPECT_TRUE(render::is_nfd_feature_name("cudiag.dev/driver.full"));
  EXPECT_TRUE(render::is_nfd_feature_name("cudiag.dev/kernel_driver.ok"));
  EXPECT_FALSE(render::is_nfd_feature_name("driver.full"));                   // no namespace
  EXPECT_FALSE(render::is_nfd_feature_name("feature.node.kubernetes.io/x"));  // *.kubernetes.io
  EXPECT_FALSE(render::is_nfd_feature_name("kubernetes.io/x"));
  EXPECT_FALSE(render::is_nfd_feature_name("cudiag.dev/" + std::string(64, 'a')));  // name over 63
  EXPECT_FALSE(render::is_nfd_feature_name("cudiag.dev/-x"));
  EXPECT_FALSE(render::is_nfd_feature_name("Cudiag.dev/x"));  // prefix is a lower-case DNS name
  EXPECT_TRUE(render::is_nfd_label_value(""));
  EXPECT_TRUE(render::is_nfd_label_value("535.104.05"));
  EXPECT_FALSE(render::is_nfd_label_value("@kernel.version.major"));
  EXPECT_FALSE(render::is_nfd_label_value("NVIDIA A100"));
  EXPECT_FALSE(render::is_nfd_label_value(std::string(64, 'a')));

  EXPECT_EQ(render::nfd_label_value("NVIDIA A100-SXM4-80GB"), "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(render::nfd_label_value("@kernel.version"), "kernel.version");  // never a reference
  EXPECT_EQ(render::nfd_label_value(" (x) "), "x");
  EXPECT_EQ(render::nfd_label_value("@@"), std::nullopt);
  auto cut = render::nfd_label_value(std::string(62, 'a') + "-b");
  ASSERT_TRUE(cut);
  EXPECT_EQ(*cut, std::string(62, 'a'));  // cut to 63, then the trailing '-' trimmed
}

}  // namespace
}  // namespace cudiag
