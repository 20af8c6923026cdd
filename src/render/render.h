#pragma once
// Renderers only format: a report (with its findings) in, text out. Each
// format registers itself with RegisterRenderer, so a new output format is
// one new file in src/render/.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/options.h"

namespace CLI {
class App;
}

namespace cudiag::render {

struct RenderOptions {
  bool color = false;
  int width = 80;
  // --include-identity: keep GPU UUIDs, host and user names and home
  // directories in the output. Secrets are redacted regardless.
  bool include_identity = false;
};

using RendererFn = std::function<std::string(const Json& report, const RenderOptions& options)>;

struct RegisterRenderer {
  RegisterRenderer(std::string format, RendererFn fn);
};

std::vector<std::string> report_formats();
// Redacts the report (src/render/redact.h) and formats it; every format goes
// through here, so none can skip redaction. Throws InputError for an unknown
// format.
std::string render_report(const Json& report, std::string_view format, const RenderOptions& options);
// Colour only on a terminal, never with NO_COLOR set or --no-color.
RenderOptions render_options(const GlobalOptions& global, bool to_stdout, bool include_identity = false);
// Adds --include-identity to a command that renders a report.
void add_identity_flag(CLI::App& app, bool& include_identity);

}  // namespace cudiag::render
