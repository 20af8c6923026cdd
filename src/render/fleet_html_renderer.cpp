// `cudiag fleet --format html`: one self-contained page (inline CSS and an
// inline SVG chart; no script, font, image or any other fetch). The chart is
// one bar per stack group, its length the group's share of the nodes: green
// the majority, red a group with error findings, amber another outlier.
#include <fmt/format.h>

#include <algorithm>

#include "render/fleet_render.h"
#include "render/text_escape.h"

namespace cudiag::render {

using workflow::fleet::FleetResult;
namespace ft = fleet_text;

namespace {

constexpr std::size_t kChartBars = 20;  // more groups than this are one "other" bar

constexpr std::string_view kStyle = R"css(
body{font:15px/1.45 "DejaVu Sans","Liberation Sans",system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1f2328}
header{background:#1f2328;color:#fff;padding:18px 32px}
header h1{margin:0;font-size:22px;font-weight:600}
header p{margin:4px 0 0;color:#c9d1d9;font-size:13px}
main{padding:24px 32px;max-width:1400px}
h2{font-size:17px;margin:24px 0 10px}
.verdict{padding:10px 14px;border-radius:6px;font-weight:600}
.verdict.ok{background:#e6f4ea;color:#1e7b34}.verdict.bad{background:#fce8e6;color:#c5221f}
table{border-collapse:collapse;width:100%;background:#fff}
td,th{text-align:left;vertical-align:top;padding:4px 8px;border-top:1px solid #e5e7eb;overflow-wrap:anywhere;font-size:13.5px}
th{background:#f1f3f4}
code,.mono{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:12.5px}
.hosts{color:#57606a;font-size:12.5px}
.sev-error{color:#c5221f;font-weight:700}.sev-warning{color:#a15c00;font-weight:700}.sev-info{color:#1a5fb4}
svg text{font:12px "DejaVu Sans",sans-serif}
)css";

std::string e(const std::string& s) { return markup_escape(s); }

std::string hosts(const FleetResult& r, const workflow::fleet::Members& m, const FleetRenderOptions& o) {
  return "<span class=\"hosts\">" + e(ft::hosts(r, m, o.max_hosts)) + "</span>";
}

std::string chart(const FleetResult& r) {
  struct Bar {
    std::string label;
    std::size_t n;
    const char* colour;
  };
  std::vector<Bar> bars;
  std::size_t other = 0;
  for (std::size_t i = 0; i < r.groups.size(); ++i) {
    const auto& g = r.groups[i];
    if (i >= kChartBars) {
      other += g.members.size();
      continue;
    }
    const char* colour = i == 0 ? "#1e7b34" : !g.errors.empty() ? "#c5221f" : "#d08a00";
    bars.push_back({fmt::format("#{}", i + 1), g.members.size(), colour});
  }
  if (other) bars.push_back({"other", other, "#9aa0a6"});
  std::size_t most = 1;
  for (const auto& b : bars) most = std::max(most, b.n);
  constexpr int kRow = 26, kLeft = 70, kWidth = 640;
  int height = static_cast<int>(bars.size()) * kRow + 8;
  std::string out = fmt::format(
      "<svg role=\"img\" aria-label=\"nodes per stack group\" xmlns=\"http://www.w3.org/2000/svg\" "
      "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n",
      kLeft + kWidth + 160, height, kLeft + kWidth + 160, height);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    int y = static_cast<int>(i) * kRow + 4;
    int w = std::max(2, static_cast<int>(static_cast<double>(kWidth) * static_cast<double>(b.n) /
                                         static_cast<double>(most)));
    out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>", y + 15, e(b.label));
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"20\" rx=\"3\" fill=\"{}\"/>", kLeft, y,
                       w, b.colour);
    out += fmt::format("<text x=\"{}\" y=\"{}\">{} ({})</text>\n", kLeft + w + 6, y + 15, ft::count(b.n),
                       ft::share(b.n, r.reports));
  }
  return out + "</svg>\n";
}

std::string differences(const workflow::fleet::Group& g, bool majority) {
  if (majority) return "<em>majority</em>";
  if (g.differs.empty()) return "only values read less precisely";
  std::string out;
  for (const auto& d : g.differs) {
    if (!out.empty()) out += "<br>";
    out += fmt::format("<code>{}</code>: {} → {}", e(d.key), e(d.before.empty() ? "(none)" : d.before),
                       e(d.after.empty() ? "(none)" : d.after));
  }
  return out;
}

}  // namespace

std::string render_fleet_html(const FleetResult& r, const FleetRenderOptions& o) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>cudiag fleet</title><style>";
  out += kStyle;
  out += "</style></head><body>\n<header><h1>cudiag fleet</h1>";
  out += fmt::format(
      "<p>{} reports read from {} files · {} distinct stacks · {} unreadable</p></header>\n<main>\n",
      ft::count(r.reports), ft::count(r.files), r.groups.size(), ft::count(r.unreadable.size()));
  out +=
      fmt::format("<p class=\"verdict {}\">{}</p>\n", r.exit_code() == 0 ? "ok" : "bad", e(ft::verdict(r)));
  if (!r.groups.empty()) {
    out += "<h2>Nodes per stack</h2>\n" + chart(r);
    out +=
        "<h2>Stacks</h2>\n<table><tr><th>#</th><th>nodes</th><th>differs from the majority</th>"
        "<th>error findings</th><th>nodes</th></tr>\n";
    for (std::size_t i = 0; i < r.groups.size(); ++i) {
      const auto& g = r.groups[i];
      std::string errors;
      for (const auto& [id, c] : g.errors)
        errors += fmt::format("<code>{}</code> ({})<br>", e(id), ft::count(c));
      out += fmt::format("<tr><td>{}</td><td>{} ({})</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", i + 1,
                         ft::count(g.members.size()), ft::share(g.members.size(), r.reports),
                         differences(g, i == 0), errors, hosts(r, g.members, o));
    }
    out += "</table>\n<h2>The majority stack</h2>\n<table>\n";
    for (const auto* v : workflow::fleet::shown_values(r.groups[0].stack))
      out += fmt::format("<tr><td><code>{}</code></td><td>{}</td></tr>\n", e(v->key),
                         e(workflow::fleet::value_text(*v)));
    out += "</table>\n";
  }
  if (!r.findings.empty()) {
    out +=
        "<h2>Findings</h2>\n<table><tr><th>severity</th><th>id</th><th>nodes</th><th>message</th>"
        "<th>nodes</th></tr>\n";
    for (const auto& f : r.findings) {
      out += fmt::format(
          "<tr><td class=\"sev-{}\">{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          e(f.severity), e(f.severity), e(f.id), ft::count(f.members.size()), e(f.message),
          hosts(r, f.members, o));
    }
    out += "</table>\n";
  }
  if (!r.first_failing.empty()) {
    out += "<h2>First failing layer</h2>\n<table><tr><th>layer</th><th>nodes</th><th>nodes</th></tr>\n";
    for (const auto& l : r.first_failing)
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", e(l.layer),
                         ft::count(l.members.size()), hosts(r, l.members, o));
    out += "</table>\n";
  }
  if (r.lock_checked) {
    out +=
        fmt::format("<h2>Drift from <code>{}</code>: {}</h2>\n", e(r.lock_name), ft::nodes(r.drifted.size()));
    if (!r.drift.empty()) {
      out +=
          "<table><tr><th>layer</th><th>key</th><th>lock</th><th>found</th><th>nodes</th><th>nodes</th></"
          "tr>\n";
      for (const auto& d : r.drift) {
        out += fmt::format(
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            e(d.layer), e(d.key), e(d.expected), d.actual.empty() ? "none" : e(d.actual),
            ft::count(d.members.size()), hosts(r, d.members, o));
      }
      out += "</table>\n";
    }
  }
  if (!r.unreadable.empty()) {
    out += "<h2>Unreadable files</h2>\n<table><tr><th>file</th><th>why</th></tr>\n";
    std::size_t shown = 0;
    for (const auto& u : r.unreadable) {
      if (o.max_hosts && shown++ == o.max_hosts * 5) {
        out += fmt::format("<tr><td>…</td><td>and {} more</td></tr>\n",
                           ft::count(r.unreadable.size() - o.max_hosts * 5));
        break;
      }
      out += fmt::format("<tr><td class=\"mono\">{}</td><td>{}</td></tr>\n", e(u.path), e(u.reason));
    }
    out += "</table>\n";
  }
  return out + "</main></body></html>\n";
}

}  // namespace cudiag::render
