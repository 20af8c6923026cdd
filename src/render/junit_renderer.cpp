// `--format junit`: JUnit XML for CI test reports. One testcase per layer (a
// failure when the layer has an error finding, carrying the messages; skipped
// when the layer was not collected) and, when the report has `requirements`
// (from `check --require`), one testcase per requirement.
#include <fmt/format.h>

#include "render/issue_summary.h"
#include "render/render.h"
#include "render/text_escape.h"

namespace cudiag::render {
namespace {

struct Case {
  std::string name;
  std::string failure_message;  // empty: passed
  std::string failure_text;
  std::string skipped;     // non-empty: skipped, with this reason
  std::string system_out;  // warnings and notes
};

std::string suite(const std::string& name, const std::string& timestamp, const std::vector<Case>& cases) {
  std::size_t failures = 0;
  std::size_t skipped = 0;
  for (const auto& c : cases) {
    if (!c.failure_message.empty()) ++failures;
    if (!c.skipped.empty()) ++skipped;
  }
  std::string out =
      fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\"{}>\n",
                  markup_escape(name), cases.size(), failures, skipped,
                  timestamp.empty() ? "" : " timestamp=\"" + markup_escape(timestamp) + "\"");
  for (const auto& c : cases) {
    out +=
        fmt::format("    <testcase classname=\"{}\" name=\"{}\"", markup_escape(name), markup_escape(c.name));
    if (c.failure_message.empty() && c.skipped.empty() && c.system_out.empty()) {
      out += "/>\n";
      continue;
    }
    out += ">\n";
    if (!c.failure_message.empty()) {
      out += fmt::format("      <failure type=\"error\" message=\"{}\">{}</failure>\n",
                         markup_escape(c.failure_message), markup_escape(c.failure_text));
    }
    if (!c.skipped.empty()) out += fmt::format("      <skipped message=\"{}\"/>\n", markup_escape(c.skipped));
    if (!c.system_out.empty())
      out += fmt::format("      <system-out>{}</system-out>\n", markup_escape(c.system_out));
    out += "    </testcase>\n";
  }
  return out + "  </testsuite>\n";
}

std::string finding_text(const Json& f) {
  std::string text =
      fmt::format("[{}] {}: {}", f.value("severity", "info"), f.value("id", ""), f.value("message", ""));
  if (f.contains("consequence_of") && f["consequence_of"].is_string())
    text += fmt::format(" (follows from {})", f["consequence_of"].get<std::string>());
  if (!f.value("remediation", "").empty()) text += "\n  fix: " + f["remediation"].get<std::string>();
  return text + "\n";
}

std::vector<Case> layer_cases(const Json& report) {
  const Json& findings =
      report.contains("findings") && report["findings"].is_array() ? report["findings"] : Json::array();
  std::vector<Case> cases;
  for (const auto& v : layer_views(report)) {
    Case c;
    c.name = v.name;
    if (!report.contains(v.name)) c.skipped = "not collected";
    for (const auto& f : findings) {
      if (!f.is_object() || f.value("layer", "") != v.name) continue;
      if (f.value("severity", "") == "error") {
        if (c.failure_message.empty()) {
          c.failure_message = f.value("message", "");
        } else {
          c.failure_message += " | " + f.value("message", "");
        }
        c.failure_text += finding_text(f);
      } else {
        c.system_out += finding_text(f);
      }
    }
    if (!c.failure_message.empty()) c.skipped.clear();
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<Case> requirement_cases(const Json& requirements) {
  std::vector<Case> cases;
  for (const auto& r : requirements) {
    if (!r.is_object()) continue;
    Case c;
    c.name = display_text(r.value("requirement", Json("?")));
    auto actual = display_text(r.value("actual", Json()));
    auto message = display_text(r.value("message", Json()));
    if (!r.contains("satisfied") || r["satisfied"] != true) {
      c.failure_message = message.empty() ? "not satisfied" : message;
      c.failure_text = fmt::format("requirement: {}\nactual: {}\n{}", c.name,
                                   actual.empty() ? "unknown" : actual, message);
    } else {
      c.system_out = fmt::format("actual: {}{}", actual.empty() ? "unknown" : actual,
                                 message.empty() ? "" : "\n" + message);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string render_junit(const Json& report, const RenderOptions&) {
  auto timestamp = report.value("collected_at", "");
  if (timestamp.ends_with("Z")) timestamp.pop_back();  // JUnit's schema: ISO 8601 without a zone
  std::string body = suite("cudiag.layers", timestamp, layer_cases(report));
  std::size_t tests = layer_views(report).size();
  if (report.contains("requirements") && report["requirements"].is_array() &&
      !report["requirements"].empty()) {
    auto cases = requirement_cases(report["requirements"]);
    tests += cases.size();
    body += suite("cudiag.requirements", timestamp, cases);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cudiag\" "
      "tests=\"{}\">\n{}</testsuites>\n",
      tests, body);
}

const RegisterRenderer kJunit{"junit", render_junit};

}  // namespace
}  // namespace cudiag::render
