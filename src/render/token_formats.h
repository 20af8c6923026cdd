#pragma once
// The token shapes redact_secrets() (render/redact.cpp) recognises: a fixed
// prefix from each vendor's documented token format or from the prefixed
// rules of public secret-scanner rule sets, then a tail of its alphabet.
#include <array>
#include <cstddef>
#include <string_view>

namespace cudiag::render::token_formats {

// A token format: a fixed prefix, then at least `min_tail` characters of
// its alphabet.
enum class Tail { kToken, kUpper, kTokenDot };
struct TokenFormat {
  std::string_view prefix;
  std::size_t min_tail;
  Tail tail;
};

// Prefixes from each vendor's documented token formats, and the prefixed
// rules of public secret-scanner rule sets (gitleaks' config/gitleaks.toml,
// GitHub secret scanning's partner patterns): a shape with a distinctive
// prefix is cheap to match without false positives on paths and versions.
constexpr std::array<TokenFormat, 55> kTokenFormats = {{
    {"github_pat_", 20, Tail::kToken},       // GitHub fine-grained personal access token
    {"ghp_", 20, Tail::kToken},              // GitHub classic PAT
    {"gho_", 20, Tail::kToken},              // GitHub OAuth
    {"ghu_", 20, Tail::kToken},              // GitHub user-to-server
    {"ghs_", 20, Tail::kToken},              // GitHub server-to-server
    {"ghr_", 20, Tail::kToken},              // GitHub refresh
    {"glpat-", 20, Tail::kToken},            // GitLab personal access token
    {"glrt-", 20, Tail::kToken},             // GitLab runner token
    {"glptt-", 20, Tail::kToken},            // GitLab pipeline trigger token
    {"gldt-", 20, Tail::kToken},             // GitLab deploy token
    {"glcbt-", 20, Tail::kToken},            // GitLab CI/CD job token
    {"glsoat-", 20, Tail::kToken},           // GitLab SCIM/OAuth token
    {"xoxb-", 10, Tail::kToken},             // Slack bot
    {"xoxp-", 10, Tail::kToken},             // Slack user
    {"xoxa-", 10, Tail::kToken},             // Slack app
    {"xoxr-", 10, Tail::kToken},             // Slack refresh
    {"xoxs-", 10, Tail::kToken},             // Slack session
    {"xoxe-", 10, Tail::kToken},             // Slack config token
    {"xapp-", 10, Tail::kToken},             // Slack app-level
    {"AKIA", 16, Tail::kUpper},              // AWS access key id
    {"ASIA", 16, Tail::kUpper},              // AWS temporary access key id
    {"ABIA", 16, Tail::kUpper},              // AWS STS service bearer token
    {"ACCA", 16, Tail::kUpper},              // AWS context-specific credential
    {"AIza", 30, Tail::kToken},              // Google API key (AIza + 35)
    {"ya29.", 20, Tail::kToken},             // Google OAuth access token
    {"GOCSPX-", 20, Tail::kToken},           // Google OAuth client secret
    {"hf_", 20, Tail::kToken},               // Hugging Face
    {"sk-", 20, Tail::kToken},               // OpenAI / Anthropic style secret keys
    {"sk_live_", 16, Tail::kToken},          // Stripe secret key
    {"sk_test_", 16, Tail::kToken},          // Stripe test secret key
    {"rk_live_", 16, Tail::kToken},          // Stripe restricted key
    {"rk_test_", 16, Tail::kToken},          // Stripe restricted test key
    {"whsec_", 20, Tail::kToken},            // Stripe webhook signing secret
    {"nvapi-", 20, Tail::kToken},            // NVIDIA NGC / build.nvidia.com API key
    {"npm_", 30, Tail::kToken},              // npm
    {"pypi-", 40, Tail::kToken},             // PyPI upload token
    {"dop_v1_", 40, Tail::kToken},           // DigitalOcean
    {"doo_v1_", 40, Tail::kToken},           // DigitalOcean OAuth
    {"shpat_", 20, Tail::kToken},            // Shopify access token
    {"shpss_", 20, Tail::kToken},            // Shopify shared secret
    {"SG.", 40, Tail::kTokenDot},            // SendGrid API key (SG.<22>.<43>)
    {"hvs.", 20, Tail::kToken},              // HashiCorp Vault service token
    {"hvb.", 20, Tail::kToken},              // HashiCorp Vault batch token
    {"dapi", 32, Tail::kToken},              // Databricks token (dapi + 32 hex)
    {"PMAK-", 30, Tail::kToken},             // Postman API key
    {"glc_", 30, Tail::kToken},              // Grafana Cloud token
    {"glsa_", 30, Tail::kToken},             // Grafana service account token
    {"lin_api_", 30, Tail::kToken},          // Linear API key
    {"sntrys_", 30, Tail::kToken},           // Sentry token
    {"ATATT3", 30, Tail::kToken},            // Atlassian API token
    {"dp.pt.", 30, Tail::kToken},            // Doppler personal token
    {"pul-", 32, Tail::kToken},              // Pulumi access token
    {"AGE-SECRET-KEY-1", 30, Tail::kUpper},  // age secret key
    {"wandb_v1_", 30, Tail::kToken},         // Weights & Biases API key (new format)
    {"r8_", 30, Tail::kToken},               // Replicate API token
}};

// The array's size is spelled out: a missing row would be a zero-filled one,
// whose empty prefix would match every word.
static_assert([] {
  for (const auto& f : kTokenFormats)
    if (f.prefix.empty()) return false;
  return true;
}());

}  // namespace cudiag::render::token_formats
