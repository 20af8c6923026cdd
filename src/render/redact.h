#pragma once
// Redaction: one pass over the report JSON before any renderer runs, so no
// output format can forget it. Secrets (tokens, passwords, credentials in
// URLs) are always replaced with "<redacted>". Identity (GPU UUIDs, host and
// user names, the home directory) is left out unless the caller asks for it
// with --include-identity. Rules see the unredacted report; only what is
// shown is redacted.
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace cudiag::render {

inline constexpr std::string_view kRedacted = "<redacted>";

struct RedactOptions {
  bool include_identity = false;
  // Whole words to remove when identity is left out (this machine's host
  // name and user name); see identity_words_of_this_process().
  std::vector<std::string> identity_words;
  // Home directories to show as "~" (besides /home/<name> and /root).
  std::vector<std::string> home_dirs;
};

// Secrets in one string: known token formats (ghp_, github_pat_, glpat-,
// xoxb-, AKIA…, hf_, sk-, nvapi-, …), "Bearer …", key=value pairs whose key
// names a secret (password, token, secret, *key), JWTs, user:password@ in
// URLs, private key blocks.
std::string redact_secrets(std::string_view text);

// Every secret redact_secrets() has found so far in this process is
// remembered, with its pieces, and redacted again wherever it reappears (a
// LD_LIBRARY_PATH split into directories). learn_secrets_in() scans a whole
// document for them first, so output built from it in pieces (lock, verify,
// diff, explain) loses them too.
void learn_secrets_in(const Json& doc);
void forget_learned_secrets();  // tests

// Identity in one string: home directories become "~", GPU/MIG UUIDs and
// the identity words become "<redacted>".
std::string redact_identity(std::string_view text, const RedactOptions& options);

// The report as it may be shown: every key and string value redacted,
// identity fields ("uuid", "hostname", "username", …) dropped unless
// options.include_identity, and host.environment limited to the allowlist
// again (defence in depth: the probe already filters it).
Json redact_report(const Json& report, const RedactOptions& options);

// The running process's host name, user name and $HOME, for RedactOptions.
RedactOptions redact_options_for_this_process(bool include_identity);

}  // namespace cudiag::render
