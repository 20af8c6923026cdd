// libFuzzer target: explain's word guess (src/explain/triage.cpp), its
// comparison with reported failures (src/explain/similar_reports.cpp) and the
// reader of the facts a text states (src/explain/pasted_facts.cpp) over any
// pasted text, with the built-in triage_terms table and report index. Whatever
// the bytes, the guess's lines lie in the text, or there is none; the terms
// are well formed; the nearest reports are at most k, most similar first, each
// sharing a term, and never more than identical; each fact has a key, a value
// and a line of the text. fuzz/run.sh runs from the repository root, where the
// tables are.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include "core/json.h"
#include "explain/pasted_facts.h"
#include "explain/similar_reports.h"
#include "explain/triage.h"

namespace {

const cudiag::Json& table() {
  static const cudiag::Json t = [] {
    std::ifstream in("data/kb/triage_terms.json");
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = cudiag::Json::parse(text.str(), nullptr, false);
    if (parsed.is_discarded() || !parsed.contains("entries")) std::abort();  // run from the repository root
    return parsed;
  }();
  return t;
}

const cudiag::explain::ReportIndex& reports() {
  static const cudiag::explain::ReportIndex* index = [] {
    std::ifstream in("data/reported/reported_failures.json");
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = cudiag::Json::parse(text.str(), nullptr, false);
    if (parsed.is_discarded()) std::abort();  // run from the repository root
    return new cudiag::explain::ReportIndex(parsed, "data/reported/reported_failures.json");
  }();
  return *index;
}

void check_similar(std::string_view text) {
  for (const auto& term : cudiag::explain::terms_of(text)) {
    if (term.size() < 3 || term.front() == '.' || term.front() == '-' || term.back() == '.' ||
        term.back() == '-')
      std::abort();
  }
  auto near = reports().nearest(text, 5);
  if (near.size() > 5) std::abort();
  for (std::size_t i = 0; i < near.size(); ++i) {
    if (near[i].shared.empty() || !(near[i].similarity > 0) || near[i].similarity > 1.000001) std::abort();
    if (i > 0 && near[i].similarity > near[i - 1].similarity) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto guess = cudiag::explain::guess_from_words(text, table());
  if (guess) {
    std::size_t lines = 1;
    for (char c : text) lines += c == '\n' ? 1 : 0;
    if (guess->term_line == 0 || guess->term_line > lines || guess->symptom_line == 0 ||
        guess->symptom_line > lines || guess->layer.empty())
      std::abort();
  }
  check_similar(text);
  std::size_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  for (const auto& f : cudiag::explain::read_pasted_facts(text)) {
    if (f.key.empty() || f.value.empty() || f.line == 0 || f.line > lines) std::abort();
  }
  return 0;
}
