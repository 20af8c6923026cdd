#include "render/render.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <map>

#include "core/errors.h"
#include "render/redact.h"

namespace cudiag::render {

namespace {
std::map<std::string, RendererFn>& renderers() {
  static std::map<std::string, RendererFn> table;
  return table;
}
}  // namespace

RegisterRenderer::RegisterRenderer(std::string format, RendererFn fn) {
  renderers().emplace(std::move(format), std::move(fn));
}

std::vector<std::string> report_formats() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : renderers()) names.push_back(name);
  return names;
}

std::string render_report(const Json& report, std::string_view format, const RenderOptions& options) {
  auto it = renderers().find(std::string(format));
  if (it == renderers().end()) throw InputError("--format " + std::string(format) + ": unknown format");
  // Identity of this process (host, user, home) is looked up once.
  static const RedactOptions process_identity = redact_options_for_this_process(false);
  RedactOptions redact = process_identity;
  redact.include_identity = options.include_identity;
  return it->second(redact_report(report, redact), options);
}

RenderOptions render_options(const GlobalOptions& global, bool to_stdout, bool include_identity) {
  RenderOptions o;
  o.include_identity = include_identity;
  const char* no_color = std::getenv("NO_COLOR");
  o.color = to_stdout && !global.no_color && (no_color == nullptr || *no_color == '\0') && ::isatty(1) == 1;
  return o;
}

void add_identity_flag(CLI::App& app, bool& include_identity) {
  app.add_flag(
      "--include-identity", include_identity,
      "Keep GPU UUIDs, host and user names and home directories in the output (secrets are always redacted)");
}

}  // namespace cudiag::render
