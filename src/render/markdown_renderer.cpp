// `--format md`: a report to paste into a GitHub issue. Findings first (what
// the reader must act on), then one line per piece of the stack, then each
// layer's facts in a collapsed <details> section. GitHub limits an issue body
// to 65536 characters, so each layer's facts are capped.
#include <fmt/format.h>

#include <algorithm>

#include "render/issue_summary.h"
#include "render/render.h"
#include "render/text_escape.h"

namespace cudiag::render {
namespace {

constexpr std::size_t kFactsPerLayer = 120;
// GitHub rejects issue bodies over 65536 characters; leave room for the
// reporter's own words.
constexpr std::size_t kBodyBudget = 56000;

const char* status_mark(const std::string& status) {
  if (status == "error") return "❌";
  if (status == "warning") return "⚠️";
  if (status == "ok") return "✅";
  return "❔";
}

// An http(s) URL as an autolink (no escapes are read inside one), anything else as text.
std::string markdown_url(const std::string& url) {
  bool plain = url.starts_with("https://") || url.starts_with("http://");
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= ' ' || c == '<' || c == '>' || static_cast<unsigned char>(c) >= 0x7f)
      plain = false;
  }
  return plain ? "<" + url + ">" : markdown_escape(url);
}

std::string render_findings(const Json& report) {
  std::string out = "### Findings\n\n";
  const Json& findings =
      report.contains("findings") && report["findings"].is_array() ? report["findings"] : Json::array();
  if (findings.empty()) return out + "No problems found.\n\n";
  if (report.contains("first_failing_layer") && report["first_failing_layer"].is_string()) {
    out += fmt::format("First failing layer: **{}**\n\n",
                       markdown_escape(report["first_failing_layer"].get<std::string>()));
  }
  for (const auto& f : findings) {
    if (!f.is_object()) continue;
    out += fmt::format("- **{}** · `{}` · {}", markdown_escape(f.value("severity", "info")),
                       markdown_code(f.value("layer", "?")), markdown_escape(f.value("message", "")));
    if (f.contains("consequence_of") && f["consequence_of"].is_string()) {
      out += fmt::format(" _(follows from {})_", markdown_escape(f["consequence_of"].get<std::string>()));
    }
    out += fmt::format("  \n  `{}`\n", markdown_code(f.value("id", "")));
    if (!f.value("remediation", "").empty())
      out += fmt::format("  - **Fix:** {}\n", markdown_escape(f["remediation"].get<std::string>()));
    for (const auto& e : f.value("evidence", Json::array())) {
      if (!e.is_object()) continue;
      out += fmt::format("  - {} = `{}` ({})\n", markdown_escape(e.value("fact", "")),
                         markdown_code(evidence_text(e.value("value", Json()))),
                         markdown_escape(e.value("source", "")));
    }
    for (const auto& d : f.value("docs", Json::array())) {
      if (!d.is_object()) continue;
      out += fmt::format("  - See: {} {}\n", markdown_url(d.value("url", "")),
                         markdown_escape(d.value("section", "")));
    }
  }
  return out + "\n";
}

std::string render_details(const Json& report, std::size_t used) {
  std::string out = "### Layers\n\n";
  auto views = layer_views(report);
  std::vector<std::string> sections;
  for (const auto& v : views) sections.push_back(v.name);
  if (report.contains("container")) sections.push_back("container");
  for (const auto& name : sections) {
    std::string status = "unknown";
    bool first = false;
    std::vector<SummaryLine> summary;
    for (const auto& v : views) {
      if (v.name != name) continue;
      status = v.status;
      first = v.first_failing;
      summary = v.summary;
    }
    bool collected = report.contains(name);
    std::string label = name == "container" ? "image identity" : (collected ? status : "not collected");
    out += fmt::format("<details><summary>{} <b>{}</b> — {}{}</summary>\n\n",
                       name == "container" ? "📦" : status_mark(status), name, label,
                       first ? " (first failing layer)" : "");
    if (!collected) {
      out += "Not collected by this version of cudiag.\n\n</details>\n";
      continue;
    }
    for (const auto& line : summary) {
      out += std::string(2 * static_cast<std::size_t>(std::max(line.depth, 0)), ' ') + "- " +
             (line.mark.empty() ? "" : std::string(status_mark(line.mark)) + " ") +
             markdown_escape(line.text) + "\n";
    }
    if (!summary.empty()) out += "\n";
    bool truncated = false;
    auto facts = layer_facts(report, name, kFactsPerLayer, truncated);
    out += "```text\n";
    for (const auto& f : facts) {
      auto line =
          markdown_code(f.path + ": " + f.value + (f.source.empty() ? "" : "  [" + f.source + "]")) + "\n";
      // Each remaining section still needs its frame (~200 characters).
      if (used + out.size() + line.size() + 200 * sections.size() > kBodyBudget) {
        truncated = true;
        break;
      }
      out += line;
    }
    if (truncated)
      out += fmt::format("… more facts left out; attach `cudiag report --format json` for all of them\n");
    out += "```\n\n</details>\n";
  }
  return out;
}

std::string render_markdown(const Json& report, const RenderOptions&) {
  std::string out;
  out += fmt::format("## cudiag report\n\n<sub>cudiag {} · collected {}</sub>\n\n",
                     markdown_escape(report.contains("tool") ? report["tool"].value("version", "?") : "?"),
                     markdown_escape(report.value("collected_at", "?")));
  out += render_findings(report);
  out += "### Environment\n\n";
  for (const auto& item : issue_summary(report))
    out += fmt::format("- **{}:** {}\n", item.label, markdown_escape(item.text));
  out += "\n";
  out += render_details(report, out.size());
  return out;
}

const RegisterRenderer kMarkdown{"md", render_markdown};

}  // namespace
}  // namespace cudiag::render
