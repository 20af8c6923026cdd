#include "render/redact.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <mutex>
#include <set>
#include <vector>

#include "core/env_allowlist.h"
#include "render/token_formats.h"

namespace cudiag::render {

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

// Secrets seen so far in this process. A value is often printed again in
// pieces: LD_LIBRARY_PATH "https://u:Pw@host/lib" becomes the search
// directories "https", "//u" and "Pw@host/lib", in which no shape is left to
// recognise. Every redacted span is remembered with its pieces (split at
// ':', '@' and '/'; 6 characters or more, so common words are not taken),
// and those are redacted wherever they appear again (forget_learned_secrets
// is for tests).
struct Learned {
  std::mutex mutex;
  std::set<std::string, std::less<>> pieces;
};
Learned& learned() {
  static Learned* l = new Learned;  // never destroyed: used until exit
  return *l;
}

// The user of a URL's userinfo is identity as much as the password is a
// secret: its pieces are learnt from 4 characters, except names too common to
// stand for anyone.
bool is_generic_word(std::string_view w) {
  static const std::set<std::string, std::less<>> kGeneric = {"root",  "user",   "admin",  "test",
                                                              "guest", "ubuntu", "debian", "build",
                                                              "oauth", "token",  "https",  "http"};
  return kGeneric.contains(lower_copy(w));
}

void learn(std::string_view span, std::size_t kMinPiece = 6) {
  if (span.size() < kMinPiece || span.starts_with(kRedacted)) return;
  auto& l = learned();
  std::lock_guard lock(l.mutex);
  if (l.pieces.size() > 4096) return;
  l.pieces.emplace(span);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= span.size(); ++i) {
    if (i == span.size() || span[i] == ':' || span[i] == '@' || span[i] == '/' || span[i] == '\n') {
      auto piece = span.substr(start, i - start);
      if (piece.size() >= kMinPiece && piece.size() < span.size() && !is_generic_word(piece))
        l.pieces.emplace(piece);
      start = i + 1;
    }
  }
}

std::string redact_learned(std::string text) {
  auto& l = learned();
  std::lock_guard lock(l.mutex);
  if (l.pieces.empty()) return text;
  // Longest first, so a whole span goes before its pieces.
  std::vector<const std::string*> order;
  for (const auto& p : l.pieces) order.push_back(&p);
  std::sort(order.begin(), order.end(),
            [](const std::string* a, const std::string* b) { return a->size() > b->size(); });
  for (const auto* p : order) {
    // Whole words only: "alice" goes from "/alice/lib", not from "malice".
    // The search resumes after an inserted "<redacted>": a learned piece such
    // as "redacted" (from "password=redacted") would otherwise be found inside
    // it again, for ever (fuzz_redact found that hang).
    for (auto at = text.find(*p); at != std::string::npos;) {
      bool starts = at == 0 || !is_alnum(text[at - 1]);
      bool ends = at + p->size() >= text.size() || !is_alnum(text[at + p->size()]);
      if (!starts || !ends) {
        at = text.find(*p, at + 1);
        continue;
      }
      text.replace(at, p->size(), kRedacted);
      at = text.find(*p, at + kRedacted.size());
    }
  }
  return text;
}

using token_formats::kTokenFormats;
using token_formats::Tail;

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

