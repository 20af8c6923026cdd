#include "explain/render.h"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "core/text_wrap.h"
#include "kb/records.h"
#include "rules/finding.h"

namespace cudiag::explain {

namespace {

constexpr std::size_t kWidth = 80;

std::string wrap(std::string_view first, std::string_view text, std::size_t indent) {
  return word_wrap(first, text, indent, kWidth);
}

std::string lines_text(const Explanation& e) {
  if (e.lines.empty()) return "";
  std::string out = e.lines.size() == 1 ? "line " : "lines ";
  std::size_t shown = 0;
  for (auto l : e.lines) {
    if (shown == 8) {
      out += fmt::format(", ... ({} lines)", e.lines.size());
      break;
    }
    out += (shown ? ", " : "") + std::to_string(l);
    ++shown;
  }
  return out;
}

std::string first_failing(const Json& report) {
  auto it = report.find("first_failing_layer");
  if (it == report.end()) return "";
  if (it->is_null()) return "cudiag check on this machine: no layer fails.";
  if (it->is_string())
    return fmt::format("cudiag check on this machine: the first failing layer is {}.",
                       it->get<std::string>());
  return "";
}

Json sources_json(const std::vector<kb::Source>& sources) {
  Json out = Json::array();
  for (const auto& s : sources) out.push_back({{"url", s.url}, {"section", s.section}});
  return out;
}

// What the stated facts (--assume, the pasted text) are and what the rules make of them.
std::string stated_text(const ExplainResult& r) {
  std::string out;
  if (!r.stated.empty()) {
    out += r.collected ? "Stated facts over this machine's report:\n"
                       : "Facts stated (--assume) or read from the pasted text:\n";
    for (const auto& f : r.stated) out += wrap("  - ", f, 4);
  }
  if (!r.skipped.empty()) {
    out += "Read but not usable by the rules:\n";
    for (const auto& f : r.skipped) out += wrap("  - ", f, 4);
  }
  if (r.stated.empty()) return out;
  if (r.findings.empty()) {
    out += "Diagnosis of these facts: no layer fails.\n";
    return out;
  }
  out += "Diagnosis of these facts:\n";
  if (r.report && r.report->contains("first_failing_layer") && (*r.report)["first_failing_layer"].is_string())
    out += wrap(
        "  ", fmt::format("First failing layer: {}.", (*r.report)["first_failing_layer"].get<std::string>()),
        2);
  for (const auto& f : r.findings) {
    std::string sev = f.value("severity", "");
    std::string head = fmt::format("  [{}] {} ({}): ", sev, f.value("layer", ""), f.value("id", ""));
    std::string follows =
        f.contains("consequence_of") && f["consequence_of"].is_string()
            ? fmt::format(" (Follows from the {} error.)", f["consequence_of"].get<std::string>())
            : "";
    out += wrap(head, f.value("message", "") + follows, 6);
    if (f.contains("confirmed_by"))
      out +=
          wrap("      ",
               fmt::format(fmt::runtime(f.contains("raised_by")
                                            ? "An error, not a warning: the message ({}) shows it happened."
                                            : "The message ({}) is this failure."),
                           f["confirmed_by"].get<std::string>()),
               6);
    auto fix = f.value("remediation", "");
    if (!fix.empty()) out += wrap("      Fix: ", fix, 6);
  }
  return out;
}

// The answer first: the layer to fix, what shows it, and the change to make.
std::string verdict_text(const Verdict& v) {
  if (v.layer.empty()) return "";
  std::string from = v.from == "facts"     ? "the diagnosis of the stated facts"
                     : v.from == "words"   ? "the words of the text (a guess)"
                     : v.from == "similar" ? "the reported failures most like the text"
                                           : "the message";
  std::string out = wrap("Answer: ", fmt::format("the {} layer, from {}.", v.layer, from), 2);
  out += wrap("  ", v.summary, 2);
  if (!v.fix.empty()) out += wrap("  Fix first: ", v.fix, 4);
  for (const auto& s : v.sources) out += wrap("  Source: ", s.url + " (" + s.section + ")", 4);
  return out + "\n";
}

std::string similar_text(const ExplainResult& r) {
  if (r.similar.empty()) return "";
  std::string out = "Reported failures like this one, and the fix each thread confirmed:\n";
  std::size_t n = 0;
  for (const auto& s : r.similar) {
    std::string shared;
    for (const auto& t : s.shared) shared += (shared.empty() ? "" : ", ") + t;
    out += wrap(
        fmt::format("  {}. ", ++n),
        fmt::format("{} (layer {}; {:.2f} similar, sharing {})", s.url, s.layer, s.similarity, shared), 5);
    out += wrap("     ", s.fix, 5);
  }
  return out + "\n";
}

}  // namespace

std::string render_text(const ExplainResult& r) {
  std::string out = verdict_text(r.verdict) + similar_text(r);
  if (r.explanations.empty() && !r.stated.empty()) {
    out += fmt::format("No known CUDA, driver, container or framework error message in {}.\n", r.input);
    return out + stated_text(r);
  }
  if (r.explanations.empty()) {
    out += fmt::format("No known CUDA, driver, container or framework error message in {}.\n", r.input);
    out += "Run `cudiag check` to check this machine's CUDA stack layer by layer.\n";
    // Nothing answered and nothing stated: a report from another machine can still be checked once
    // its facts are given, which is what the reporter can usually add.
    if (r.verdict.layer.empty())
      out +=
          "If the text comes from another machine, state what it runs and explain checks those layers:\n"
          "  --assume driver=VERSION --assume gpu=NAME --assume torch=VERSION+cuXYZ\n"
          "  (docs/assume.md lists every key, one example each).\n";
    return out;
  }
  std::size_t n = 0;
  for (const auto& e : r.explanations) {
    ++n;
    if (n > 1) out += "\n";
    out += wrap(fmt::format("{}. ", n), e.title, 3);
    std::string where = lines_text(e);
    if (e.occurrences > 1) where += fmt::format(" ({} times)", e.occurrences);
    out += wrap("   ", fmt::format("layer: {} · id: {}{}", e.layer, e.id, where.empty() ? "" : " · " + where),
                3);
    std::string shown = e.matched_text.size() > 200 ? e.matched_text.substr(0, 200) + "..." : e.matched_text;
    out += wrap("   Message: ", shown, 5);
    if (!e.environment)
      out += wrap("   ", "This is not an environment problem: the CUDA stack itself works.", 3);
    if (!e.notes.empty()) {
      out += "   In the message:\n";
      for (const auto& note : e.notes) out += wrap("     - ", note, 7);
    }
    out += "   What it means:\n";
    out += wrap("     ", e.meaning, 5);
    out += "   Likely causes, most likely first:\n";
    std::size_t k = 0;
    for (const auto& c : e.causes) out += wrap(fmt::format("     {}. ", ++k), c, 8);
    out += "   Checks that tell them apart:\n";
    for (const auto& c : e.checks) out += wrap("     - ", c, 7);
    if (!e.machine.empty()) {
      out += r.collected ? fmt::format("   On this machine ({}):\n", r.machine_source)
                         : fmt::format("   From {}:\n", r.machine_source);
      for (const auto& m : e.machine) out += wrap("     - ", m, 7);
    }
    if (!e.sources.empty()) {
      out += "   Sources:\n";
      for (const auto& s : e.sources) out += wrap("     - ", s.url + " (" + s.section + ")", 7);
    }
    if (e.confidence != kb::Confidence::kConfirmed && e.confidence != kb::Confidence::kSingleSource)
      out += fmt::format("   Confidence: {}\n", kb::to_string(e.confidence));
  }
  out += "\n";
  if (!r.stated.empty() || !r.skipped.empty()) {
    out += stated_text(r);
  } else if (r.report) {
    auto line = first_failing(*r.report);
    if (!line.empty()) out += wrap("", line, 0);
  } else {
    out += wrap("",
                "Without --no-collect (or with --report FILE) cudiag adds what this machine's report says "
                "about each message.",
                0);
  }
  return out;
}

Json render_json(const ExplainResult& r) {
  Json j = Json::object();
  j["schema"] = "cudiag.explain/1";
  j["input"] = {{"name", r.input}, {"lines", r.input_lines}};
  j["recognised"] = !r.explanations.empty();
  Json list = Json::array();
  for (const auto& e : r.explanations) {
    Json x = Json::object();
    x["id"] = e.id;
    x["matched_by"] = e.matched_by;
    x["layer"] = e.layer;
    x["title"] = e.title;
    x["environment_problem"] = e.environment;
    x["message"] = e.matched_text;
    x["lines"] = e.lines;
    x["occurrences"] = e.occurrences;
    Json values = Json::object();
    for (const auto& v : e.values) values[v.name] = v.text;
    x["values"] = values;
    x["notes"] = e.notes;
    Json errors = Json::array();
    for (const auto& er : e.errors)
      errors.push_back({{"api", er.api}, {"code", er.code}, {"name", er.name}, {"meaning", er.meaning}});
    x["errors"] = errors;
    x["meaning"] = e.meaning;
    x["causes"] = e.causes;
    x["checks"] = e.checks;
    x["machine"] = e.machine;
    x["sources"] = sources_json(e.sources);
    x["confidence"] = kb::to_string(e.confidence);
    list.push_back(std::move(x));
  }
  j["explanations"] = list;
  Json machine = Json::object();
  machine["source"] = r.machine_source.empty() ? Json() : Json(r.machine_source);
  if (r.report && r.report->contains("first_failing_layer"))
    machine["first_failing_layer"] = (*r.report)["first_failing_layer"];
  j["machine"] = machine;
  j["stated_facts"] = r.stated;
  j["skipped_facts"] = r.skipped;
  j["findings"] = r.findings;
  if (r.verdict.layer.empty()) {
    j["verdict"] = nullptr;
  } else {
    j["verdict"] = {{"layer", r.verdict.layer},
                    {"from", r.verdict.from},
                    {"id", r.verdict.id},
                    {"summary", r.verdict.summary},
                    {"fix", r.verdict.fix}};
    if (!r.verdict.sources.empty()) j["verdict"]["sources"] = sources_json(r.verdict.sources);
  }
  Json similar = Json::array();
  for (const auto& s : r.similar)
    similar.push_back({{"url", s.url},
                       {"layer", s.layer},
                       {"fix", s.fix},
                       {"similarity", std::round(s.similarity * 100) / 100},
                       {"shared_terms", s.shared}});
  j["similar_reports"] = similar;
  return j;
}

}  // namespace cudiag::explain
