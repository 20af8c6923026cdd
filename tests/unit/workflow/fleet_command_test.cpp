// `cudiag fleet` end to end through the built binary: exit codes 0/1/2, the
// stdin list, every format (JSON keys, a self-contained HTML page with its
// chart, Markdown tables, Prometheus text that promtool accepts, text at 80
// columns) and redaction. Fleets are small, from the fixture GPU node's real
// report and the public-bug fixture report.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "workflow_test_util.h"

namespace cudiag::workflow::testing {
namespace {

Json named(Json r, const std::string& host) {
  r["host"]["hostname"] = {{"value", host}, {"source", "call:gethostname"}};
  return r;
}

std::string old_report_path() {
  return std::string(CUDIAG_TEST_DIR) + "/fixtures/reports/ngc-pytorch-driver-too-old.json";
}

// 4 nodes of the fixture stack, 2 of the old NGC one, and one truncated file.
class FleetCommand : public ::testing::Test {
 protected:
  FleetCommand() : dir_("fleet-cmd") {
    std::filesystem::create_directories(dir_.path("fleet"));
    for (int i = 0; i < 4; ++i)
      write_text(dir_.path(fmt::format("fleet/gpu-{}.json", i)),
                 named(fixture_report(), fmt::format("gpu-{}", i)).dump(2));
    write_text(dir_.path("fleet/old-1.json"), read_text(old_report_path()));
    write_text(dir_.path("fleet/old-2.json"), read_text(old_report_path()));
    write_text(dir_.path("fleet/cut.json"), fixture_report().dump(2).substr(0, 999));
  }
  std::string fleet() const { return dir_.path("fleet"); }
  ScratchDir dir_;
};

TEST_F(FleetCommand, JsonHasTheKeysAndTheCounts) {
  auto r = run_cudiag("fleet --format json " + fleet());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  ASSERT_TRUE(r.json_ok()) << r.out;
  const Json& j = r.report;
  EXPECT_EQ(j["reports"], 6);
  ASSERT_EQ(j["unreadable"].size(), 1u);
  EXPECT_EQ(j["unreadable"][0]["path"], dir_.path("fleet/cut.json"));
  ASSERT_EQ(j["groups"].size(), 2u);
  EXPECT_EQ(j["groups"][0]["count"], 4);
  EXPECT_EQ(j["groups"][0]["hosts"], Json::array({"gpu-0", "gpu-1", "gpu-2", "gpu-3"}));
  EXPECT_EQ(j["groups"][0]["stack"]["driver"], Json::array({"550.54.15"}));
  EXPECT_EQ(j["groups"][1]["count"], 2);
  EXPECT_FALSE(j["groups"][1]["differs_from_majority"].empty());
  Json old = Json::parse(read_text(old_report_path()));
  ASSERT_EQ(j["findings"].size(), old["findings"].size());
  for (const auto& f : old["findings"]) {
    const Json& agg = j["findings"][f["id"].get<std::string>()];
    EXPECT_EQ(agg["count"], 2) << f["id"];
    EXPECT_EQ(agg["hosts"], Json::array({dir_.path("fleet/old-1.json"), dir_.path("fleet/old-2.json")}));
  }
}

TEST_F(FleetCommand, ExitCodes) {
  ScratchDir clean("fleet-clean");
  for (int i = 0; i < 3; ++i) write_text(clean.path(fmt::format("n{}.json", i)), fixture_report().dump());
  auto ok = run_cudiag("fleet " + clean.path(""));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("Verdict: One stack, no error finding."), std::string::npos) << ok.out;
  EXPECT_EQ(run_cudiag("fleet " + fleet()).exit_code, 1);
  auto missing = run_cudiag("fleet " + dir_.path("no-such-dir"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no-such-dir"), std::string::npos) << missing.err;
  EXPECT_TRUE(missing.out.empty());
  write_text(dir_.path("bad.lock"), "schema = \"cudiag.lock/1\"\n[driver]\nversion = 5\n");
  auto bad_lock = run_cudiag("fleet --lock " + dir_.path("bad.lock") + " " + clean.path(""));
  EXPECT_EQ(bad_lock.exit_code, 2) << bad_lock.out;
  EXPECT_NE(bad_lock.err.find("bad.lock"), std::string::npos) << bad_lock.err;
  EXPECT_EQ(run_cudiag("fleet --format yaml " + clean.path("")).exit_code, 2);
  // -o writes the file whole, or not at all.
  auto to_file = run_cudiag("fleet --format json -o " + dir_.path("out.json") + " " + clean.path(""));
  EXPECT_EQ(to_file.exit_code, 0);
  EXPECT_EQ(Json::parse(read_text(dir_.path("out.json")))["reports"], 3);
}

TEST_F(FleetCommand, LockDriftAndStdinList) {
  auto lock = run_cudiag("lock --report " + fixture_report_path() + " -o " + dir_.path("node.lock"));
  ASSERT_EQ(lock.exit_code, 0) << lock.err;
  auto r = test_run::run_shell("find " + fleet() + " -name 'gpu-*' -o -name 'old-1.json' | sort | " +
                               std::string(CUDIAG_BINARY) + " fleet --format json --lock " +
                               dir_.path("node.lock") + " -");
  ASSERT_TRUE(r.json_ok()) << r.out << r.err;
  EXPECT_EQ(r.report["reports"], 5);
  EXPECT_TRUE(r.report["unreadable"].empty());
  EXPECT_EQ(r.report["lock"]["drifted"], Json::array({dir_.path("fleet/old-1.json")}));
  bool driver = false;
  for (const auto& item : r.report["lock"]["items"]) {
    if (item["key"] == "driver.version") {
      driver = true;
      EXPECT_EQ(item["layer"], "kernel_driver");
      EXPECT_EQ(item["count"], 1);
    }
  }
  EXPECT_TRUE(driver) << r.out;
  auto text = run_cudiag("fleet --lock " + dir_.path("node.lock") + " " + fleet());
  EXPECT_NE(text.out.find("Drift from " + dir_.path("node.lock") + ": 2 of 6 nodes"), std::string::npos)
      << text.out;
}

TEST_F(FleetCommand, TextFitsEightyColumnsAndNamesEverything) {
  auto r = run_cudiag("fleet " + fleet());
  EXPECT_NE(r.out.find("6 reports read from 7 files, 1 unreadable; 2 distinct stacks"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("gpu-0, gpu-1, gpu-2, gpu-3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("truncated JSON"), std::string::npos);
  EXPECT_NE(r.out.find("driver: 550.54.15 -> "), std::string::npos) << r.out;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    // A path or a digest longer than a line stays whole (word_wrap); every other line fits.
    bool long_word =
        line.find(dir_.path("")) != std::string::npos || line.find("sha256:") != std::string::npos;
    if (!long_word) {
      std::size_t columns = std::count_if(line.begin(), line.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // UTF-8 continuation bytes take no column
      });
      EXPECT_LE(columns, 80u) << line;
    }
  }
  auto few = run_cudiag("fleet --max-hosts 2 " + fleet());
  EXPECT_NE(few.out.find("gpu-0, gpu-1 and 2 more"), std::string::npos) << few.out;
}

TEST_F(FleetCommand, HtmlIsOnePageWithAChartOfTheGroups) {
  auto r = run_cudiag("fleet --format html " + fleet());
  const std::string& h = r.out;
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(h.find("<svg"), std::string::npos);
  // Two groups: two bars, the majority's as wide as the chart allows.
  std::size_t bars = 0;
  for (auto p = h.find("<rect"); p != std::string::npos; p = h.find("<rect", p + 1)) ++bars;
  EXPECT_EQ(bars, 2u);
  EXPECT_NE(h.find("width=\"640\""), std::string::npos);
  for (const char* fetch : {"<script", "<link", "src=", "url(", "@import", "https://"})
    EXPECT_EQ(h.find(fetch), std::string::npos) << fetch;
}

TEST_F(FleetCommand, MarkdownAndPrometheus) {
  auto md = run_cudiag("fleet --format md " + fleet());
  EXPECT_NE(md.out.find("| # | nodes | share |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| 1 | 4 | 66.7% |"), std::string::npos) << md.out;
  auto prom = run_cudiag("fleet --format prometheus " + fleet());
  EXPECT_NE(prom.out.find("cudiag_fleet_reports 6\n"), std::string::npos) << prom.out;
  EXPECT_NE(prom.out.find("cudiag_fleet_stacks 2\n"), std::string::npos);
  EXPECT_NE(prom.out.find("cudiag_fleet_unreadable_files 1\n"), std::string::npos);
  if (!std::filesystem::exists("/usr/bin/promtool")) GTEST_SKIP() << "promtool not installed";
  write_text(dir_.path("fleet.prom"), prom.out);
  auto lint = test_run::run_shell("promtool check metrics < " + dir_.path("fleet.prom"));
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_TRUE(lint.out.empty() && lint.err.empty()) << lint.out << lint.err;
}

TEST_F(FleetCommand, SecretsInFileNamesAreRedacted) {
  const std::string token = "ghp_" + std::string("A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
  write_text(dir_.path("fleet/" + token + ".json"), "{not json");
  for (const char* format : {"text", "json", "md", "html"}) {
    auto r = run_cudiag(std::string("fleet --format ") + format + " " + fleet());
    EXPECT_EQ(r.out.find(token), std::string::npos) << format;
    EXPECT_NE(r.out.find("redacted"), std::string::npos) << format;
  }
}

}  // namespace
}  // namespace cudiag::workflow::testing
