#pragma once
// Renderers only format: a report (with its findings) in, text out. Each
// format registers itself with RegisterRenderer, so a new output format is
// one new file in src/render/.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "core/json.h"

namespace cudiag {

struct RenderOptions {
  bool color = false;
  int width = 80;
};

using RendererFn = std::function<std::string(const Json& report, const RenderOptions& options)>;

struct RegisterRenderer {
  RegisterRenderer(std::string format, RendererFn fn);
};

std::vector<std::string> report_formats();
// Throws InputError for an unknown format.
std::string render_report(const Json& report, std::string_view format, const RenderOptions& options);
// Colour only on a terminal, never with NO_COLOR set or --no-color.
RenderOptions render_options(const GlobalOptions& global, bool to_stdout);

}  // namespace cudiag
