// `cudiag fleet` as text (the default), readable at 80 columns: the
// majority stack in full, every other group by what differs from it, then
// findings, first failing layers, drift and unreadable files.
#include <fmt/format.h>

#include "core/text_wrap.h"
#include "render/fleet_render.h"
#include "render/text_escape.h"

namespace cudiag::render {

using workflow::fleet::FleetResult;
using workflow::fleet::Group;
namespace ft = fleet_text;

namespace {

// Terminal-safe: report strings and file names may hold escape sequences.
std::string safe(const std::string& s) { return valid_utf8(s); }

void hosts_line(std::string& out, const FleetResult& r, const workflow::fleet::Members& m, std::size_t max,
                std::size_t indent) {
  out += word_wrap(std::string(indent, ' ') + "nodes: ", safe(ft::hosts(r, m, max)), indent + 7);
}

void group_text(std::string& out, const FleetResult& r, const Group& g, std::size_t n,
                const FleetRenderOptions& o) {
  bool majority = n == 0;
  out += fmt::format("\n  #{}  {} ({}){}\n", n + 1, ft::nodes(g.members.size()),
                     ft::share(g.members.size(), r.reports), majority ? "  majority" : "");
  if (majority) {
    for (const auto* v : workflow::fleet::shown_values(g.stack))
      out += word_wrap(fmt::format("      {:<18} ", v->key), safe(workflow::fleet::value_text(*v)), 25);
  } else if (g.differs.empty()) {
    out += "      differs only in values read less precisely (not a compatibility difference)\n";
  } else {
    out += "      differs from the majority (matters for compatibility):\n";
    for (const auto& d : g.differs) {
      out += word_wrap(fmt::format("        {}: ", d.key),
                       safe(fmt::format("{} -> {}", d.before.empty() ? "(none)" : d.before,
                                        d.after.empty() ? "(none)" : d.after)),
                       10);
    }
  }
  for (const auto& d : g.less_precise) {
    out += word_wrap(fmt::format("      read less precisely, not a difference: {}: ", d.key),
                     safe(fmt::format("{} -> {}", d.before, d.after)), 10);
  }
  if (!g.errors.empty()) {
    std::vector<std::string> parts;
    for (const auto& [id, c] : g.errors) parts.push_back(fmt::format("{} ({})", id, ft::count(c)));
    out += word_wrap("      error findings: ", join_nonempty(parts, ", "), 8);
  }
  hosts_line(out, r, g.members, o.max_hosts, 6);
}

}  // namespace

std::string render_fleet_text(const FleetResult& r, const FleetRenderOptions& o) {
  std::string out =
      fmt::format("Fleet: {} reports read from {} files", ft::count(r.reports), ft::count(r.files));
  if (!r.unreadable.empty()) out += fmt::format(", {} unreadable", ft::count(r.unreadable.size()));
  out += fmt::format("; {} distinct {}\n", r.groups.size(), r.groups.size() == 1 ? "stack" : "stacks");
  if (r.undiagnosed)
    out += fmt::format("{} reports carry no findings (not diagnosed): counted in stacks only.\n",
                       ft::count(r.undiagnosed));

  if (!r.groups.empty()) {
    out += "\nStacks (the values that decide compatibility)\n";
    for (std::size_t i = 0; i < r.groups.size(); ++i) group_text(out, r, r.groups[i], i, o);
  }

  if (!r.findings.empty()) {
    out += "\nFindings\n";
    for (const auto& f : r.findings) {
      out += fmt::format("\n  {:<7} {}  {} ({})\n", f.severity, safe(f.id), ft::nodes(f.members.size()),
                         ft::share(f.members.size(), r.reports));
      if (!f.message.empty()) out += word_wrap("          ", safe(f.message), 10);
      hosts_line(out, r, f.members, o.max_hosts, 10);
    }
  }

  if (!r.first_failing.empty()) {
    out += "\nFirst failing layer\n";
    for (const auto& l : r.first_failing) {
      out += fmt::format("  {:<16} {}\n", l.layer, ft::nodes(l.members.size()));
      hosts_line(out, r, l.members, o.max_hosts, 19);
    }
  }

  if (r.lock_checked) {
    out += fmt::format("\nDrift from {}: ", safe(r.lock_name));
    if (r.drifted.empty()) {
      out += "every node matches.\n";
    } else {
      out += fmt::format("{} of {} nodes\n", ft::count(r.drifted.size()), ft::count(r.reports));
      std::string layer;
      for (const auto& d : r.drift) {
        if (d.layer != layer) {
          layer = d.layer;
          out += fmt::format("  {}\n", layer);
        }
        std::string change = d.status == "missing" ? fmt::format("{} -> none found", d.expected)
                             : d.status == "added" ? fmt::format("none pinned -> {} (new)", d.actual)
                                                   : fmt::format("{} -> {}", d.expected, d.actual);
        out += word_wrap(fmt::format("    {}: ", safe(d.key)),
                         safe(fmt::format("{}  ({})", change, ft::nodes(d.members.size()))), 8);
        hosts_line(out, r, d.members, o.max_hosts, 8);
      }
    }
  }

  if (!r.unreadable.empty()) {
    out += fmt::format("\nUnreadable ({}; not counted as reports)\n", ft::count(r.unreadable.size()));
    std::size_t shown = 0;
    for (const auto& u : r.unreadable) {
      if (o.max_hosts && shown++ == o.max_hosts * 5) {
        out += fmt::format("  … and {} more (--format json lists them all)\n",
                           ft::count(r.unreadable.size() - o.max_hosts * 5));
        break;
      }
      out += word_wrap(fmt::format("  {}: ", safe(u.path)), safe(u.reason), 4);
    }
  }
  out += fmt::format("\nVerdict: {}\n", ft::verdict(r));
  return out;
}

}  // namespace cudiag::render
