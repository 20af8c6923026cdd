// The report model (src/model/): typed views built from a report, fresh or
// saved, partial or older — a missing or mistyped part is unknown, never a
// crash — and the derived views written into the report and read back.
#include <gtest/gtest.h>

#include "core/fact.h"
#include "kb/knowledge_base.h"
#include "model/derived.h"
#include "model/facts.h"
#include "model/frameworks_view.h"
#include "model/kernel_test_view.h"
#include "model/layers.h"
#include "model/report_path.h"

namespace cudiag::model {
namespace {

const kb::KnowledgeBase& kb() { return kb::KnowledgeBase::builtin(); }

Json report_with(std::initializer_list<std::pair<const char*, Json>> facts) {
  Json r = Json::object();
  for (const auto& [path, value] : facts) {
    std::string p = path;
    auto dot = p.find('.');
    r[p.substr(0, dot)][p.substr(dot + 1)] = fact(value, "test");
  }
  return r;
}

TEST(ReportModel, AnEmptyOrForeignReportIsUnknownThroughout) {
  for (const Json& r :
       {Json::object(), Json::array(), Json("text"), Json::parse(R"({"nvml": 3, "driver_api": []})")}) {
    auto d = derive(r, &kb());
    EXPECT_FALSE(d.host_driver.version) << r.dump();
    EXPECT_EQ(d.host_driver.version_from, "");
    EXPECT_TRUE(d.gpus.empty());
    EXPECT_FALSE(d.gpus_known);
    EXPECT_TRUE(d.cuda_runtimes.empty());
    EXPECT_FALSE(d.kernel_test.present);
    EXPECT_NO_THROW(derived_json(d));
  }
}

TEST(ReportModel, AMalformedPathIndexNamesNothing) {
  Json r = Json::parse(R"({"cuda_runtime": {"runtimes": [{"path": "/x"}]}})");
  EXPECT_EQ(model::fact_at(r, "cuda_runtime.runtimes[0].path"), "/x");
  EXPECT_TRUE(model::fact_at(r, "cuda_runtime.runtimes[x].path").is_null());
  EXPECT_TRUE(model::fact_at(r, "cuda_runtime.runtimes[].path").is_null());
  EXPECT_TRUE(model::fact_at(r, "cuda_runtime.runtimes[7].path").is_null());
}

// The three answers for the driver, and which one a CUDA runtime sees.
TEST(ReportModel, HostDriverNamesWhereItsVersionCameFrom) {
  auto module = derive_host_driver(report_with({{"kernel_driver.version", "550.54.15"},
                                                {"driver_api.library_version", "550.54.15"},
                                                {"nvml.driver_version", "550.54.15"}}),
                                   &kb());
  EXPECT_EQ(module.version->text(), "550.54.15");
  EXPECT_EQ(module.version_from, "kernel module");
  EXPECT_EQ(module.cuda->text(), "12.4") << "the knowledge base's CUDA for R550";
  EXPECT_EQ(module.cuda_fact, "");

  auto user_space = derive_host_driver(report_with({{"driver_api.library_version", "535.261.03"}}), nullptr);
  EXPECT_EQ(user_space.version_from, "user-space libcuda");
  EXPECT_FALSE(user_space.kernel_module);
  EXPECT_FALSE(user_space.cuda) << "without a knowledge base only the report's answers count";

  auto compat = derive_host_driver(report_with({{"kernel_driver.version", "535.104.05"},
                                                {"driver_api.library_version", "580.65.06"},
                                                {"driver_api.forward_compat_package", true},
                                                {"driver_api.cuda_driver_version", "13.0"}}),
                                   &kb());
  EXPECT_EQ(compat.version->text(), "580.65.06");
  EXPECT_EQ(compat.version_from, "forward-compat libcuda");
  EXPECT_EQ(compat.kernel_module->text(), "535.104.05");
  EXPECT_EQ(compat.cuda_fact, "driver_api.cuda_driver_version");
}

// What a renderer reads back from the `derived` key is what the rules derived with the knowledge base.
TEST(ReportModel, DerivedViewsRoundTripThroughTheReport) {
  Json r = report_with({{"kernel_driver.version", "550.54.15"}});
  r["kernel_driver"]["pci_devices"] = Json::array(
      {{{"kind", "gpu"}, {"bus_id", fact("0000:01:00.0", "t")}, {"device_id", fact("0x2330", "t")}}});
  r["derived"] = derived_json(derive(r, &kb()));
  auto h = host_driver_of(r);
  EXPECT_EQ(h.version->text(), "550.54.15");
  EXPECT_EQ(h.cuda->text(), "12.4");
  EXPECT_EQ(h.version_from, "kernel module");
  auto gpus = gpus_of(r);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_NE(gpus[0].name.find("H100"), std::string::npos) << "0x2330 is the H100 SXM5 in the knowledge base";
  EXPECT_EQ(gpus[0].cc->text(), "9.0");
  EXPECT_EQ(r["derived"]["gpus"][0]["arch"], "sm_90");
  // An older report, without the key: derived from its facts, without the knowledge base.
  r.erase("derived");
  EXPECT_FALSE(host_driver_of(r).cuda);
  EXPECT_EQ(gpus_of(r).size(), 1u);
}

TEST(ReportModel, CudaRuntimesCarryWhatTheyNeed) {
  Json r = Json::parse(R"({"cuda_runtime": {"runtimes": [
      {"path": "/a/libcudart.so.12", "real_path": "/a/libcudart.so.12.4.127",
       "runtime_version": {"value": "12.4", "source": "t"}},
      {"path": "/b/libcudart.so.11.0", "file_version": "11.8.89"},
      {"path": "/c/libcudart.so.13"}]}})");
  auto rts = derive_cuda_runtimes(r, &kb());
  ASSERT_EQ(rts.size(), 3u);
  EXPECT_EQ(rts[0].version->text(), "12.4");
  EXPECT_EQ(rts[0].version_fact, "cuda_runtime.runtimes[0].runtime_version");
  ASSERT_TRUE(rts[0].needs_driver);
  EXPECT_EQ(rts[0].needs_driver->major(), 550) << "CUDA 12.4 GA needs R550";
  ASSERT_TRUE(rts[0].needs_driver_mvc);
  EXPECT_EQ(rts[0].needs_driver_mvc->major(), 525) << "CUDA 12.x under minor-version compatibility";
  EXPECT_EQ(rts[1].version->text(), "11.8.89");
  EXPECT_EQ(rts[1].version_fact, "cuda_runtime.runtimes[1].file_version");
  EXPECT_FALSE(rts[2].version);
  EXPECT_FALSE(rts[2].needs_driver);
}

