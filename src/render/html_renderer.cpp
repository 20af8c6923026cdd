// `--format html`: one self-contained page (inline CSS, no scripts, fonts,
// images or any other network fetch) to attach to a ticket or open in a
// browser. Left: the stack as a column of boxes, host at the top and
// kernel_test at the bottom, coloured by status with the first failing layer
// marked. Right: findings, the environment summary, each layer's facts.
#include <fmt/format.h>

#include <algorithm>

#include "render/issue_summary.h"
#include "render/render.h"
#include "render/text_escape.h"

namespace cudiag::render {
namespace {

constexpr std::size_t kFactsPerLayer = 400;

constexpr std::string_view kStyle = R"css(
:root{--ok:#1e7b34;--ok-bg:#e6f4ea;--error:#c5221f;--error-bg:#fce8e6;--warning:#a15c00;--warning-bg:#fef3d6;
--unknown:#6b7280;--unknown-bg:#f1f3f4;--info:#1a5fb4;--info-bg:#e8f0fe}
*{box-sizing:border-box}
body{font:15px/1.45 "DejaVu Sans","Liberation Sans",system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1f2328}
header{background:#1f2328;color:#fff;padding:18px 32px}
header h1{margin:0;font-size:22px;font-weight:600}
header p{margin:4px 0 0;color:#c9d1d9;font-size:13px}
main{display:grid;grid-template-columns:360px minmax(0,1fr);gap:32px;padding:24px 32px;max-width:1500px}
h2{font-size:17px;margin:0 0 12px}
section{margin-bottom:28px}
.stack{display:flex;flex-direction:column}
.layer{border:2px solid var(--fg);background:var(--bg);border-radius:8px;padding:10px 14px}
.layer .head{display:flex;justify-content:space-between;align-items:center;font-weight:600;gap:8px}
.layer .line{font-size:12.5px;color:#3c4043;margin-top:3px;overflow-wrap:anywhere}
.layer .line.d1{padding-left:1.1em}.layer .line.d2{padding-left:2.2em}.layer .line.d3{padding-left:3.3em}
.layer .mark{font-weight:700;color:var(--fg)}
.layer.first{box-shadow:0 0 0 4px rgba(197,34,31,.30)}
.first-label{display:inline-block;margin-top:6px;font-size:12px;font-weight:700;color:var(--error);text-transform:uppercase;letter-spacing:.04em}
.arrow{text-align:center;color:#9aa0a6;font-size:13px;line-height:18px;height:18px}
.badge{background:var(--fg);color:#fff;border-radius:12px;padding:2px 10px;font-size:12px;font-weight:600;white-space:nowrap}
.ok{--fg:var(--ok);--bg:var(--ok-bg)}
.error{--fg:var(--error);--bg:var(--error-bg)}
.warning{--fg:var(--warning);--bg:var(--warning-bg)}
.unknown{--fg:var(--unknown);--bg:var(--unknown-bg)}
.info{--fg:var(--info);--bg:var(--info-bg)}
.finding{border-left:6px solid var(--fg);background:#fff;padding:12px 16px;margin:0 0 12px;border-radius:4px;box-shadow:0 1px 2px rgba(0,0,0,.10)}
.finding .head{display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.finding .id{font-family:"DejaVu Sans Mono",ui-monospace,Menlo,monospace;font-size:13px;color:#57606a}
.finding .msg{margin:8px 0 4px;font-size:15px}
.finding .fix{margin:6px 0;padding:6px 10px;background:#f6f8fa;border-radius:4px}
.finding .consequence{font-size:12.5px;color:#57606a}
.none{background:#fff;border-left:6px solid var(--ok);padding:12px 16px;border-radius:4px}
table{border-collapse:collapse;width:100%}
td,th{text-align:left;vertical-align:top;padding:3px 8px;border-top:1px solid #e5e7eb;overflow-wrap:anywhere}
.evidence,.facts{font:12px/1.4 "DejaVu Sans Mono",ui-monospace,Menlo,monospace}
.facts td.src,.evidence td.src{color:#6b7280}
.evidence td:first-child{width:34%}
.evidence td:nth-child(2){white-space:nowrap;font-weight:600}
dl.env{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:6px 18px;background:#fff;padding:12px 16px;border-radius:6px;border:1px solid #e5e7eb;margin:0}
dl.env dt{font-weight:600}
dl.env dd{margin:0;overflow-wrap:anywhere}
details{background:#fff;border:1px solid #e5e7eb;border-radius:6px;margin:0 0 8px;padding:8px 12px}
summary{cursor:pointer;font-weight:600}
summary .badge{margin-left:8px}
.more{color:#6b7280;font-size:12.5px}
a{color:#1a5fb4}
@media (max-width:900px){main{grid-template-columns:1fr}}
)css";

const char* status_label(const std::string& status) {
  if (status == "ok") return "✓ ok";
  if (status == "error") return "✗ error";
  if (status == "warning") return "! warning";
  return "? not checked";
}

// A summary line's own mark, as the text report writes it.
const char* line_mark(const std::string& status) {
  if (status == "ok") return "✓";
  if (status == "error") return "✗";
  if (status == "warning") return "!";
  return "?";
}

std::string css_class(const std::string& status) {
  for (const char* known : {"ok", "error", "warning", "info"}) {
    if (status == known) return status;
  }
  return "unknown";
}

std::string link(const std::string& url, const std::string& text) {
  bool web = url.starts_with("https://") || url.starts_with("http://");
  if (!web) return markup_escape(text.empty() ? url : text);
  return fmt::format("<a href=\"{}\" rel=\"noreferrer\">{}</a>", markup_escape(url),
                     markup_escape(text.empty() ? url : text));
}

std::string render_stack(const Json& report, const std::vector<LayerView>& views) {
  std::string out = "<section><h2>Layers</h2><div class=\"stack\">\n";
  bool first_box = true;
  for (const auto& v : views) {
    if (!first_box) out += "<div class=\"arrow\">▼</div>\n";
    first_box = false;
    bool collected = report.contains(v.name);
    std::string status = collected ? v.status : "unknown";
    out += fmt::format(
        "<div class=\"layer {}{}\" id=\"box-{}\"><div class=\"head\"><span>{}</span><span "
        "class=\"badge\">{}</span></div>\n",
        css_class(status), v.first_failing ? " first" : "", markup_escape(v.name), markup_escape(v.name),
        collected ? status_label(status) : "not collected");
    for (const auto& line : v.summary) {
      std::string mark;
      if (!line.mark.empty()) {
        mark = fmt::format("<span class=\"mark {}\">{}</span> ", css_class(line.mark), line_mark(line.mark));
      }
      out += fmt::format("<div class=\"line d{}\">{}{}</div>\n", std::clamp(line.depth, 0, 3), mark,
                         markup_escape(line.text));
    }
    if (v.first_failing) out += "<div class=\"first-label\">▲ first failing layer</div>\n";
    out += "</div>\n";
  }
  return out + "</div></section>\n";
}

std::string render_findings(const Json& report) {
  std::string out = "<section><h2>Findings</h2>\n";
  const Json& findings =
      report.contains("findings") && report["findings"].is_array() ? report["findings"] : Json::array();
  if (findings.empty()) return out + "<div class=\"none ok\">No problems found.</div></section>\n";
  for (const auto& f : findings) {
    if (!f.is_object()) continue;
    auto sev = f.value("severity", "info");
    out += fmt::format(
        "<div class=\"finding {}\"><div class=\"head\"><span class=\"badge\">{}</span><b>{}</b><span "
        "class=\"id\">{}</span></div>\n",
        css_class(sev), markup_escape(sev), markup_escape(f.value("layer", "?")),
        markup_escape(f.value("id", "")));
    if (f.contains("consequence_of") && f["consequence_of"].is_string()) {
      out += fmt::format("<div class=\"consequence\">follows from the failure of {}</div>\n",
                         markup_escape(f["consequence_of"].get<std::string>()));
    }
    out += fmt::format("<div class=\"msg\">{}</div>\n", markup_escape(f.value("message", "")));
    if (!f.value("remediation", "").empty()) {
      out += fmt::format("<div class=\"fix\"><b>Fix:</b> {}</div>\n",
                         markup_escape(f["remediation"].get<std::string>()));
    }
    const Json& evidence = f.value("evidence", Json::array());
    if (!evidence.empty()) {
      out += "<table class=\"evidence\">";
      for (const auto& e : evidence) {
        if (!e.is_object()) continue;
        out += fmt::format(
            "<tr><td>{}</td><td>{}</td><td class=\"src\">{}</td></tr>", markup_escape(e.value("fact", "")),
            markup_escape(evidence_text(e.value("value", Json()))), markup_escape(e.value("source", "")));
      }
      out += "</table>\n";
    }
    for (const auto& d : f.value("docs", Json::array())) {
      if (!d.is_object()) continue;
      out +=
          fmt::format("<div class=\"more\">See {}</div>\n", link(d.value("url", ""), d.value("section", "")));
    }
    out += "</div>\n";
  }
  return out + "</section>\n";
}

std::string render_environment(const Json& report) {
  std::string out = "<section><h2>Environment</h2><dl class=\"env\">\n";
  for (const auto& item : issue_summary(report)) {
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", markup_escape(item.label), markup_escape(item.text));
  }
  return out + "</dl></section>\n";
}

std::string render_details(const Json& report, const std::vector<LayerView>& views) {
  std::string out = "<section><h2>Details per layer</h2>\n";
  std::vector<std::pair<std::string, std::string>> sections;
  for (const auto& v : views) {
    if (report.contains(v.name)) sections.emplace_back(v.name, v.status);
  }
  if (report.contains("container")) sections.emplace_back("container", "info");
  for (const auto& [name, status] : sections) {
    bool truncated = false;
    auto facts = layer_facts(report, name, kFactsPerLayer, truncated);
    out += fmt::format(
        "<details class=\"{}\"><summary>{}<span class=\"badge\">{}</span></summary><table class=\"facts\">\n",
        css_class(status), markup_escape(name),
        name == "container" ? "image identity" : status_label(status));
    for (const auto& f : facts) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"src\">{}</td></tr>\n", markup_escape(f.path),
                         markup_escape(f.value), markup_escape(f.source));
    }
    out += "</table>";
    if (truncated)
      out +=
          "<p class=\"more\">More facts left out; the JSON report (<code>--format json</code>) has all of "
          "them.</p>";
    out += "</details>\n";
  }
  return out + "</section>\n";
}

std::string render_html(const Json& report, const RenderOptions&) {
  auto views = layer_views(report);
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // Nothing may be fetched: the page must render the same offline.
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'\">\n";
  out += "<title>cudiag report</title>\n<style>";
  out += kStyle;
  out += "</style></head><body>\n";
  out += fmt::format("<header><h1>cudiag — NVIDIA GPU stack</h1><p>cudiag {} · collected {}</p></header>\n",
                     markup_escape(report.contains("tool") ? report["tool"].value("version", "?") : "?"),
                     markup_escape(report.value("collected_at", "?")));
  out += "<main><div>\n" + render_stack(report, views) + "</div><div>\n";
  out += render_findings(report) + render_environment(report) + render_details(report, views);
  out += "</div></main></body></html>\n";
  return out;
}

const RegisterRenderer kHtml{"html", render_html};

}  // namespace
}  // namespace cudiag::render
