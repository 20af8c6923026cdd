#pragma once
// The one writer every command's output goes through: stdout, `-o FILE` and
// the one-line messages on stderr. Whatever a command prints — a rendered
// report, a lock file, verify's drift, a diff, explain's echo of a pasted log —
// passes the same redaction here (src/render/redact.h), so no output path can
// forget it, and text meant for a terminal has its control characters
// escaped, so a directory name or a pasted log cannot drive the terminal.
#include <string>
#include <string_view>

#include "core/json.h"

namespace cudiag::render {

enum class OutputKind {
  kText,    // read on a terminal: redacted, control characters escaped
  kJson,    // JSON text: parsed, every key and string redacted, written again
  kMarkup,  // md, html, junit, github: redacted; the format escapes controls itself
};

struct OutputOptions {
  std::string path;  // "" or "-": standard output; else the file (core/atomic_file.h)
  bool include_identity = false;
  bool keep_colour = false;  // kText: let cudiag's own SGR colour sequences (ESC [ digits m) through
};

// Redacts `text` as `kind` says and writes it. Throws InputError naming the
// path when it cannot be written.
void write_output(std::string_view text, OutputKind kind, const OutputOptions& options);
// The JSON document `doc`, redacted, as json_text(doc, indent) + "\n".
void write_json_output(const Json& doc, const OutputOptions& options, int indent = 2);
// What write_output would write, without writing it (tests, and renderers
// that need the final text).
std::string prepare_output(std::string_view text, OutputKind kind, const OutputOptions& options);

// The kind of a report format's output: text is kText, json kJson, the
// markup formats kMarkup.
OutputKind output_kind_of_format(std::string_view format);

// A message for stderr ("cudiag: error: ..."), redacted and escaped, with
// its newline.
void write_message(std::string_view line);

// Control characters (C0 except tab and newline, DEL, C1) and invalid UTF-8
// bytes as visible \xNN escapes; with keep_colour, SGR sequences stay.
std::string escape_terminal(std::string_view text, bool keep_colour = false);

}  // namespace cudiag::render
