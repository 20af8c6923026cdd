#include "workflow/report_input.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "core/bounded_input.h"
#include "core/errors.h"
#include "model/schema_check.h"

namespace cudiag::workflow {

std::string read_input_text(const std::string& path) { return read_input_bytes(path); }

namespace {
// Every saved report read so far, as read: should a reader later meet a field
// of the wrong type, the schema can then say which (wrong_field_in_saved_reports).
std::vector<std::pair<std::string, std::string>>& saved_texts() {
  static std::vector<std::pair<std::string, std::string>> texts;
  return texts;
}
}  // namespace

Json load_report(const std::string& path) {
  std::string name = path == "-" ? "<stdin>" : path;
  std::string text = read_input_text(path);
  Json report = parse_untrusted_json(text, name);
  saved_texts().emplace_back(name, std::move(text));
  if (!report.is_object())
    throw InputError(fmt::format("{}: not a cudiag report (expected a JSON object)", name));
  if (!report.contains("schema") || !report["schema"].is_string() ||
      !report["schema"].get<std::string>().starts_with("cudiag.report/"))
    throw InputError(fmt::format("{}: not a cudiag report (no \"schema\": \"cudiag.report/1\")", name));
  return report;
}

std::string wrong_field_in_saved_reports() {
  for (const auto& [name, text] : saved_texts()) {
    Json doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded()) continue;
    auto why = model::first_schema_type_mismatch(doc);
    if (!why.empty()) return fmt::format("{}: field {}", name, why);
  }
  return "";
}

}  // namespace cudiag::workflow
