// lock, verify, diff and check --require end to end: runs the built binary on
// this machine's real layers and on the fixture report of a GPU node.
#include <gtest/gtest.h>

#include "workflow_test_util.h"

namespace cudiag::workflow::testing {
namespace {

// The fixture report with the driver moved from 550.54.15 to `version`.
std::string report_with_driver(const ScratchDir& dir, const std::string& version) {
  Json r = fixture_report();
  r["kernel_driver"]["version"]["value"] = version;
  r["nvml"]["driver_version"]["value"] = version;
  std::string path = dir.path("driver-" + version + ".json");
  write_text(path, r.dump(1));
  return path;
}

TEST(WorkflowCommands, LockThenVerifyOnThisMachineMatches) {
  ScratchDir dir("real");
  auto lock = run_cudiag("lock --no-library-calls -o " + dir.path("stack.lock"));
  ASSERT_EQ(lock.exit_code, 0) << lock.err;
  std::string text = read_text(dir.path("stack.lock"));
  // This machine's real driver libraries are Debian's 535 user-space driver.
  EXPECT_NE(text.find("version = \"535."), std::string::npos) << text;
  EXPECT_NE(text.find("[cuda_runtime]"), std::string::npos) << text;
  auto verify = run_cudiag("verify --no-library-calls " + dir.path("stack.lock"));
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("the stack matches"), std::string::npos) << verify.out;
}

TEST(WorkflowCommands, LockToStdoutAndVerifyAFixtureReport) {
  ScratchDir dir("fixture");
  auto lock = run_cudiag("lock --report " + fixture_report_path() + " -o -");
  ASSERT_EQ(lock.exit_code, 0) << lock.err;
  write_text(dir.path("node.lock"), lock.out);
  auto same = run_cudiag("verify " + dir.path("node.lock") + " --report " + fixture_report_path());
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;

  auto moved =
      run_cudiag("verify " + dir.path("node.lock") + " --report " + report_with_driver(dir, "570.86.10"));
  EXPECT_EQ(moved.exit_code, 1) << moved.out << moved.err;
  EXPECT_NE(moved.out.find("driver.version: 550.54.15 -> 570.86.10"), std::string::npos) << moved.out;

  auto json = run_cudiag("verify --format json " + dir.path("node.lock") + " --report " +
                         report_with_driver(dir, "570.86.10"));
  EXPECT_EQ(json.exit_code, 1);
  Json j = Json::parse(json.out);
  EXPECT_TRUE(j["drifted"].get<bool>());
  bool named = false;
  for (const auto& item : j["items"]) {
    if (item["key"] == "driver.version") {
      named = true;
      EXPECT_EQ(item["status"], "drifted");
      EXPECT_EQ(item["layer"], "kernel_driver");
      EXPECT_EQ(item["actual"], "570.86.10");
    }
  }
  EXPECT_TRUE(named) << json.out;
}

// `verify` of a report collected with --no-library-calls against a lock written with them: cuBLAS
// read from its file name ("12") is not drift, exit 0, and says so in text and JSON.
TEST(WorkflowCommands, VerifyAReportReadLessPreciselyExits0) {
  ScratchDir dir("precision");
  auto lock = run_cudiag("lock --report " + fixture_report_path() + " -o " + dir.path("node.lock"));
  ASSERT_EQ(lock.exit_code, 0) << lock.err;
  Json r = fixture_report();
  r["libraries"]["cublas"]["distinct_versions"] = {"12"};
  write_text(dir.path("names.json"), r.dump(1));
  auto text = run_cudiag("verify " + dir.path("node.lock") + " --report " + dir.path("names.json"));
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("libraries.cublas: 12.4.5.8 -> 12 (read less precisely"), std::string::npos)
      << text.out;
  auto json =
      run_cudiag("verify --format json " + dir.path("node.lock") + " --report " + dir.path("names.json"));
  EXPECT_EQ(json.exit_code, 0) << json.out << json.err;
  Json j = Json::parse(json.out);
  EXPECT_EQ(j["verdict"], "matches");
  bool named = false;
  for (const auto& item : j["items"]) {
    if (item["key"] != "libraries.cublas") continue;
    named = true;
    EXPECT_EQ(item["status"], "unconfirmed");
    EXPECT_EQ(item["actual"], "12");
  }
  EXPECT_TRUE(named) << json.out;

  r["libraries"]["cublas"]["distinct_versions"] = {"13"};
  write_text(dir.path("major.json"), r.dump(1));
  auto major = run_cudiag("verify " + dir.path("node.lock") + " --report " + dir.path("major.json"));
  EXPECT_EQ(major.exit_code, 1) << major.out;
  EXPECT_NE(major.out.find("libraries.cublas: 12.4.5.8 -> 13\n"), std::string::npos) << major.out;
}

