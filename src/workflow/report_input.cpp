#include "workflow/report_input.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

#include "core/bounded_input.h"
#include "core/errors.h"

namespace cudiag::workflow {

std::string read_input_text(const std::string& path) { return read_input_bytes(path); }

Json load_report(const std::string& path) {
  std::string name = path == "-" ? "<stdin>" : path;
  std::string text = read_input_text(path);
  Json report = parse_untrusted_json(text, name);
  if (!report.is_object())
    throw InputError(fmt::format("{}: not a cudiag report (expected a JSON object)", name));
  if (!report.contains("schema") || !report["schema"].is_string() ||
      !report["schema"].get<std::string>().starts_with("cudiag.report/"))
    throw InputError(fmt::format("{}: not a cudiag report (no \"schema\": \"cudiag.report/1\")", name));
  return report;
}

}  // namespace cudiag::workflow
