// `cudiag fleet --format md`: for a GitHub issue or a wiki page — a table of
// the stacks, the majority's values, each outlier's differences, findings and
// drift as tables.
#include <fmt/format.h>

#include "render/fleet_render.h"
#include "render/text_escape.h"

namespace cudiag::render {

using workflow::fleet::FleetResult;
namespace ft = fleet_text;

namespace {

std::string md(const std::string& s) { return markdown_escape(s); }

std::string hosts(const FleetResult& r, const workflow::fleet::Members& m, const FleetRenderOptions& o) {
  return md(ft::hosts(r, m, o.max_hosts));
}

}  // namespace

std::string render_fleet_markdown(const FleetResult& r, const FleetRenderOptions& o) {
  std::string out = "## cudiag fleet\n\n";
  out += fmt::format("**{}** reports read from {} files · **{}** distinct {} · {} unreadable\n\n",
                     ft::count(r.reports), ft::count(r.files), r.groups.size(),
                     r.groups.size() == 1 ? "stack" : "stacks", ft::count(r.unreadable.size()));
  out += fmt::format("**Verdict:** {}\n", md(ft::verdict(r)));

  if (!r.groups.empty()) {
    out +=
        "\n### Stacks\n\n| # | nodes | share | differs from the majority | error findings | nodes |\n"
        "|---|---:|---:|---|---|---|\n";
    for (std::size_t i = 0; i < r.groups.size(); ++i) {
      const auto& g = r.groups[i];
      std::string diff;
      if (i == 0) diff = "*(majority)*";
      for (const auto& d : g.differs) {
        if (!diff.empty()) diff += "<br>";
        diff += md(fmt::format("{}: {} → {}", d.key, d.before.empty() ? "(none)" : d.before,
                               d.after.empty() ? "(none)" : d.after));
      }
      if (i > 0 && g.differs.empty()) diff = "only values read less precisely";
      std::string errors;
      for (const auto& [id, c] : g.errors) {
        if (!errors.empty()) errors += "<br>";
        errors += md(fmt::format("{} ({})", id, ft::count(c)));
      }
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", i + 1, ft::count(g.members.size()),
                         ft::share(g.members.size(), r.reports), diff, errors, hosts(r, g.members, o));
    }
    out += "\n<details><summary>The majority stack</summary>\n\n| key | value |\n|---|---|\n";
    for (const auto* v : workflow::fleet::shown_values(r.groups[0].stack))
      out += fmt::format("| `{}` | {} |\n", v->key, md(workflow::fleet::value_text(*v)));
    out += "\n</details>\n";
  }

  if (!r.findings.empty()) {
    out += "\n### Findings\n\n| severity | id | nodes | message | nodes |\n|---|---|---:|---|---|\n";
    for (const auto& f : r.findings) {
      out += fmt::format("| {} | `{}` | {} | {} | {} |\n", f.severity, md(f.id), ft::count(f.members.size()),
                         md(f.message), hosts(r, f.members, o));
    }
  }
  if (!r.first_failing.empty()) {
    out += "\n### First failing layer\n\n| layer | nodes | nodes |\n|---|---:|---|\n";
    for (const auto& l : r.first_failing)
      out +=
          fmt::format("| {} | {} | {} |\n", md(l.layer), ft::count(l.members.size()), hosts(r, l.members, o));
  }
  if (r.lock_checked) {
    out += fmt::format("\n### Drift from `{}`: {}\n", md(r.lock_name), ft::nodes(r.drifted.size()));
    if (!r.drift.empty()) {
      out += "\n| layer | key | lock | found | nodes | nodes |\n|---|---|---|---|---:|---|\n";
      for (const auto& d : r.drift) {
        out += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", d.layer, md(d.key), md(d.expected),
                           d.actual.empty() ? "none" : md(d.actual), ft::count(d.members.size()),
                           hosts(r, d.members, o));
      }
    }
  }
  if (!r.unreadable.empty()) {
    out += "\n### Unreadable files\n\n| file | why |\n|---|---|\n";
    std::size_t shown = 0;
    for (const auto& u : r.unreadable) {
      if (o.max_hosts && shown++ == o.max_hosts * 5) {
        out += fmt::format("| … | and {} more |\n", ft::count(r.unreadable.size() - o.max_hosts * 5));
        break;
      }
      out += fmt::format("| {} | {} |\n", md(u.path), md(u.reason));
    }
  }
  return out;
}

}  // namespace cudiag::render
