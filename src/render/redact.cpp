#include "render/redact.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <set>

#include "probes/environment.h"

namespace cudiag {

namespace {

// Hand-written scanners rather than std::regex: libstdc++'s regex recurses
// per character and can overflow the stack on long error texts.

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool is_token_char(char c) { return is_alnum(c) || c == '_' || c == '-'; }
bool is_upper_alnum(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_path_char(char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.' || c == '/'; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool starts_with_nocase(std::string_view text, std::size_t at, std::string_view word) {
  if (text.size() - at < word.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (lower(text[at + k]) != word[k]) return false;
  }
  return true;
}

std::string lower_copy(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = lower(c);
  return out;
}

// A token format: a fixed prefix, then at least `min_tail` characters.
struct TokenFormat {
  std::string_view prefix;
  std::size_t min_tail;
  bool upper_only;  // AWS access key ids: [A-Z0-9]{16}
};

// Prefixes from each vendor's documented token formats.
constexpr std::array<TokenFormat, 22> kTokenFormats = {{
    {"github_pat_", 20, false},  // GitHub fine-grained personal access token
    {"ghp_", 20, false},         // GitHub classic PAT
    {"gho_", 20, false},         // GitHub OAuth
    {"ghu_", 20, false},         // GitHub user-to-server
    {"ghs_", 20, false},         // GitHub server-to-server
    {"ghr_", 20, false},         // GitHub refresh
    {"glpat-", 20, false},       // GitLab personal access token
    {"glrt-", 20, false},        // GitLab runner token
    {"xoxb-", 10, false},        // Slack bot
    {"xoxp-", 10, false},        // Slack user
    {"xoxa-", 10, false},        // Slack app
    {"xoxr-", 10, false},        // Slack refresh
    {"xoxs-", 10, false},        // Slack session
    {"xapp-", 10, false},        // Slack app-level
    {"AKIA", 16, true},          // AWS access key id
    {"ASIA", 16, true},          // AWS temporary access key id
    {"hf_", 20, false},          // Hugging Face
    {"sk-", 20, false},          // OpenAI / Anthropic style secret keys
    {"nvapi-", 20, false},       // NVIDIA NGC / build.nvidia.com API key
    {"npm_", 30, false},         // npm
    {"pypi-", 40, false},        // PyPI upload token
    {"dop_v1_", 40, false},      // DigitalOcean
}};

// Key names whose value is a secret (matched on the lower-cased key).
bool is_secret_key(std::string_view key) {
  if (key.empty()) return false;
  auto k = lower_copy(key);
  for (std::string_view part : {"password", "passwd", "passphrase", "secret", "token", "apikey", "api_key",
                                "api-key", "credential", "auth", "cookie", "private_key", "access_key"}) {
    if (k.find(part) != std::string::npos) return true;
  }
  for (std::string_view end : {"key", "pwd", "pass"}) {
    if (k.ends_with(end)) return true;
  }
  return false;
}

// key=value and key: value pairs whose key names a secret.
std::string redact_key_values(std::string_view text) {
  std::string out;
  std::size_t copied = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char sep = text[i];
    if (sep != '=' && sep != ':') continue;
    if (sep == ':' && text.substr(i).starts_with("://")) continue;  // a URL scheme, handled elsewhere
    std::size_t key_end = i;
    if (key_end > 0 && (text[key_end - 1] == '"' || text[key_end - 1] == '\'')) --key_end;  // "password": "x"
    std::size_t key_start = key_end;
    while (key_start > 0 && (is_token_char(text[key_start - 1]) || text[key_start - 1] == '.')) --key_start;
    if (key_start < copied || !is_secret_key(text.substr(key_start, key_end - key_start))) continue;
    std::size_t v = i + 1;
    while (v < text.size() && (text[v] == ' ' || text[v] == '\t')) ++v;
    if (v >= text.size()) continue;
    std::size_t value_start = v;
    std::size_t value_end = v;
    if (text[v] == '"' || text[v] == '\'') {
      value_start = v + 1;
      auto close = text.find(text[v], value_start);
      value_end = close == std::string_view::npos ? text.size() : close;
    } else {
      while (value_end < text.size() && text[value_end] != ' ' && text[value_end] != '\t' &&
             text[value_end] != '\n' && text[value_end] != '\r' && text[value_end] != '&' &&
             text[value_end] != ';' && text[value_end] != ',' && text[value_end] != '"' &&
             text[value_end] != '\'') {
        ++value_end;
      }
    }
    if (value_end == value_start || text.substr(value_start).starts_with(kRedacted)) continue;
    out.append(text.substr(copied, value_start - copied));
    out.append(kRedacted);
    copied = value_end;
    i = value_end - 1;
  }
  out.append(text.substr(copied));
  return out;
}

// Length of a token-format match at `at`, or 0.
std::size_t token_match(std::string_view text, std::size_t at) {
  for (const auto& f : kTokenFormats) {
    if (!text.substr(at).starts_with(f.prefix)) continue;
    std::size_t end = at + f.prefix.size();
    while (end < text.size() && (f.upper_only ? is_upper_alnum(text[end]) : is_token_char(text[end]))) ++end;
    if (end - at - f.prefix.size() >= f.min_tail) return end - at;
  }
  return 0;
}

// A JSON Web Token: three base64url parts, the header starting "eyJ" ('{"').
std::size_t jwt_match(std::string_view text, std::size_t at) {
  if (!text.substr(at).starts_with("eyJ")) return 0;
  std::size_t end = at;
  for (int part = 0; part < 3; ++part) {
    std::size_t start = end;
    while (end < text.size() && is_token_char(text[end])) ++end;
    if (part < 2 && (end - start < 8 || end >= text.size() || text[end] != '.')) return 0;
    if (part < 2) ++end;
  }
  return end - at;
}

// "Bearer xyz" / "Basic xyz": the length of the credential after the scheme, or 0.
std::size_t auth_scheme_match(std::string_view text, std::size_t at, std::size_t& credential_at) {
  for (std::string_view scheme : {"bearer", "basic"}) {
    if (!starts_with_nocase(text, at, scheme)) continue;
    std::size_t v = at + scheme.size();
    if (v >= text.size() || text[v] != ' ') continue;
    while (v < text.size() && text[v] == ' ') ++v;
    std::size_t end = v;
    auto cred = [](char c) {
      return is_token_char(c) || c == '.' || c == '~' || c == '+' || c == '/' || c == '=';
    };
    while (end < text.size() && cred(text[end])) ++end;
    if (end - v >= 6) {
      credential_at = v;
      return end - v;
    }
  }
  return 0;
}

std::string redact_auth_schemes(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t cred_at = 0;
    if (i == 0 || !is_alnum(text[i - 1])) {
      if (std::size_t c = auth_scheme_match(text, i, cred_at); c > 0) {
        out.append(text.substr(i, cred_at - i));
        out.append(kRedacted);
        i = cred_at + c;
        continue;
      }
    }
    out.push_back(text[i]);
    ++i;
  }
  return out;
}

bool uuid_at(std::string_view text, std::size_t at) {
  // 8-4-4-4-12 hex digits.
  constexpr std::array<std::size_t, 5> groups = {8, 4, 4, 4, 12};
  std::size_t p = at;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t k = 0; k < groups[g]; ++k, ++p) {
      if (p >= text.size() || !is_hex(text[p])) return false;
    }
    if (g + 1 < groups.size()) {
      if (p >= text.size() || text[p] != '-') return false;
      ++p;
    }
  }
  return p >= text.size() || !is_alnum(text[p]);
}