TEST(ReportModel, KernelTestFailuresFromAFreshOrMangledSection) {
  Json r = Json::parse(R"json({"kernel_test": {"status": "fail",
      "driver": {"steps": [{"name": "dlopen", "status": "ok"}, {"name": "cuInit", "status": "failed",
                             "message": "cuInit → CUDA_ERROR_NO_DEVICE (100)"}],
                 "devices": [{"ordinal": 1, "status": "fail", "steps": [7, {"name": "launch", "status": "failed"}]}]},
      "nvrtc": "not a list",
      "frameworks": [{"python": "/usr/bin/python3", "framework": "torch", "status": "fail",
                      "error": "AssertionError: Torch not compiled with CUDA enabled\nmore"}, 5]}})json");
  auto v = kernel_test_view(r);
  ASSERT_EQ(v.failures.size(), 3u);
  EXPECT_EQ(v.failures[0].step, "cuInit");
  EXPECT_EQ(v.failures[0].fact, "kernel_test.driver.steps[1]");
  EXPECT_EQ(v.failures[1].section, "device 1");
  EXPECT_EQ(v.failures[1].step, "launch");
  EXPECT_EQ(v.failures[2].part, "framework");
  EXPECT_EQ(v.failures[2].message, "AssertionError: Torch not compiled with CUDA enabled");
  Json not_run = {{"kernel_test", {{"status", "not run"}, {"reason", "read from a directory"}}}};
  EXPECT_FALSE(layer_ran(not_run, "kernel_test"));
  EXPECT_TRUE(layer_ran(r, "kernel_test"));
  EXPECT_FALSE(layer_ran(r, "nvml"));
}

TEST(ReportModel, FrameworkBuildsFromTheKeysTheProbeWrites) {
  Json r = Json::parse(R"({"frameworks": {"environments": [
      {"prefix": "/venv", "frameworks": [
        {"name": "torch", "version": {"value": "2.4.1+cu124", "source": "t"},
         "build": {"cuda": {"value": "12.4", "source": "t"}, "cpu_only": {"value": false, "source": "t"}}},
        {"name": "jax", "version": {"value": null, "source": "t"}},
        {"name": "tensorflow", "version": {"value": "2.16.1", "source": "t"},
         "build": {"cuda": {"value": null, "source": "t"}, "cpu_only": {"value": true, "source": "t"}}}]},
      "junk"]}})");
  auto builds = framework_builds(r);
  ASSERT_EQ(builds.size(), 2u) << "an install without a version is not a build";
  EXPECT_EQ(builds[0].name, "torch");
  EXPECT_EQ(builds[0].cuda, "12.4");
  EXPECT_EQ(builds[0].environment, "/venv");
  EXPECT_EQ(builds[0].where, "frameworks.environments[0].frameworks[0]");
  EXPECT_TRUE(builds[1].cpu_only);
  EXPECT_EQ(builds[1].cuda, "");
}

}  // namespace
}  // namespace cudiag::model
