#include "explain/triage.h"

#include <cctype>
#include <regex>
#include <utility>

#include "kb/reader.h"

namespace cudiag::explain {

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether line[pos, end) is a directory in the path of a C, C++ or CUDA source file: in
// ".../cuda/containers/../convenience.cuh:68" it names how the program's code is organised, not a
// container on the machine (as "/var/lib/docker/overlay2/.../libnvidia-ml.so.1" names Docker).
// Python's keep counting: in ".../site-packages/torch/nn/modules/module.py" it is the package that ran.
bool directory_of_source_file(std::string_view line, std::size_t pos, std::size_t end) {
  if (pos == 0 || line[pos - 1] != '/' || end >= line.size() || line[end] != '/') return false;
  auto stop = line.find_first_of(" \t\"'`,;()[]<>", end);
  std::string_view rest =
      line.substr(end, stop == std::string_view::npos ? std::string_view::npos : stop - end);
  auto colon = rest.find(':');  // "file.cu:68"
  if (colon != std::string_view::npos) rest = rest.substr(0, colon);
  auto dot = rest.rfind('.');
  if (dot == std::string_view::npos || rest.find('/', dot) != std::string_view::npos) return false;
  static constexpr std::string_view kSourceExtensions[] = {".c",   ".cc", ".cpp", ".cxx", ".cu",
                                                           ".cuh", ".h",  ".hh",  ".hpp", ".inl"};
  std::string_view ext = rest.substr(dot);
  for (auto e : kSourceExtensions)
    if (ext == e) return true;
  return false;
}

struct Symptom {
  std::string id;
  std::vector<std::string> terms;
  bool generic = false;  // general failure words: count only where no specific ones name a component
};

// The first of `terms` found in `line`, without its '*' ends, or "".
std::string first_term(std::string_view line, const std::vector<std::string>& terms) {
  for (const auto& t : terms) {
    if (has_term(line, t)) {
      // One '*' at each end is the wildcard (as has_term reads it); more are literal ("make: ***").
      std::string_view bare = t;
      if (!bare.empty() && bare.front() == '*') bare.remove_prefix(1);
      if (bare.size() > 1 && bare.back() == '*') bare.remove_suffix(1);
      return std::string(bare);
    }
  }
  return "";
}

// A string field, or "" when it is missing or not a string (a --kb table is input).
std::string text_of(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<std::string> strings_of(const Json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) return out;
  for (const auto& v : value)
    if (v.is_string() && !v.get_ref<const std::string&>().empty()) out.push_back(v.get<std::string>());
  return out;
}

// Lower-case with runs of blanks made one space: reporters' tables and
// pasted columns pad words apart ("Num GPUs Available:  0").
std::string normalized(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  bool blank = false;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\r') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// A shell prompt before a pasted command ("root@autodl-container-64eb:~/x# python ...", "(venv) me@box:~$ ")
// names the machine, not a component: its hostname is no word of the report.
std::string without_shell_prompt(std::string line) {
  const auto at = line.find('@');
  if (at == std::string::npos || at > 140 || line.find(':', at) == std::string::npos)
    return line;  // the usual case
  static const std::regex prompt(R"(^(?:\([^)\s]{1,60}\) )?[\w.-]{1,64}@[\w.-]{1,128}:[^\s$#]{0,200}[$#] ?)");
  return std::regex_replace(line, prompt, "", std::regex_constants::format_first_only);
}

// Every line of `text`, normalized, without a shell prompt.
std::vector<std::string> normalized_lines(std::string_view text) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= text.size();) {
    auto nl = text.find('\n', start);
    auto end = nl == std::string_view::npos ? text.size() : nl;
    lines.push_back(without_shell_prompt(normalized(text.substr(start, end - start))));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}

struct LineHit {
  std::size_t line = 0;  // 0-based
  std::size_t symptom = 0;
  std::string term;
};

struct ComponentHit {
  std::size_t line = 0;
  std::size_t entry = 0;  // index in entries: the earlier, the earlier its layer
  std::string term;
};

}  // namespace

bool has_term(std::string_view line, std::string_view term) {
  bool open_start = !term.empty() && term.front() == '*';
  bool open_end = term.size() > 1 && term.back() == '*';
  if (open_start) term.remove_prefix(1);
  if (open_end) term.remove_suffix(1);
  if (term.empty()) return false;
  for (auto pos = line.find(term); pos != std::string_view::npos; pos = line.find(term, pos + 1)) {
    bool start_ok = open_start || !is_word_char(term.front()) || pos == 0 || !is_word_char(line[pos - 1]);
    auto end = pos + term.size();
    bool end_ok = open_end || !is_word_char(term.back()) || end == line.size() || !is_word_char(line[end]);
    if (start_ok && end_ok && !directory_of_source_file(line, pos, end)) return true;
  }
  return false;
}

bool names_component(std::string_view text, const Json& table, std::string_view id) {
  if (!table.is_object() || !table.contains("entries") || !table["entries"].is_array()) return false;
  for (const auto& e : table["entries"]) {
    if (!e.is_object() || text_of(e, "id") != id) continue;
    auto terms = strings_of(e.value("terms", Json::array()));
    for (const auto& line : normalized_lines(text)) {
      if (!first_term(line, terms).empty()) return true;
    }
  }
  return false;
}

