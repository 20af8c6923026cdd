// The human report: one block per layer in diagnosis order with a mark
// (✓ ok, ✗ error, ! warning, ? unknown), the facts that matter (a framework
// or library line may carry its own mark), then the findings with evidence
// and remedies. Fits 80 columns; colour only when RenderOptions says so.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/fact.h"
#include "render/kernel_test_text.h"
#include "render/render.h"
#include "render/text_summary.h"

namespace cudiag::render {
namespace {

constexpr const char* kReset = "\033[0m";
constexpr const char* kRed = "\033[31m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kDim = "\033[2m";
constexpr const char* kBold = "\033[1m";

struct Painter {
  bool on;
  std::string operator()(const char* code, std::string_view text) const {
    return on ? fmt::format("{}{}{}", code, text, kReset) : std::string(text);
  }
};

// Wraps `text` at `width`, indenting continuation lines by `indent`. A word
// and the number after it ("cuDNN 9.1.0", "CUDA 12.4") stay on one line.
std::string wrap(std::string_view text, std::size_t indent, std::size_t first_used, std::size_t width) {
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i <= text.size();) {
    auto sp = text.find(' ', i);
    if (sp == std::string_view::npos) sp = text.size();
    words.push_back(text.substr(i, sp - i));
    i = sp + 1;
  }
  std::vector<std::string_view> units;
  for (std::size_t w = 0; w < words.size(); ++w) {
    auto unit = words[w];
    bool joins = !units.empty() && !unit.empty() && unit[0] >= '0' && unit[0] <= '9';
    if (joins) {
      auto prev = units.back();
      char last = prev.empty() ? ' ' : prev.back();
      joins = last != ',' && last != ';' && last != ':' && last != '.' && prev != "·" && prev != "→";
    }
    if (joins) {
      // Both views point into `text`: widen the previous one over the space.
      units.back() = std::string_view(units.back().data(), unit.data() + unit.size() - units.back().data());
    } else {
      units.push_back(unit);
    }
  }
  std::string out;
  std::size_t col = first_used;
  bool first = true;
  for (auto unit : units) {
    if (!first && col > indent && col + 1 + unit.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (!first) {
      out += ' ';
      ++col;
    }
    out += unit;
    col += unit.size();
    first = false;
  }
  return out;
}

std::string mark_for(const std::string& status, const Painter& paint) {
  if (status == "error") return paint(kRed, "✗");
  if (status == "warning") return paint(kYellow, "!");
  if (status == "ok") return paint(kGreen, "✓");
  return paint(kDim, "?");
}

std::string render_text(const Json& report, const RenderOptions& options) {
  Painter paint{options.color};
  const auto width = static_cast<std::size_t>(options.width);
  std::string out;
  // A report handed to `cudiag analyze` may lack these or carry other types.
  const Json& tool = report.contains("tool") && report["tool"].is_object() ? report["tool"] : Json::object();
  const Json& version = tool.contains("version") && tool["version"].is_string() ? tool["version"] : Json("?");
  out += paint(kBold, fmt::format("cudiag {} — NVIDIA GPU stack", version.get<std::string>()));
  if (report.contains("collected_at") && report["collected_at"].is_string())
    out += fmt::format("  ({})", report["collected_at"].get<std::string>());
  out += "\n";
  if (report.contains("root") && report["root"].is_string())
    out += fmt::format("machine read from {}\n", report["root"].get<std::string>());
  out += "\n";
  const Json& status = report.contains("layer_status") ? report["layer_status"] : Json::object();
  for (const auto& layer : layer_summaries(report)) {
    std::string st = status.contains(layer.name) ? status[layer.name].get<std::string>() : "unknown";
    if (layer.lines.empty()) st = "unknown";
    out += fmt::format("{} {:<14}", mark_for(st, paint), layer.name);
    bool first = true;
    for (const auto& line : layer.lines) {
      // Two columns deeper per level; a line's own mark, then its text.
      std::size_t col = 16 + 2 * static_cast<std::size_t>(std::max(line.depth, 0));
      out += std::string(first ? col - 16 : col, ' ');
      if (!line.mark.empty()) {
        out += mark_for(line.mark, paint) + " ";
        col += 2;
      }
      out += wrap(line.text, col + 2, col, width) + "\n";
      first = false;
    }
    if (first) out += "not collected\n";
  }
  const Json& findings = report.contains("findings") ? report["findings"] : Json::array();
  out += "\n";
  if (findings.empty()) {
    out += paint(kGreen, "No problems found.") + "\n";
    return out;
  }
  if (report.contains("first_failing_layer") && report["first_failing_layer"].is_string()) {
    out += paint(kBold,
                 fmt::format("First failing layer: {}", report["first_failing_layer"].get<std::string>())) +
           "\n\n";
  }
  for (const auto& f : findings) {
    std::string sev = f.value("severity", "info");
    std::string mark = sev == "error"     ? paint(kRed, "✗")
                       : sev == "warning" ? paint(kYellow, "!")
                                          : paint(kDim, "i");
    std::string head = fmt::format("{} {} ", mark, f.value("id", ""));
    if (f.contains("consequence_of"))
      head += paint(kDim, fmt::format("(follows from {}) ", f["consequence_of"].get<std::string>()));
    out += head;
    out += "\n    " + wrap(f.value("message", ""), 4, 4, width) + "\n";
    if (f.contains("evidence")) {
      for (const auto& e : f["evidence"]) {
        std::string v = e["value"].is_string() ? e["value"].get<std::string>() : json_text(e["value"], -1);
        out += "    " +
               paint(kDim, wrap(fmt::format("· {} = {}  [{}]", e.value("fact", ""), v, e.value("source", "")),
                                6, 4, width)) +
               "\n";
      }
    }
    if (!f.value("remediation", "").empty())
      out += "    fix: " + wrap(f["remediation"].get<std::string>(), 9, 9, width) + "\n";
    if (f.contains("docs")) {
      for (const auto& d : f["docs"]) {
        out += "    " +
               paint(kDim, wrap(fmt::format("see {} {}", d.value("url", ""), d.value("section", "")), 8, 4,
                                width)) +
               "\n";
      }
    }
    out += "\n";
  }
  return out;
}

// The kernel test's steps and the --require results close the report, as
// `cudiag test` prints them, whichever command made the report.
std::string render_text_with_blocks(const Json& report, const RenderOptions& options) {
  std::string out = render_text(report, options);
  if (report.contains("kernel_test") && report["kernel_test"].is_object() &&
      report["kernel_test"].contains("driver"))
    out += "\n" + render_kernel_test_text(report["kernel_test"], options.color);
  if (report.contains("requirements")) out += render_requirements_text(report["requirements"]);
  return out;
}

const RegisterRenderer kText{"text", render_text_with_blocks};

}  // namespace
}  // namespace cudiag::render
