#include "workflow/report_input.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

#include "core/errors.h"

namespace cudiag::workflow {

std::string read_input_text(const std::string& path) {
  if (path == "-") {
    std::ostringstream s;
    s << std::cin.rdbuf();
    return s.str();
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("{}: is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: read failed", path));
  return s.str();
}

Json load_report(const std::string& path) {
  std::string name = path == "-" ? "<stdin>" : path;
  std::string text = read_input_text(path);
  Json report;
  try {
    report = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    std::string what = e.what();
    auto pos = what.find("] ");
    throw InputError(
        fmt::format("{}: not valid JSON: {}", name, pos == std::string::npos ? what : what.substr(pos + 2)));
  }
  if (!report.is_object())
    throw InputError(fmt::format("{}: not a cudiag report (expected a JSON object)", name));
  if (!report.contains("schema") || !report["schema"].is_string() ||
      !report["schema"].get<std::string>().starts_with("cudiag.report/"))
    throw InputError(fmt::format("{}: not a cudiag report (no \"schema\": \"cudiag.report/1\")", name));
  return report;
}

}  // namespace cudiag::workflow