// Keys of cudiag's own documents that end like a secret's name but hold none.
bool is_report_key_not_secret(std::string_view key) {
  static const std::set<std::string, std::less<>> kKeys = {
      "key", "keys", "sort_key", "lock_key", "cache_key", "stack_key", "kb_key", "signature_key"};
  return kKeys.contains(key);
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
    learn(text.substr(value_start, value_end - value_start));
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
    auto in_tail = [&](char c) {
      switch (f.tail) {
        case Tail::kUpper:
          return is_upper_alnum(c);
        case Tail::kTokenDot:
          return is_token_char(c) || c == '.';
        case Tail::kToken:
          break;
      }
      return is_token_char(c);
    };
    while (end < text.size() && in_tail(text[end])) ++end;
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
        learn(text.substr(cred_at, c));
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

// "-----BEGIN ... PRIVATE KEY-----" up to its END line (or, cut off, the end
// of the line or quoted string it sits in) becomes <redacted>. Only the block
// goes, so a whole log or document pasted around it stays readable.
std::string redact_private_key_blocks(std::string_view text) {
  std::string out;
  std::size_t copied = 0;
  for (std::size_t at = text.find("-----BEGIN"); at != std::string_view::npos;
       at = text.find("-----BEGIN", at)) {
    auto header_end = text.find("-----", at + 10);
    if (header_end == std::string_view::npos) break;
    auto header = text.substr(at, header_end - at);
    if (header.find("PRIVATE KEY") == std::string_view::npos || header.find('\n') != std::string_view::npos) {
      at = header_end;
      continue;
    }
    std::size_t end = text.find("-----END", header_end + 5);
    if (end != std::string_view::npos) {
      auto close = text.find("-----", end + 8);
      end = close == std::string_view::npos ? text.size() : close + 5;
    } else {
      // No END: the rest of the base64 lines, up to a quote or a blank line.
      end = header_end + 5;
      while (end < text.size() && text[end] != '"' && text[end] != '\'' &&
             !(text[end] == '\n' && end + 1 < text.size() && text[end + 1] == '\n'))
        ++end;
    }
    out.append(text.substr(copied, at - copied));
    out.append(kRedacted);
    learn(text.substr(at, end - at));
    copied = end;
    at = end;
  }
  out.append(text.substr(copied));
  return out;
}

// user:password@host once a URL has lost its "//" (a normalised path such as
// /srv/deploy:pw@nas/lib, or https:/user:pw@host in CONDA_PREFIX): the text
// between a ':' that follows a name and the '@' is a credential. Stops at
// '/', so "/a/lib:/b/x@y" (two path-list entries) is left alone.
std::string redact_userinfo_without_scheme(std::string_view text) {
  std::string out;
  std::size_t copied = 0;
  for (std::size_t at = text.find('@'); at != std::string_view::npos; at = text.find('@', at + 1)) {
    std::size_t colon = at;
    bool found = false;
    while (colon > copied) {
      char c = text[colon - 1];
      if (c == ':') {
        found = true;
        break;
      }
      if (c == '/' || c == '@' || c == '<' || c == '>' || c == '"' || c == '\'' || c == ' ' || c == '\t' ||
          c == '\n' || c == '=' || c == ',' || c == ';')
        break;
      --colon;
    }
    if (!found || colon == at) continue;  // no ':' in this word, or "user:@host"
    std::size_t colon_at = colon - 1;
    if (colon_at == 0) continue;
    char before = text[colon_at - 1];
    if (!(is_alnum(before) || before == '_' || before == '-' || before == '.')) continue;
    if (text.substr(colon_at + 1).starts_with(kRedacted)) continue;
    if (at + 1 >= text.size() || !is_alnum(text[at + 1])) continue;  // '@' must start a host
    out.append(text.substr(copied, colon_at + 1 - copied));
    out.append(kRedacted);
    learn(text.substr(colon_at + 1, at - colon_at - 1));
    // The user before the ':' (as far back as a name goes) is identity.
    std::size_t user = colon_at;
    while (user > 0 && (is_alnum(text[user - 1]) || text[user - 1] == '_' || text[user - 1] == '-' ||
                        text[user - 1] == '.'))
      --user;
    learn(text.substr(user, colon_at - user), 4);
    copied = at;
  }
  out.append(text.substr(copied));
  return out;
}

}  // namespace

std::string redact_secrets(std::string_view text) {
  // Schemes first: "Authorization: Bearer x" must lose x before the
  // key-value pass replaces the word "Bearer".
  std::string blocks = redact_private_key_blocks(text);
  std::string pairs = redact_key_values(redact_auth_schemes(blocks));
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
        learn(s.substr(i, n));
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
        learn(s.substr(j, k - j), 4);
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
  // After the scheme pass, so "https://user:pw@" loses the user too.
  return redact_learned(redact_userinfo_without_scheme(out));
}

void forget_learned_secrets() {
  auto& l = learned();
  std::lock_guard lock(l.mutex);
  l.pieces.clear();
}

void learn_secrets_in(const Json& doc) {
  if (doc.is_string()) {
    (void)redact_secrets(doc.get_ref<const std::string&>());
  } else if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) {
      (void)redact_secrets(key);
      if (value.is_string() && is_secret_key(key) && !is_report_key_not_secret(key))
        learn(value.get_ref<const std::string&>());
      learn_secrets_in(value);
    }
  } else if (doc.is_array()) {
    for (const auto& e : doc) learn_secrets_in(e);
  }
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
      // {"password": "x"}: the key says what the value is, whatever it looks like.
      if (value.is_string() && !value.get_ref<const std::string&>().empty() && is_secret_key(key) &&
          !is_report_key_not_secret(key)) {
        out[redact_string(key, options)] = kRedacted;
        continue;
      }
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

}  // namespace cudiag::render
