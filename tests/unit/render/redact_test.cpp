// The redaction pass (src/render/redact.h) on single strings and reports.
#include "render/redact.h"

#include <gtest/gtest.h>

#include "render_test_util.h"

namespace cudiag {
namespace {

using render_test::fixture_report;

Json corpus() { return render_test::secrets_corpus(); }

std::string redact_all(std::string_view text) {
  render::RedactOptions o;
  return render::redact_identity(render::redact_secrets(text), o);
}

TEST(Redact, EveryCorpusSecretIsRemovedFromItsString) {
  const Json all = corpus();  // kept alive: a range-for over corpus()["secrets"] would dangle
  for (const auto& s : all["secrets"]) {
    auto out = redact_all(s["planted"].get<std::string>());
    for (const auto& leak : s["must_not_appear"]) {
      EXPECT_EQ(out.find(leak.get<std::string>()), std::string::npos) << s["name"] << ": " << out;
    }
  }
}

TEST(Redact, OrdinaryReportTextIsKept) {
  const Json all = corpus();
  for (const auto& k : all["kept"]) {
    auto text = k.get<std::string>();
    EXPECT_EQ(redact_all(text), text);
  }
}

TEST(Redact, OnlyTheSecretPartOfAStringIsReplaced) {
  EXPECT_EQ(render::redact_secrets("/opt/conda/envs/ghp_C0ndaPr3fixT0k3nLeak000000000000/lib"),
            "/opt/conda/envs/<redacted>/lib");
  EXPECT_EQ(render::redact_secrets("Authorization: Bearer abcdef123456"),
            "Authorization: <redacted> <redacted>");
  EXPECT_EQ(render::redact_secrets("curl -H 'x' https://bob:pw123456@example.com/a"),
            "curl -H 'x' https://<redacted>@example.com/a");
  EXPECT_EQ(render::redact_secrets("password=abc&user=x"), "password=<redacted>&user=x");
  EXPECT_EQ(render::redact_secrets("AKIAIOSFODNN7EXAMPLE"), "<redacted>");
  // Too short to be a token of that format: left alone.
  EXPECT_EQ(render::redact_secrets("hf_transfer"), "hf_transfer");
}

TEST(Redact, HomeDirectoriesBecomeTilde) {
  render::RedactOptions o;
  o.home_dirs = {"/data/users/carol"};
  EXPECT_EQ(render::redact_identity("/home/alice/.local/lib", o), "~/.local/lib");
  EXPECT_EQ(render::redact_identity("/root/.cache/pip", o), "~/.cache/pip");
  EXPECT_EQ(render::redact_identity("LD_LIBRARY_PATH=/home/alice/a:/home/bob/b", o),
            "LD_LIBRARY_PATH=~/a:~/b");
  EXPECT_EQ(render::redact_identity("/data/users/carol/env/lib", o), "~/env/lib");
  // Inside a longer path (Silverblue's /var/home) the name goes and the path stays whole.
  EXPECT_EQ(render::redact_identity("/var/home/alice/venv/lib", o), "/var/home/<user>/venv/lib");
  // Not a home directory: /rootfs, /usr/root-tools.
  EXPECT_EQ(render::redact_identity("/rootfs/usr/lib and /usr/root-tools", o),
            "/rootfs/usr/lib and /usr/root-tools");
}

TEST(Redact, IdentityWordsAreWholeWordsOnly) {
  render::RedactOptions o;
  o.identity_words = {"gpu-node-17"};
  EXPECT_EQ(render::redact_identity("ssh gpu-node-17 failed", o), "ssh <redacted> failed");
  EXPECT_EQ(render::redact_identity("gpu-node-170", o), "gpu-node-170");
}

TEST(Redact, ReportDropsIdentityFieldsUnlessAskedToKeepThem) {
  auto report = fixture_report("ngc-pytorch-driver-too-old.json");
  render::RedactOptions o;
  auto shown = render::redact_report(report, o);
  EXPECT_FALSE(shown["nvml"]["gpus"][0].contains("uuid"));
  EXPECT_FALSE(shown["kernel_driver"]["gpus"][0].contains("uuid"));
  EXPECT_EQ(shown["nvml"]["gpus"][0]["name"], "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(shown.dump().find("6a2bb6b3"), std::string::npos);

  o.include_identity = true;
  auto kept = render::redact_report(report, o);
  EXPECT_EQ(kept["nvml"]["gpus"][0]["uuid"], "GPU-6a2bb6b3-1e7c-2a8f-3d5e-1f0a9b8c7d01");
}

TEST(Redact, SecretsAreRedactedEvenWithIdentityIncluded) {
  auto report = fixture_report("bare-metal-no-kernel-module.json");
  report["host"]["environment"]["CONDA_PREFIX"] = {
      {"value", "/opt/conda/envs/hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"}, {"source", "env:CONDA_PREFIX"}};
  render::RedactOptions o;
  o.include_identity = true;
  auto shown = render::redact_report(report, o);
  EXPECT_EQ(shown["host"]["environment"]["CONDA_PREFIX"]["value"], "/opt/conda/envs/<redacted>");
}

TEST(Redact, EnvironmentIsLimitedToTheAllowlistAgain) {
  auto report = fixture_report("bare-metal-no-kernel-module.json");
  report["host"]["environment"]["GITHUB_TOKEN"] = {{"value", "plain-value-without-shape"},
                                                   {"source", "env:GITHUB_TOKEN"}};
  report["host"]["environment"]["SSH_AUTH_SOCK"] = {{"value", "/tmp/ssh-x/agent.1"},
                                                    {"source", "env:SSH_AUTH_SOCK"}};
  auto shown = render::redact_report(report, render::RedactOptions{});
  EXPECT_FALSE(shown["host"]["environment"].contains("GITHUB_TOKEN"));
  EXPECT_FALSE(shown["host"]["environment"].contains("SSH_AUTH_SOCK"));
  EXPECT_TRUE(shown["host"]["environment"].contains("LD_LIBRARY_PATH"));
}

TEST(Redact, KeysAreRedactedToo) {
  Json j = {{"libraries", {{"/home/alice/lib", 1}}}};
  auto shown = render::redact_report(j, render::RedactOptions{});
  EXPECT_TRUE(shown["libraries"].contains("~/lib"));
}

}  // namespace
}  // namespace cudiag
