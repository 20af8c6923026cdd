#include "render/fleet_render.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/text_wrap.h"

namespace cudiag::render {

using workflow::fleet::FleetResult;
using workflow::fleet::Members;

namespace {

std::string clean(const std::string& s, const RedactOptions& o) {
  std::string out = redact_secrets(s);
  return o.include_identity ? out : redact_identity(out, o);
}

void clean_in_place(std::string& s, const RedactOptions& o) { s = clean(s, o); }

}  // namespace

void redact_fleet(FleetResult& r, const RedactOptions& o) {
  for (std::size_t i = 0; i < r.names.size(); ++i) {
    if (i < r.named_by_host.size() && r.named_by_host[i]) {
      r.names[i] = redact_secrets(r.names[i]);
    } else {
      clean_in_place(r.names[i], o);
    }
  }
  for (auto& u : r.unreadable) {
    clean_in_place(u.path, o);
    clean_in_place(u.reason, o);
  }
  for (auto& g : r.groups) {
    for (auto& v : g.stack.values) {
      for (auto& x : v.values) clean_in_place(x, o);
    }
    for (auto& rt : g.stack.runtimes) clean_in_place(rt.path, o);
    for (auto* list : {&g.differs, &g.less_precise}) {
      for (auto& d : *list) {
        clean_in_place(d.before, o);
        clean_in_place(d.after, o);
      }
    }
  }
  for (auto& f : r.findings) clean_in_place(f.message, o);
  for (auto& d : r.drift) {
    clean_in_place(d.key, o);
    clean_in_place(d.expected, o);
    clean_in_place(d.actual, o);
  }
  clean_in_place(r.lock_name, o);
}

std::string render_fleet(const FleetResult& r, const std::string& format, const FleetRenderOptions& options) {
  if (format == "text") return render_fleet_text(r, options);
  if (format == "json") return render_fleet_json(r);
  if (format == "md") return render_fleet_markdown(r, options);
  if (format == "html") return render_fleet_html(r, options);
  if (format == "prometheus") return render_fleet_prometheus(r);
  throw InputError(fmt::format("--format {}: not a fleet format (text, json, md, html, prometheus)", format));
}

namespace fleet_text {

std::string count(std::size_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string nodes(std::size_t n) { return count(n) + (n == 1 ? " node" : " nodes"); }

std::string share(std::size_t n, std::size_t total) {
  if (total == 0) return "0%";
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(n) / static_cast<double>(total));
}

std::string hosts(const FleetResult& r, const Members& m, std::size_t max) {
  std::string out;
  std::size_t shown = max == 0 ? m.size() : std::min(max, m.size());
  for (std::size_t i = 0; i < shown; ++i) {
    if (i) out += ", ";
    out += r.names[m[i]];
  }
  if (shown < m.size()) out += fmt::format(" and {} more", count(m.size() - shown));
  return out;
}

std::string verdict(const FleetResult& r) {
  if (r.reports == 0) return "No report could be read.";
  std::vector<std::string> bad;
  if (r.groups.size() > 1) bad.push_back(fmt::format("{} distinct stacks", r.groups.size()));
  if (auto e = r.error_nodes()) bad.push_back(fmt::format("{} with error findings", nodes(e)));
  if (!r.drifted.empty()) bad.push_back(fmt::format("{} drifted from the lock", nodes(r.drifted.size())));
  if (!r.unreadable.empty()) bad.push_back(fmt::format("{} unreadable files", count(r.unreadable.size())));
  if (bad.empty())
    return r.lock_checked ? "One stack, no error finding, matches the lock." : "One stack, no error finding.";
  return join_nonempty(bad, "; ") + ".";
}

std::string stack_line(const workflow::StackValue& v) {
  return fmt::format("{}: {}", v.key, workflow::fleet::value_text(v));
}

}  // namespace fleet_text

}  // namespace cudiag::render