TEST(WorkflowCommands, MalformedLockExits2WithOneLine) {
  ScratchDir dir("badlock");
  write_text(dir.path("bad.lock"), "schema = \"cudiag.lock/1\"\n[driver]\nversion = \">=\"\n");
  auto r = run_cudiag("verify " + dir.path("bad.lock") + " --report " + fixture_report_path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "cudiag: error: " + dir.path("bad.lock") +
                       ":3: driver.version: a version is missing after the operator\n");
  auto missing = run_cudiag("verify " + dir.path("nope.lock"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.lock: cannot read"), std::string::npos) << missing.err;
}

TEST(WorkflowCommands, DiffNamesTheChangedDriverAndIdenticalIsZero) {
  ScratchDir dir("diff");
  auto same = run_cudiag("diff " + fixture_report_path() + " " + fixture_report_path());
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("No differences that matter"), std::string::npos) << same.out;

  auto changed = run_cudiag("diff " + fixture_report_path() + " " + report_with_driver(dir, "570.86.10"));
  EXPECT_EQ(changed.exit_code, 1) << changed.out << changed.err;
  EXPECT_NE(changed.out.find("kernel_driver\n    driver: 550.54.15 -> 570.86.10"), std::string::npos)
      << changed.out;

  auto json = run_cudiag("diff --format json - " + report_with_driver(dir, "535.104.05") + " < " +
                         fixture_report_path());
  EXPECT_EQ(json.exit_code, 1) << json.err;
  Json j = Json::parse(json.out);
  ASSERT_FALSE(j["compatibility"].empty());
  EXPECT_EQ(j["compatibility"][0]["key"], "driver");
  EXPECT_EQ(j["compatibility"][0]["before"], "550.54.15");
  EXPECT_EQ(j["compatibility"][0]["after"], "535.104.05");
}

TEST(WorkflowCommands, DiffOfOnlyPathsAndEnvironmentIsZero) {
  ScratchDir dir("diffpaths");
  Json r = fixture_report();
  r["host"]["environment"]["LD_LIBRARY_PATH"] = {{"value", "/opt/other"}, {"source", "env:LD_LIBRARY_PATH"}};
  r["collected_at"] = "2027-01-01T00:00:00Z";
  r["timings"]["total_ms"] = 99.0;
  write_text(dir.path("b.json"), r.dump());
  auto d = run_cudiag("diff " + fixture_report_path() + " " + dir.path("b.json"));
  EXPECT_EQ(d.exit_code, 0) << d.out << d.err;
  EXPECT_NE(d.out.find("host.environment.LD_LIBRARY_PATH"), std::string::npos) << d.out;
  EXPECT_EQ(d.out.find("total_ms"), std::string::npos) << d.out;
}

TEST(WorkflowCommands, DiffBadInputExits2) {
  ScratchDir dir("diffbad");
  write_text(dir.path("trunc.json"), "{\"schema\": \"cudiag.report/1\", \"host\": {");
  auto r = run_cudiag("diff " + fixture_report_path() + " " + dir.path("trunc.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("trunc.json: not valid JSON"), std::string::npos) << r.err;
  write_text(dir.path("other.json"), "{\"a\": 1}");
  r = run_cudiag("diff " + dir.path("other.json") + " " + fixture_report_path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("other.json: not a cudiag report"), std::string::npos) << r.err;
}

TEST(WorkflowCommands, CheckRequireSatisfiedUnsatisfiedAndBadSyntax) {
  ScratchDir dir("require");
  // This machine: Debian's real 535 driver libraries, no GPU.
  auto ok =
      run_cudiag("check --no-library-calls --format json --require 'driver>=530' --require 'driver<600'");
  Json j = Json::parse(ok.out);
  ASSERT_EQ(j["requirements"].size(), 2u) << ok.out;
  EXPECT_TRUE(j["requirements"][0]["satisfied"].get<bool>()) << j["requirements"].dump();
  EXPECT_TRUE(j["requirements"][1]["satisfied"].get<bool>());

  auto bad =
      run_cudiag("check --no-library-calls --format json --require 'driver>=999' --require kernel-test");
  EXPECT_EQ(bad.exit_code, 1);
  Json b = Json::parse(bad.out);
  EXPECT_FALSE(b["requirements"][0]["satisfied"].get<bool>());
  EXPECT_FALSE(b["requirements"][1]["satisfied"].get<bool>());
  EXPECT_EQ(b["requirements"][1]["message"], "the kernel test was not run; use --deep");
  // Each unsatisfied requirement is a finding in its key's layer (rules/requirement_rules.cpp).
  std::vector<std::string> unmet;
  for (const auto& f : b["findings"]) {
    if (f["id"] == "requirement.unsatisfied") unmet.push_back(f["layer"].get<std::string>());
  }
  EXPECT_EQ(unmet, (std::vector<std::string>{"kernel_driver", "kernel_test"})) << b["findings"].dump();

  auto syntax = run_cudiag("check --require 'driver=>550'");
  EXPECT_EQ(syntax.exit_code, 2);
  EXPECT_EQ(syntax.out, "");
  EXPECT_NE(syntax.err.find("--require 'driver=>550'"), std::string::npos) << syntax.err;

  auto to_file = run_cudiag("check --no-library-calls --require 'driver>=530' -o " + dir.path("out.txt"));
  EXPECT_EQ(to_file.out, "");
  EXPECT_NE(read_text(dir.path("out.txt")).find("ok   driver>=530"), std::string::npos);
}

// The exit code comes from the findings alone: on a hypothetical machine with
// no other problem, only the requirement's finding makes `check` fail, and
// `analyze` of the saved report fails the same way.
TEST(WorkflowCommands, CheckRequireFailsThroughItsFindingAlone) {
  ScratchDir dir("require_findings");
  const std::string machine = "check --no-collect --assume driver=550.54.15 --format json";
  auto met = run_cudiag(machine + " --require 'driver>=550'");
  EXPECT_EQ(met.exit_code, 0) << met.out << met.err;
  auto unmet = run_cudiag(machine + " --require 'driver>=999' -o " + dir.path("r.json"));
  EXPECT_EQ(unmet.exit_code, 1) << unmet.err;
  Json r = Json::parse(read_text(dir.path("r.json")));
  ASSERT_EQ(r["findings"].size(), 1u) << r["findings"].dump();
  EXPECT_EQ(r["findings"][0]["id"], "requirement.unsatisfied");
  EXPECT_EQ(r["findings"][0]["severity"], "error");
  EXPECT_NE(r["findings"][0]["message"].get<std::string>().find("driver>=999"), std::string::npos);
  EXPECT_EQ(r["layer_status"]["kernel_driver"], "error");
  auto again = run_cudiag("analyze --format json " + dir.path("r.json"));
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_EQ(Json::parse(again.out)["findings"], r["findings"]);
}

TEST(WorkflowCommands, PlanANewGpuMovesDriverAndRuntimeFirst) {
  auto r = run_cudiag("plan --report " + fixture_report_path() + " --gpu 'RTX 5090' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  Json j = Json::parse(r.out);
  ASSERT_GE(j["also_must_move"].size(), 2u) << r.out;
  // sm_120 is first built by CUDA 12.8, which needs driver >= 570.26 (RN Table 3).
  EXPECT_NE(j["also_must_move"][0].get<std::string>().find(">= 570.26"), std::string::npos) << r.out;
  EXPECT_NE(j["also_must_move"][1].get<std::string>().find("cuda_runtime 12.4"), std::string::npos) << r.out;
  EXPECT_NE(j["order"][0].get<std::string>().find("kernel_driver"), std::string::npos) << r.out;
  EXPECT_NE(j["order"].back().get<std::string>().find("GPU"), std::string::npos) << r.out;
  EXPECT_FALSE(j["findings_introduced"].empty()) << "the overlaid GPU is too new for driver 550";
}

TEST(WorkflowCommands, PlanANewerDriverNeedsNothingElseAndBadInputExits2) {
  auto r = run_cudiag("plan --report " + fixture_report_path() + " --driver 570.86.10");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nothing: the rest of the stack stays compatible"), std::string::npos) << r.out;
  auto bad = run_cudiag("plan --report " + fixture_report_path() + " --torch 9.9.0");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--torch 9.9.0: no +cuXYZ label, and the knowledge base has no default PyPI build"),
            std::string::npos)
      << bad.err;
  auto cpu = run_cudiag("plan --report " + fixture_report_path() + " --torch 2.5.1+cpu");
  EXPECT_EQ(cpu.exit_code, 2);
  EXPECT_NE(cpu.err.find("names no CUDA build"), std::string::npos) << cpu.err;
}

// `pip install torch==2.7.0` carries no +cuXYZ label: the plan takes the release's default PyPI build
// (CUDA 12.6) from the knowledge base and says so; 12.6 needs a newer driver than the fixture's 550.
TEST(WorkflowCommands, PlanAPlainTorchVersionUsesTheDefaultPypiBuild) {
  auto r = run_cudiag("plan --report " + fixture_report_path() + " --torch 2.7.0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Plan: torch -> 2.7.0 (CUDA 12.6)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("taken as the default PyPI build (Linux x86_64), CUDA 12.6, from the knowledge base's "
                       "framework_matrix entry torch 2.7"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("must move to >= 560.28.03 for CUDA 12.6"), std::string::npos) << r.out;

  auto j = run_cudiag("plan --report " + fixture_report_path() + " --torch 2.5.1 --format json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  Json plan = Json::parse(j.out);
  EXPECT_EQ(plan["change"], "torch -> 2.5.1 (CUDA 12.4)");
  ASSERT_FALSE(plan["notes"].empty()) << j.out;
  EXPECT_NE(plan["notes"][0].get<std::string>().find("entry torch 2.5"), std::string::npos) << j.out;
  EXPECT_TRUE(plan["also_must_move"].empty()) << "driver 550.54.15 runs CUDA 12.4";

  auto labelled = run_cudiag("plan --report " + fixture_report_path() + " --torch 2.5.1+cu118 --format json");
  ASSERT_EQ(labelled.exit_code, 0) << labelled.err;
  EXPECT_EQ(Json::parse(labelled.out)["change"], "torch -> 2.5.1+cu118 (CUDA 11.8)");
  EXPECT_TRUE(Json::parse(labelled.out)["notes"].empty()) << "the label says which build";
}

}  // namespace
}  // namespace cudiag::workflow::testing