// Where a path that starts at `at` with `prefix` ends when it is exactly
// that directory or below it (the next character ends the component).
bool path_prefix_at(std::string_view text, std::size_t at, std::string_view prefix) {
  if (!text.substr(at).starts_with(prefix)) return false;
  std::size_t next = at + prefix.size();
  return next >= text.size() || text[next] == '/' || !is_path_char(text[next]);
}

}  // namespace

std::string redact_secrets(std::string_view text) {
  if (text.find("PRIVATE KEY") != std::string_view::npos &&
      text.find("-----BEGIN") != std::string_view::npos) {
    return std::string(kRedacted);
  }
  // Schemes first: "Authorization: Bearer x" must lose x before the
  // key-value pass replaces the word "Bearer".
  std::string pairs = redact_key_values(redact_auth_schemes(text));
  std::string_view s = pairs;
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    bool boundary = i == 0 || !is_alnum(s[i - 1]);
    if (boundary) {
      std::size_t n = token_match(s, i);
      if (n == 0) n = jwt_match(s, i);
      if (n > 0) {
        out.append(kRedacted);
        i += n;
        continue;
      }
    }
    if (s.substr(i).starts_with("://")) {
      // scheme://userinfo@host: whatever is before '@' is a credential.
      out.append("://");
      std::size_t j = i + 3;
      std::size_t k = j;
      while (k < s.size() && std::string_view("/?#@ \t\r\n\"'<>").find(s[k]) == std::string_view::npos) ++k;
      if (k < s.size() && s[k] == '@' && k > j) {
        out.append(kRedacted);
        out.push_back('@');
        i = k + 1;
      } else {
        i = j;
      }
      continue;
    }
    out.push_back(s[i]);
    ++i;
  }
  return out;
}

