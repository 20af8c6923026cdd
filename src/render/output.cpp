#include "render/output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "render/redact.h"
#include "render/text_escape.h"

namespace cudiag::render {

namespace {

const RedactOptions& process_identity() {
  // Host, user and home of this process are looked up once.
  static const RedactOptions o = redact_options_for_this_process(false);
  return o;
}

RedactOptions redact_options(bool include_identity) {
  RedactOptions o = process_identity();
  o.include_identity = include_identity;
  return o;
}

std::string redact_text(std::string_view text, bool include_identity) {
  auto out = redact_secrets(text);
  if (!include_identity) out = redact_identity(out, process_identity());
  return out;
}

// ESC [ <digits and ;> m at `at`: a colour (SGR) sequence, or 0.
std::size_t sgr_length(std::string_view s, std::size_t at) {
  if (at + 2 >= s.size() || s[at] != '\x1b' || s[at + 1] != '[') return 0;
  std::size_t k = at + 2;
  while (k < s.size() && ((s[k] >= '0' && s[k] <= '9') || s[k] == ';')) ++k;
  return k < s.size() && s[k] == 'm' && k - at < 32 ? k - at + 1 : 0;
}

void write_stdout(std::string_view text) {
  std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
  std::cout.flush();
  if (!std::cout) throw InputError(fmt::format("standard output: cannot write: {}", std::strerror(errno)));
}

}  // namespace

std::string escape_terminal(std::string_view text, bool keep_colour) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '\x1b' && keep_colour) {
      if (auto n = sgr_length(text, i); n > 0) {
        out.append(text.substr(i, n));
        i += n;
        continue;
      }
    }
    auto n = utf8_length(text, i);
    // C1 controls (U+0080..U+009F) are read as CSI/OSC by some terminals.
    bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    if (n == 0 || c1 || (n == 1 && (c < 0x20 || c == 0x7F) && c != '\n' && c != '\t')) {
      std::size_t len = n == 0 ? 1 : n;
      for (std::size_t k = 0; k < len; ++k)
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i + k]));
      i += len;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string prepare_output(std::string_view text, OutputKind kind, const OutputOptions& options) {
  switch (kind) {
    case OutputKind::kText:
      return escape_terminal(redact_text(text, options.include_identity), options.keep_colour);
    case OutputKind::kMarkup:
      return redact_text(text, options.include_identity);
    case OutputKind::kJson: {
      // Depth-limited by nlohmann only through our own documents; these are
      // cudiag's own outputs, built from bounded inputs.
      auto doc = Json::parse(text, nullptr, false);
      if (doc.is_discarded()) return escape_terminal(redact_text(text, options.include_identity), false);
      bool newline = !text.empty() && text.back() == '\n';
      bool one_line = text.find('\n') == std::string_view::npos || text.find('\n') + 1 == text.size();
      return json_text(redact_report(doc, redact_options(options.include_identity)), one_line ? -1 : 2) +
             (newline ? "\n" : "");
    }
  }
  return std::string(text);
}

void write_output(std::string_view text, OutputKind kind, const OutputOptions& options) {
  auto prepared = prepare_output(text, kind, options);
  if (options.path.empty() || options.path == "-") {
    write_stdout(prepared);
  } else {
    write_output_file(options.path, prepared);
  }
}

void write_json_output(const Json& doc, const OutputOptions& options, int indent) {
  auto text = json_text(redact_report(doc, redact_options(options.include_identity)), indent) + "\n";
  if (options.path.empty() || options.path == "-") {
    write_stdout(text);
  } else {
    write_output_file(options.path, text);
  }
}

OutputKind output_kind_of_format(std::string_view format) {
  if (format == "text") return OutputKind::kText;
  if (format == "json") return OutputKind::kJson;
  return OutputKind::kMarkup;
}

void write_message(std::string_view line) {
  std::string text = escape_terminal(redact_text(line, false), false);
  if (text.empty() || text.back() != '\n') text.push_back('\n');
  std::cerr << text;
  std::cerr.flush();
}

}  // namespace cudiag::render
