#pragma once
// The formats of `cudiag fleet`. A fleet is not a report, so these are not
// RegisterRenderer formats (those take one report's JSON): each is a
// function of the FleetResult, chosen by name here. They only format; the
// result is redacted once (redact_fleet) before any of them sees it.
#include <cstddef>
#include <string>
#include <vector>

#include "render/redact.h"
#include "workflow/fleet.h"

namespace cudiag::render {

struct FleetRenderOptions {
  std::size_t max_hosts = 10;  // hosts named per line in text/md/html ("… and N more"); json lists all
};

inline const std::vector<std::string>& fleet_formats() {
  static const std::vector<std::string> kFormats = {"text", "json", "md", "html", "prometheus"};
  return kFormats;
}

// Secrets always; identity (home directories, this machine's host and user
// name, GPU UUIDs) in paths, messages and values unless options.include_identity.
// Host names the reports themselves carry are shown: whoever collected them
// chose --include-identity.
void redact_fleet(workflow::fleet::FleetResult& r, const RedactOptions& options);

// Throws InputError for an unknown format.
std::string render_fleet(const workflow::fleet::FleetResult& r, const std::string& format,
                         const FleetRenderOptions& options);

std::string render_fleet_text(const workflow::fleet::FleetResult& r, const FleetRenderOptions& o);
std::string render_fleet_json(const workflow::fleet::FleetResult& r);
std::string render_fleet_markdown(const workflow::fleet::FleetResult& r, const FleetRenderOptions& o);
std::string render_fleet_html(const workflow::fleet::FleetResult& r, const FleetRenderOptions& o);
std::string render_fleet_prometheus(const workflow::fleet::FleetResult& r);

// Shared by the renderers.
namespace fleet_text {
// "n1, n2, n3 and 97 more" (at most `max` names; 0: all).
std::string hosts(const workflow::fleet::FleetResult& r, const workflow::fleet::Members& m, std::size_t max);
// "12,345"
std::string count(std::size_t n);
// "1 node", "12,345 nodes"
std::string nodes(std::size_t n);
// "97.0%" of the reports
std::string share(std::size_t n, std::size_t total);
// One line for the verdict the exit code gives.
std::string verdict(const workflow::fleet::FleetResult& r);
// How a group's stack value reads: "gpu.name: NVIDIA H100 80GB HBM3".
std::string stack_line(const workflow::StackValue& v);
}  // namespace fleet_text

}  // namespace cudiag::render