std::string redact_identity(std::string_view text, const RedactOptions& options) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    bool boundary = i == 0 || !is_path_char(text[i - 1]);
    // /home/<name> anywhere: the user's name is in it. At the start of a path
    // it is "~"; inside one (Fedora Silverblue's /var/home/<name>) only the
    // name goes, so the path still reads as one.
    if (text.substr(i).starts_with("/home/") || text.substr(i).starts_with("/Users/")) {
      std::size_t name = i + (text[i + 1] == 'h' ? 6 : 7);
      std::size_t end = name;
      while (end < text.size() && is_path_char(text[end]) && text[end] != '/') ++end;
      if (end > name) {
        if (boundary) {
          out.push_back('~');
        } else {
          out.append(text.substr(i, name - i));
          out.append("<user>");
        }
        i = end;
        continue;
      }
    }
    if (boundary) {
      bool done = false;
      for (const auto& home : options.home_dirs) {
        if (home.size() > 1 && path_prefix_at(text, i, home)) {
          out.push_back('~');
          i += home.size();
          done = true;
          break;
        }
      }
      if (done) continue;
      if (path_prefix_at(text, i, "/root")) {
        out.push_back('~');
        i += 5;
        continue;
      }
    }
    if (i == 0 || !is_alnum(text[i - 1])) {
      std::size_t skip = 0;
      if (text.substr(i).starts_with("GPU-") || text.substr(i).starts_with("MIG-")) skip = 4;
      if (uuid_at(text, i + skip)) {
        out.append(kRedacted);
        i += skip + 36;
        continue;
      }
      bool done = false;
      for (const auto& word : options.identity_words) {
        if (word.empty() || !text.substr(i).starts_with(word)) continue;
        std::size_t end = i + word.size();
        if (end < text.size() && is_alnum(text[end])) continue;
        out.append(kRedacted);
        i = end;
        done = true;
        break;
      }
      if (done) continue;
    }
    out.push_back(text[i]);
    ++i;
  }
  return out;
}

namespace {

bool is_identity_key(const std::string& key) {
  static const std::set<std::string, std::less<>> kKeys = {
      "uuid",     "uuids",     "gpu_uuid", "hostname", "host_name",     "nodename",
      "username", "user_name", "user",     "serial",   "serial_number", "board_serial"};
  return kKeys.contains(key);
}

std::string redact_string(std::string_view s, const RedactOptions& options) {
  auto out = redact_secrets(s);
  if (!options.include_identity) out = redact_identity(out, options);
  return out;
}

Json redact_node(const Json& j, const RedactOptions& options) {
  if (j.is_string()) return redact_string(j.get_ref<const std::string&>(), options);
  if (j.is_array()) {
    Json out = Json::array();
    for (const auto& e : j) out.push_back(redact_node(e, options));
    return out;
  }
  if (j.is_object()) {
    Json out = Json::object();
    for (const auto& [key, value] : j.items()) {
      if (!options.include_identity && is_identity_key(key)) continue;
      out[redact_string(key, options)] = redact_node(value, options);
    }
    return out;
  }
  return j;
}

}  // namespace

Json redact_report(const Json& report, const RedactOptions& options) {
  if (!report.is_object()) return redact_node(report, options);
  if (!report.contains("host") || !report["host"].contains("environment") ||
      !report["host"]["environment"].is_object()) {
    return redact_node(report, options);
  }
  Json copy = report;
  auto& env = copy["host"]["environment"];
  for (auto it = env.begin(); it != env.end();) {
    it = is_allowlisted_variable(it.key()) ? std::next(it) : env.erase(it);
  }
  return redact_node(copy, options);
}

RedactOptions redact_options_for_this_process(bool include_identity) {
  RedactOptions o;
  o.include_identity = include_identity;
  // Too short or too common to replace as a word without mangling text.
  static const std::set<std::string, std::less<>> kGeneric = {"root",    "user",   "admin",   "runner",
                                                              "ubuntu",  "debian", "nobody",  "build",
                                                              "builder", "ci",     "jenkins", "localhost"};
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0 && std::string_view(host).size() >= 3 &&
      !kGeneric.contains(host)) {
    o.identity_words.emplace_back(host);
  }
  passwd pw{};
  passwd* found = nullptr;
  std::array<char, 4096> buf{};
  if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr &&
      found->pw_name != nullptr) {
    std::string name = found->pw_name;
    if (name.size() >= 3 && !kGeneric.contains(name)) o.identity_words.push_back(name);
    if (found->pw_dir != nullptr) o.home_dirs.emplace_back(found->pw_dir);
  }
  // $HOME is read only to hide it, never printed.
  if (const char* home = std::getenv("HOME"); home != nullptr && std::string_view(home).size() > 1)
    o.home_dirs.emplace_back(home);
  return o;
}

}  // namespace cudiag
