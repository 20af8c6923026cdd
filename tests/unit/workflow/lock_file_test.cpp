#include "workflow/lock_file.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "workflow/verify.h"
#include "workflow_test_util.h"

namespace cudiag::workflow {
namespace {

Stack fixture_stack(const Json& report) { return read_stack(report, kb::KnowledgeBase::builtin()); }

std::string error_of(const std::string& text) {
  try {
    parse_lock(text, "x.lock");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(WorkflowLockFile, WritesEveryLayerOfTheFixture) {
  auto text = write_lock(fixture_stack(testing::fixture_report()), {});
  EXPECT_NE(text.find("schema = \"cudiag.lock/1\""), std::string::npos) << text;
  EXPECT_NE(text.find("[driver]\nversion = \"550.54.15\"  # kernel_driver.version"), std::string::npos)
      << text;
  EXPECT_NE(text.find("cuda = \"12.4\""), std::string::npos) << text;
  EXPECT_NE(text.find("compute_capabilities = \"9.0\""), std::string::npos) << text;
  EXPECT_NE(text.find("{ version = \"12.4\", path = "
                      "\"/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127\" }"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cudnn = \"9.1.0\""), std::string::npos) << text;
  EXPECT_NE(text.find("tensorrt = []"), std::string::npos) << text;
  EXPECT_NE(text.find("[frameworks.torch]\nversion = \"2.4.1+cu124\""), std::string::npos) << text;
  EXPECT_EQ(text.find("[kernel_test]"), std::string::npos)
      << "the kernel test did not run, so it is not pinned";
}

TEST(WorkflowLockFile, RoundTripMatches) {
  auto report = testing::fixture_report();
  auto stack = fixture_stack(report);
  auto lock = parse_lock(write_lock(stack, {}), "x.lock");
  EXPECT_TRUE(lock.pins_runtimes);
  ASSERT_EQ(lock.runtimes.size(), 1u);
  auto result = verify_lock(lock, stack, report);
  EXPECT_FALSE(result.drifted) << render_verify_text(result, "x.lock");
  EXPECT_GT(result.items.size(), 10u);
}

TEST(WorkflowLockFile, LooseLockAcceptsANewerDriverOfTheSameBranch) {
  auto report = testing::fixture_report();
  auto text = write_lock(fixture_stack(report), {.loose = true, .comment = ""});
  EXPECT_NE(text.find("version = \">=550.54.15,<551\""), std::string::npos) << text;
  EXPECT_NE(text.find("cudnn = \"9.1.*\""), std::string::npos) << text;
  auto lock = parse_lock(text, "x.lock");
  report["kernel_driver"]["version"]["value"] = "550.127.05";
  report["nvml"]["driver_version"]["value"] = "550.127.05";
  report["libraries"]["cudnn"]["distinct_versions"] = {"9.1.1"};
  EXPECT_FALSE(verify_lock(lock, fixture_stack(report), report).drifted);
  report["kernel_driver"]["version"]["value"] = "570.86.10";
  auto result = verify_lock(lock, fixture_stack(report), report);
  EXPECT_TRUE(result.drifted);
}

TEST(WorkflowLockFile, DriftNamesLayerAndValues) {
  auto report = testing::fixture_report();
  auto lock = parse_lock(write_lock(fixture_stack(report), {}), "x.lock");
  report["kernel_driver"]["version"]["value"] = "570.86.10";
  report["libraries"]["nccl"]["distinct_versions"] = Json::array();
  report["libraries"]["tensorrt"]["distinct_versions"] = {"10.0.1"};
  auto result = verify_lock(lock, fixture_stack(report), report);
  ASSERT_TRUE(result.drifted);
  auto text = render_verify_text(result, "x.lock");
  EXPECT_NE(text.find("kernel_driver\n  driver.version: 550.54.15 -> 570.86.10"), std::string::npos) << text;
  EXPECT_NE(text.find("libraries.nccl: 2.21.5 -> none found"), std::string::npos) << text;
  EXPECT_NE(text.find("libraries.tensorrt: none pinned -> 10.0.1 (new)"), std::string::npos) << text;
  EXPECT_NE(text.find("drifted but compatible"), std::string::npos) << text;
}

TEST(WorkflowLockFile, DriftWithAnErrorFindingIsBroken) {
  auto report = testing::fixture_report();
  auto lock = parse_lock(write_lock(fixture_stack(report), {}), "x.lock");
  report["kernel_driver"]["version"]["value"] = "535.104.05";
  report["findings"] = Json::array({{{"id", "cuda_runtime.needs_newer_driver"},
                                     {"layer", "cuda_runtime"},
                                     {"severity", "error"},
                                     {"message", "CUDA 12.4 needs driver >= 550.54.14"}}});
  report["layer_status"] = {{"cuda_runtime", "error"}};
  auto result = verify_lock(lock, fixture_stack(report), report);
  EXPECT_TRUE(result.drifted);
  EXPECT_FALSE(result.compatible);
  auto j = verify_to_json(result, "x.lock");
  EXPECT_EQ(j["verdict"], "drifted_broken");
  EXPECT_NE(render_verify_text(result, "x.lock").find("cuda_runtime: cuda_runtime.needs_newer_driver"),
            std::string::npos);
}

TEST(WorkflowLockFile, RuntimeMovedOrAdded) {
  auto report = testing::fixture_report();
  auto lock = parse_lock(write_lock(fixture_stack(report), {}), "x.lock");
  report["cuda_runtime"]["runtimes"][0]["real_path"] = "/usr/local/cuda-12.6/lib64/libcudart.so.12.6.77";
  report["cuda_runtime"]["runtimes"][0]["runtime_version"]["value"] = "12.6";
  auto j = verify_to_json(verify_lock(lock, fixture_stack(report), report), "x.lock");
  int missing = 0, added = 0;
  for (const auto& i : j["items"]) {
    if (i["key"] != "cuda_runtime.instances") continue;
    missing += i["status"] == "missing";
    added += i["status"] == "added";
  }
  EXPECT_EQ(missing, 1) << j.dump(1);
  EXPECT_EQ(added, 1) << j.dump(1);
}

// A lock written from the libraries' own answers ("12.4.5.8") verified against a report that read
// the file names ("12", --no-library-calls): consistent, not drift; another major or minor still is.
TEST(WorkflowLockFile, LessPreciseReadingIsUnconfirmedNotDrift) {
  auto report = testing::fixture_report();
  auto lock = parse_lock(write_lock(fixture_stack(report), {}), "x.lock");
  report["libraries"]["cublas"]["distinct_versions"] = {"12"};
  report["libraries"]["cudnn"]["distinct_versions"] = {"9"};
  report["cuda_runtime"]["runtimes"][0]["runtime_version"]["value"] = "12";
  auto result = verify_lock(lock, fixture_stack(report), report);
  EXPECT_FALSE(result.drifted) << render_verify_text(result, "x.lock");
  EXPECT_EQ(result.unconfirmed, 3u);
  auto text = render_verify_text(result, "x.lock");
  EXPECT_NE(text.find("the stack matches (22 pinned values; 3 read less precisely, not confirmed)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("libraries.cublas: 12.4.5.8 -> 12 (read less precisely: consistent, not confirmed)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Verdict: matches, and no error finding."), std::string::npos) << text;
  auto j = verify_to_json(result, "x.lock");
  EXPECT_EQ(j["verdict"], "matches");
  EXPECT_EQ(j["unconfirmed"], 3);
  int unconfirmed = 0;
  for (const auto& i : j["items"]) {
    if (i["status"] != "unconfirmed") continue;
    ++unconfirmed;
    EXPECT_TRUE(i["note"].is_string()) << i.dump();
  }
  EXPECT_EQ(unconfirmed, 3) << j.dump(1);

  report["libraries"]["cudnn"]["distinct_versions"] = {"9.2"};
  report["libraries"]["cublas"]["distinct_versions"] = {"11"};
  result = verify_lock(lock, fixture_stack(report), report);
  EXPECT_TRUE(result.drifted);
  EXPECT_EQ(result.unconfirmed, 1u) << "only the runtime is still read less precisely";
  text = render_verify_text(result, "x.lock");
  EXPECT_NE(text.find("libraries.cudnn: 9.1.0 -> 9.2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("libraries.cublas: 12.4.5.8 -> 11\n"), std::string::npos) << text;
}

TEST(WorkflowLockFile, MalformedLockNamesLineAndKey) {
  EXPECT_EQ(error_of("schema = \"cudiag.lock/1\"\n[driver]\nversion = \">=abc\"\n"),
            "x.lock:3: driver.version: 'abc' is not a version");
  EXPECT_EQ(error_of("schema = \"cudiag.lock/1\"\n[driver]\ncuda = 12.4\n"),
            "x.lock:3: driver.cuda: write each version as a quoted string, e.g. \"12.4\"");
  EXPECT_EQ(error_of("schema = \"cudiag.lock/1\"\n\n[libraries]\ncudnnn = \"9.1.0\"\n"),
            "x.lock:4: libraries.cudnnn: unknown library");
  EXPECT_EQ(error_of("schema = \"cudiag.lock/1\"\n[driver]\nversoin = \"550\"\n"),
            "x.lock:3: driver.versoin: unknown key in [driver]");
  EXPECT_NE(error_of("schema = \"cudiag.lock/1\"\n[driver\n").find("x.lock:2:"), std::string::npos);
  EXPECT_EQ(error_of("[driver]\nversion = \"550\"\n"),
            "x.lock: schema: missing; a lock file starts with schema = \"cudiag.lock/1\"");
  EXPECT_NE(error_of("schema = \"cudiag.lock/9\"\n").find("x.lock:1: schema:"), std::string::npos);
}

TEST(WorkflowLockFile, HandEditedRangesAndListsParse) {
  auto lock = parse_lock(
      "schema = \"cudiag.lock/1\"\n"
      "[driver]\nversion = \">=550,<570\"\n"
      "[cuda_runtime]\ninstances = [ { version = \">=12.4,<13\" } ]\n"
      "[libraries]\nnccl = [\"2.21.*\", \"2.20.5\"]\n",
      "x.lock");
  ASSERT_EQ(lock.entries.size(), 2u);
  EXPECT_EQ(lock.entries[1].specs.size(), 2u);
  ASSERT_EQ(lock.runtimes.size(), 1u);
  EXPECT_TRUE(lock.runtimes[0].path.empty());
  auto report = testing::fixture_report();
  EXPECT_TRUE(verify_lock(lock, fixture_stack(report), report).drifted) << "nccl 2.20.5 is pinned but absent";
}

}  // namespace
}  // namespace cudiag::workflow
