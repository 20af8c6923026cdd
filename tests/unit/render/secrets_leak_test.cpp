// Nothing in secrets_corpus.json may leak through any registered output
// format: planted across a fixture report (environment values, paths,
// library paths, error texts, findings, container facts, requirements), and
// in the /proc/self/environ of a fixture machine read by the real binary.
#include <gtest/gtest.h>

#include "render/render.h"
#include "render/text_escape.h"
#include "render_test_util.h"

namespace cudiag {
namespace {

using render_test::fixture_report;

Json corpus() { return render_test::secrets_corpus(); }

Json fact_of(const std::string& value, const std::string& source) {
  return {{"value", value}, {"source", source}};
}

// Every place a collected string can end up in a report.
Json plant(Json r, const std::string& s) {
  auto& env = r["host"]["environment"];
  env["LD_LIBRARY_PATH"]["value"] = "/usr/local/nvidia/lib:" + s + ":/usr/lib";
  env["CONDA_PREFIX"] = fact_of(s, "env:CONDA_PREFIX");
  env["CUDA_HOME"] = fact_of("/opt/" + s, "env:CUDA_HOME");
  r["host"]["os"]["pretty_name"]["value"] = s;
  r["host"]["container"]["evidence"].push_back(s);
  r["kernel_driver"]["version"]["error"] = "cannot read " + s;
  r["nvml"]["gpus"][0]["name"] = s;
  r["driver_api"]["picked"]["value"] = s + "/libcuda.so.1";
  r["driver_api"]["candidates"][0]["path"] = s;
  r["driver_api"]["candidates"][0]["found_via"].push_back("LD_LIBRARY_PATH " + s);
  r["cuda_runtime"]["runtimes"][0]["cudaGetDeviceCount"]["error"] = "dlopen failed: " + s;
  r["cuda_runtime"]["runtimes"][0]["real_path"] = s;
  r["libraries"]["cudnn"]["instances"][0]["real_path"] = s + "/libcudnn.so.9";
  r["frameworks"]["environments"][0]["frameworks"][0]["version"]["value"] = s;
  r["container"]["variables"]["NVIDIA_BUILD_ID"]["value"] = s;
  r["container"]["image_digest"]["value"] = s;
  r["requirements"][1]["requirement"] = s;
  r["requirements"][1]["actual"] = s;
  r["requirements"][1]["message"] = "needs " + s;
  r["search"]["dirs"][0]["path"] = s;
  r["search"][s] = "as a key";
  auto& f = r["findings"][0];
  f["message"] = f["message"].get<std::string>() + " " + s;
  f["evidence"][0]["value"] = s;
  f["evidence"][0]["source"] = "file:" + s;
  f["remediation"] = "Run " + s;
  f["docs"][0]["section"] = s;
  f["docs"].push_back({{"url", s}, {"section", "x"}});
  r["findings"][1]["id"] = "frameworks.x";
  r["findings"][1]["message"] = s;
  r["findings"][2]["message"] = s;  // a warning: system-out in JUnit, ::warning in GitHub
  return r;
}

// The forms a leaked value could take after a format escapes it.
std::vector<std::string> spellings(const std::string& leak) {
  std::string json = Json(leak).dump();
  return {leak, render::markup_escape(leak), render::markdown_escape(leak), json.substr(1, json.size() - 2)};
}

TEST(SecretsLeak, NoCorpusSecretSurvivesAnyFormat) {
  auto base = fixture_report("ngc-pytorch-driver-too-old.json");
  auto formats = render::report_formats();
  ASSERT_GE(formats.size(), 6u);  // text, json, md, html, junit, github at least
  const Json all = corpus();      // kept alive: a range-for over corpus()["secrets"] would dangle
  for (const auto& secret : all["secrets"]) {
    auto planted = plant(base, secret["planted"].get<std::string>());
    for (const auto& format : formats) {
      auto out = render::render_report(planted, format, render::RenderOptions{});
      for (const auto& leak : secret["must_not_appear"]) {
        for (const auto& spelled : spellings(leak.get<std::string>())) {
          EXPECT_EQ(out.find(spelled), std::string::npos)
              << secret["name"] << " leaks through --format " << format;
        }
      }
    }
  }
}

TEST(SecretsLeak, GpuUuidsAppearOnlyWithIncludeIdentity) {
  auto report = fixture_report("ngc-pytorch-driver-too-old.json");
  for (const auto& format : render::report_formats()) {
    auto out = render::render_report(report, format, render::RenderOptions{});
    EXPECT_EQ(out.find("6a2bb6b3-1e7c"), std::string::npos) << format;
  }
  render::RenderOptions with;
  with.include_identity = true;
  EXPECT_NE(render::render_report(report, "json", with).find("GPU-6a2bb6b3-1e7c-2a8f-3d5e-1f0a9b8c7d01"),
            std::string::npos);
}

// The real binary on a fixture machine whose environment holds secrets, in
// allowlisted variables and in ones that must never be read out.
TEST(SecretsLeak, FixtureMachineEnvironmentLeaksInNoFormat) {
  machine_test::Machine m("docker-nvidia");
  m.env({{"PATH", "/usr/local/bin:/usr/bin:/bin"},
         {"LD_LIBRARY_PATH", "/home/alice/.local/lib:/opt/ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0000abcd/lib"},
         {"CONDA_PREFIX", "/opt/conda/envs/hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"},
         {"CUDA_HOME", "/home/alice/cuda"},
         {"VIRTUAL_ENV", "/srv/venv?token=5up3rS3cr3tT0k3nValue"},
         {"NVIDIA_VISIBLE_DEVICES", "GPU-6a2bb6b3-1e7c-2a8f-3d5e-1f0a9b8c7d01"},
         {"NVIDIA_BUILD_ID", "glpat-xYz123AbC456dEf789gH"},
         {"GITHUB_TOKEN", "PlainUnshapedSecretValue0042"},
         {"AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"},
         {"HOSTNAME", "alice-workstation"}});
  const std::vector<std::string> leaks = {"alice",
                                          "R4nd0mT0k3nV4lu3F0rT3st1ng0000abcd",
                                          "AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
                                          "5up3rS3cr3tT0k3nValue",
                                          "6a2bb6b3-1e7c-2a8f-3d5e-1f0a9b8c7d01",
                                          "xYz123AbC456dEf789gH",
                                          "PlainUnshapedSecretValue0042",
                                          "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"};
  for (const auto& format : render::report_formats()) {
    auto r = machine_test::run_program(
        {CUDIAG_BINARY, "--root", m.root(), "--timeout", "5", "report", "--format", format}, 120);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << format << ": " << machine_test::describe(r);
    for (const auto& leak : leaks) {
      EXPECT_EQ(r.out.find(leak), std::string::npos) << leak << " leaks through --format " << format;
      EXPECT_EQ(r.err.find(leak), std::string::npos) << leak << " leaks to stderr with --format " << format;
    }
  }
  // The allowlisted variables are still reported, redacted.
  auto r = machine_test::run_program(
      {CUDIAG_BINARY, "--root", m.root(), "--timeout", "5", "report", "--format", "json"}, 120);
  ASSERT_TRUE(r.json_ok()) << machine_test::describe(r);
  EXPECT_EQ(machine_test::value(r.report, "host.environment.LD_LIBRARY_PATH"),
            "~/.local/lib:/opt/<redacted>/lib");
  EXPECT_EQ(machine_test::value(r.report, "host.environment.CONDA_PREFIX"), "/opt/conda/envs/<redacted>");
}

}  // namespace
}  // namespace cudiag