bool states_failure(std::string_view text, const Json& table) {
  if (!table.is_object() || !table.contains("symptoms") || !table["symptoms"].is_object()) return false;
  std::vector<std::string> terms;
  for (const auto& [id, s] : table["symptoms"].items()) {
    if (!s.is_object()) continue;
    for (auto& t : strings_of(s.value("terms", Json::array()))) terms.push_back(std::move(t));
  }
  for (const auto& line : normalized_lines(text)) {
    if (!first_term(line, terms).empty()) return true;
  }
  return false;
}

std::optional<WordGuess> guess_from_words(std::string_view text, const Json& table) {
  if (!table.is_object() || !table.contains("entries") || !table.contains("symptoms") ||
      !table["entries"].is_array() || !table["symptoms"].is_object())
    return std::nullopt;
  // A malformed entry or symptom (a --kb table is input) has no terms, so it never matches.
  auto terms_of = [](const Json& j) {
    return j.is_object() ? strings_of(j.value("terms", Json::array())) : std::vector<std::string>{};
  };
  std::vector<std::vector<std::string>> components;  // each entry's terms, in the entries' order
  for (const auto& e : table["entries"]) components.push_back(terms_of(e));
  std::vector<Symptom> symptoms;
  for (const auto& [id, s] : table["symptoms"].items()) {
    bool generic =
        s.is_object() && s.contains("generic") && s["generic"].is_boolean() && s["generic"].get<bool>();
    symptoms.push_back({id, terms_of(s), generic});
  }

  const std::vector<std::string> lines = normalized_lines(text);

  // Per line, the component of the earliest layer it names (entries are in layer order).
  std::vector<std::optional<ComponentHit>> named(lines.size());
  bool any_named = false;
  std::vector<LineHit> specific;
  std::vector<LineHit> general;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    for (std::size_t k = 0; k < components.size() && !named[i]; ++k) {
      auto t = first_term(lines[i], components[k]);
      if (!t.empty()) named[i] = ComponentHit{i, k, t};
    }
    any_named = any_named || named[i].has_value();
    // A line's specific words count before its general ones; one hit per line and kind.
    bool have_specific = false;
    bool have_general = false;
    for (std::size_t s = 0; s < symptoms.size(); ++s) {
      bool& have = symptoms[s].generic ? have_general : have_specific;
      if (have) continue;
      auto t = first_term(lines[i], symptoms[s].terms);
      if (t.empty()) continue;
      (symptoms[s].generic ? general : specific).push_back({i, s, t});
      have = true;
    }
  }
  if (!any_named) return std::nullopt;

  // The component a failure on `line` points at: within `window` lines the one of the earliest
  // layer; with no window (kAnywhere) the nearest named line, an earlier one on a tie (a report
  // names what it runs, then pastes the failure a few lines down).
  constexpr std::size_t kAnywhere = static_cast<std::size_t>(-1);
  auto component_near = [&](std::size_t line, std::size_t window) -> const ComponentHit* {
    const ComponentHit* best = nullptr;
    if (window == kAnywhere) {
      std::size_t best_distance = kAnywhere;
      for (std::size_t l = 0; l < named.size(); ++l) {
        if (!named[l]) continue;
        auto distance = l > line ? l - line : line - l;
        if (distance < best_distance) best = &*named[l], best_distance = distance;
      }
      return best;
    }
    auto first = line >= window ? line - window : 0;
    for (auto l = first; l <= line + window && l < named.size(); ++l) {
      if (named[l] && (!best || named[l]->entry < best->entry)) best = &*named[l];
    }
    return best;
  };

  // The last failure line first (a traceback ends with its cause); specific words before general
  // ones; the line itself before the lines beside it, and those before the nearest line anywhere
  // that names a component.
  const std::pair<const std::vector<LineHit>*, std::size_t> passes[] = {
      {&specific, 0}, {&specific, 1},         {&general, 0},
      {&general, 1},  {&specific, kAnywhere}, {&general, kAnywhere}};
  for (const auto& [hits, window] : passes) {
    for (auto it = hits->rbegin(); it != hits->rend(); ++it) {
      const ComponentHit* best = component_near(it->line, window);
      if (!best || text_of(table["entries"][best->entry], "layer").empty()) continue;
      const Json& e = table["entries"][best->entry];
      const Json& s = table["symptoms"][symptoms[it->symptom].id];
      WordGuess g;
      g.component = text_of(e, "id");
      g.layer = text_of(e, "layer");
      g.what = text_of(e, "what");
      g.fix = text_of(e, "fix");
      g.term = best->term;
      g.term_line = best->line + 1;
      g.symptom = text_of(s, "what");
      g.symptom_term = it->term;
      g.symptom_line = it->line + 1;
      for (const auto& id : strings_of(e.value("source", Json::array()))) {
        if (table.contains("sources") && table["sources"].contains(id))
          g.sources.push_back(kb::parse_source(table["sources"][id], "triage_terms: sources." + id));
      }
      return g;
    }
  }
  return std::nullopt;
}

}  // namespace cudiag::explain
