// `--format github`: GitHub Actions workflow commands, so each finding shows
// as an annotation on the run: `::error title=…::message` for errors,
// `::warning` and `::notice` for the rest, then the layer statuses in a
// collapsed group. Escaping follows @actions/core (command.ts): in the
// message %, \r and \n are percent-encoded; in properties also ':' and ','.
// A report value can therefore never start a workflow command of its own.
#include <fmt/format.h>

#include "render/issue_summary.h"
#include "render/render.h"
#include "render/text_escape.h"

namespace cudiag::render {
namespace {

std::string escape_data(std::string_view s) {
  std::string out;
  for (char c : valid_utf8(s)) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string escape_property(std::string_view s) {
  std::string out;
  for (char c : escape_data(s)) {
    switch (c) {
      case ':':
        out += "%3A";
        break;
      case ',':
        out += "%2C";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string render_github(const Json& report, const RenderOptions&) {
  std::string out;
  const Json& findings =
      report.contains("findings") && report["findings"].is_array() ? report["findings"] : Json::array();
  for (const auto& f : findings) {
    if (!f.is_object()) continue;
    auto sev = f.value("severity", "info");
    const char* command = sev == "error" ? "error" : sev == "warning" ? "warning" : "notice";
    std::string message = f.value("message", "");
    if (f.contains("consequence_of") && f["consequence_of"].is_string())
      message += " (follows from " + f["consequence_of"].get<std::string>() + ")";
    if (!f.value("remediation", "").empty()) message += "\nFix: " + f["remediation"].get<std::string>();
    for (const auto& d : f.value("docs", Json::array())) {
      if (d.is_object())
        message += "\nSee: " + d.value("url", "") +
                   (d.value("section", "").empty() ? "" : " (" + d.value("section", "") + ")");
    }
    out +=
        fmt::format("::{} title={}::{}\n", command,
                    escape_property(fmt::format("cudiag {}: {}", f.value("layer", "?"), f.value("id", ""))),
                    escape_data(message));
  }
  out += "::group::cudiag layers\n";
  for (const auto& v : layer_views(report)) {
    // Indented: a plain line never starts with "::", so it cannot be read as a command.
    out +=
        "  " +
        escape_data(fmt::format("{:<14} {}{}", v.name, report.contains(v.name) ? v.status : "not collected",
                                v.first_failing ? "  <- first failing layer" : "")) +
        "\n";
  }
  out += "::endgroup::\n";
  if (findings.empty()) out += "cudiag: no problems found\n";
  return out;
}

const RegisterRenderer kGithub{"github", render_github};

}  // namespace
}  // namespace cudiag::render
