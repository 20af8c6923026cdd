#include "explain/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "explain/captures.h"
#include "explain/matcher.h"
#include "explain/program_mentions.h"
#include "explain/triage.h"
#include "explain/wrapped_lines.h"

namespace cudiag::explain {

namespace {

// Typographic quotes (a forum's editor, a word processor, a translated page) read as the ASCII ones
// every message is printed with: `could not select device driver “” with capabilities: [[gpu]]`.
std::string straighten_quotes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i + 2 < text.size() && static_cast<unsigned char>(text[i]) == 0xE2 &&
        static_cast<unsigned char>(text[i + 1]) == 0x80) {
      auto third = static_cast<unsigned char>(text[i + 2]);
      if (third == 0x9C || third == 0x9D || third == 0x9E) {  // “ ” „
        out += '"';
        i += 2;
        continue;
      }
      if (third == 0x98 || third == 0x99) {  // ‘ ’
        out += '\'';
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

// What a sentence says in place of a value the message did not give: an extension whose path was cut
// off is still "the extension".
std::string missing_value(const std::string& name) {
  if (name.ends_with("_package")) return "the extension's package";
  if (name.ends_with("_module")) return "its module";
  return "(not in the message)";
}

std::string substitute(const std::string& text, const std::vector<Value>& values) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto open = text.find('{', pos);
    auto close = open == std::string::npos ? std::string::npos : text.find('}', open);
    if (close == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, open - pos);
    std::string name = text.substr(open + 1, close - open - 1);
    auto it = std::find_if(values.begin(), values.end(), [&](const Value& v) { return v.name == name; });
    out += it != values.end() ? it->text : missing_value(name);
    pos = close + 1;
  }
  return out;
}

const Signature* signature_for_errors(const std::vector<Signature>& sigs,
                                      const std::vector<ResolvedError>& errors) {
  for (const auto& e : errors) {
    for (const auto& s : sigs) {
      if (s.generic) continue;
      for (const auto& ref : s.errors) {
        if (ref.api == e.api && ref.code == e.code) return &s;
      }
    }
  }
  return nullptr;
}

// How far back a signature's `preceded_by` words are looked for: a Python
// traceback's last frames, each line cut to its start.
constexpr std::size_t kBeforeLines = 8;
constexpr std::size_t kBeforeLineBytes = 400;

struct Candidate {
  std::string key;
  Explanation explanation;
};

// The library names of a match's soname captures ("cudart" for libcudart.so.11.0), read with the
// captures of the signature whose regex made the match.
std::vector<std::string> soname_bases(const Signature& matched, const RawMatch& m) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < matched.captures.size() && i < m.groups.size(); ++i) {
    if (m.matched[i] && matched.captures[i].kind == CaptureKind::kSoname)
      out.push_back(soname_base(ascii_lower(m.groups[i])));
  }
  return out;
}

// The whole text as context words are looked up in it. Each word's answer is computed once per text (a long
// log with thousands of matches asks the same words again and again), and a word of several words is also
// found across a wrapped line: in a copy with each run of whitespace read as one space, made only when such
// a word is not found as it stands.
class ContextText {
 public:
  explicit ContextText(std::string_view text_lower) : text_(text_lower) {}
  bool has(const std::string& word) {
    auto it = known_.find(word);
    if (it == known_.end()) it = known_.emplace(word, look_up(word)).first;
    return it->second;
  }

 private:
  bool look_up(const std::string& word) {
    if (text_.find(word) != std::string_view::npos) return true;
    if (word.find(' ') == std::string::npos) return false;
    if (!collapsed_) {
      collapsed_.emplace();
      bool space = false;
      for (char ch : text_) {
        bool ws = ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r';
        if (ws && space) continue;
        collapsed_->push_back(ws ? ' ' : ch);
        space = ws;
      }
    }
    return collapsed_->find(word) != std::string::npos;
  }

  std::string_view text_;
  std::optional<std::string> collapsed_;
  std::map<std::string, bool> known_;
};

// The signature's first context whose words the text has and whose libraries (if any) the match names.
const ContextLayer* context_layer(const Signature& s, const std::vector<std::string>& libraries,
                                  ContextText& text) {
  for (const auto& cl : s.context_layers) {
    bool in_text =
        std::any_of(cl.words.begin(), cl.words.end(), [&](const std::string& w) { return text.has(w); });
    if (!in_text) continue;
    if (cl.libraries.empty()) return &cl;
    for (const auto& lib : libraries) {
      if (std::find(cl.libraries.begin(), cl.libraries.end(), lib) != cl.libraries.end()) return &cl;
    }
  }
  return nullptr;
}

// The programs the text names, found the first time a signature with a program_cause matches.
class LazyProgramMentions {
 public:
  LazyProgramMentions(std::string_view text_lower, const kb::KnowledgeBase& kb)
      : text_(text_lower), kb_(kb) {}
  std::optional<std::string> nearest(std::size_t line) {
    if (!found_) found_.emplace(text_, program_names(kb_));
    return found_->nearest(line);
  }

 private:
  std::string_view text_;
  const kb::KnowledgeBase& kb_;
  std::optional<ProgramMentions> found_;
};

std::optional<Candidate> build(const RawMatch& m, const std::string& line_lower, ContextText& context_text,
                               std::size_t line_no, LazyProgramMentions& programs,
                               const std::vector<Signature>& sigs, const kb::KnowledgeBase& kb) {
  const Signature& matched = *m.sig;
  Resolved r;
  for (std::size_t i = 0; i < matched.captures.size() && i < m.groups.size(); ++i) {
    if (m.matched[i]) add_value(r, matched.captures[i].name, m.groups[i]);
  }
  for (std::size_t i = 0; i < matched.captures.size() && i < m.groups.size(); ++i) {
    if (m.matched[i]) resolve_capture(r, matched.captures[i], m.groups[i], line_lower, kb);
  }
  const Signature* explaining = &matched;
  const auto libraries = soname_bases(matched, m);
  std::string key;
  std::string layer = matched.layer;
  if (matched.generic) {
    if (r.errors.empty()) return std::nullopt;  // a number or name no API defines: not recognised
    if (const auto* specific = signature_for_errors(sigs, r.errors)) {
      explaining = specific;
      layer = specific->layer;
      key = specific->id;
    } else {
      layer = r.errors.front().layer.empty() ? api_layer(r.errors.front().api) : r.errors.front().layer;
      key = matched.id;
      for (const auto& e : r.errors) key += fmt::format("|{}:{}", e.api, e.code);
    }
  } else {
    if (!matched.explained_by.empty()) {
      auto target = std::find_if(sigs.begin(), sigs.end(),
                                 [&](const Signature& s) { return s.id == matched.explained_by; });
      if (target != sigs.end()) explaining = &*target;
    }
    key = explaining->id;
    for (const auto& v : r.values) key += "|" + v.name + "=" + v.text;
    for (const auto& ref : matched.errors) {
      if (const auto* e = kb.error(ref.api, ref.code)) r.errors.push_back(from_kb(*e));
    }
    for (const auto& lib : libraries) {
      auto it = matched.layer_for_library.find(lib);
      if (it != matched.layer_for_library.end()) layer = it->second;
    }
  }
  const ContextLayer* context = context_layer(*explaining, libraries, context_text);
  if (context) layer = context->layer;
  // Generic matches resolved to a specific signature keep their own notes
  // (what the number or name is) but the specific text explains.
  Explanation e;
  e.id = explaining->id;
  e.matched_by = matched.id;
  e.layer = layer;
  e.title = substitute(explaining->title, r.values);
  e.meaning = substitute(explaining->meaning, r.values);
  // A program the message itself names (an extension's path) is surer than one named nearby.
  bool names_package = std::any_of(r.values.begin(), r.values.end(),
                                   [](const Value& v) { return v.name.ends_with("_package"); });
  auto with_program = [&](const std::string& cause) -> std::optional<std::string> {
    if (cause.empty() || names_package) return std::nullopt;
    auto program = programs.nearest(line_no);
    if (!program) return std::nullopt;
    Resolved named = r;
    add_value(named, "program", *program);
    return substitute(cause, named.values);
  };
  // A context's cause; its wording with the program's name when the text names one.
  if (context) {
    if (auto named = with_program(context->program_cause)) {
      e.causes.push_back(*named);
    } else if (!context->cause.empty()) {
      e.causes.push_back(substitute(context->cause, r.values));
    }
  }
  if (auto named = with_program(explaining->program_cause)) e.causes.push_back(*named);
  // A capture's value that decides which cause comes first (a build's list older than the GPU).
  for (const auto& vc : explaining->value_causes) {
    if (value_of(r, vc.value) != vc.equals) continue;
    e.causes.push_back(substitute(vc.cause, r.values));
    break;
  }
  for (const auto& c : explaining->causes) {
    auto t = substitute(c, r.values);
    if (!t.empty()) e.causes.push_back(std::move(t));
  }
  for (const auto& c : explaining->checks) e.checks.push_back(substitute(c, r.values));
  e.environment = explaining->environment;
  e.symptom = explaining->symptom;
  e.before_kernels = explaining->before_kernels;
  // A bare NCCL result name (ncclInternalError, ncclSystemError) wraps the detail NCCL prints after it
  // ("Last error: ..."), so it gives way to that line as a wrapper does.
  bool nccl_result = matched.generic && std::any_of(r.errors.begin(), r.errors.end(),
                                                    [](const auto& err) { return err.api == "nccl"; });
  e.defers = matched.defers || explaining->defers || nccl_result;
  e.priority = explaining->priority;
  e.generic = matched.generic;
  e.values = std::move(r.values);
  e.notes = std::move(r.notes);
  e.errors = std::move(r.errors);
  e.matched_text = m.text;
  e.sources = explaining->provenance.sources;
  e.confidence = explaining->provenance.confidence;
  return Candidate{std::move(key), std::move(e)};
}

void merge_into(Explanation& into, Explanation&& from) {
  // Show the message in its own words rather than a bare number found first.
  if (into.matched_by != into.id && from.matched_by == from.id) {
    into.matched_by = from.matched_by;
    into.matched_text = from.matched_text;
  }
  // A later line that gives values the first did not ("Package cudatoolkit conflicts for:" before the
  // line naming the version) says the message better: its texts, with those values filled, are shown.
  if (from.values.size() > into.values.size()) {
    into.title = from.title;
    into.meaning = from.meaning;
    into.causes = from.causes;
    into.checks = from.checks;
  }
  for (auto& v : from.values) {
    bool have =
        std::any_of(into.values.begin(), into.values.end(), [&](const Value& x) { return x.name == v.name; });
    if (!have) into.values.push_back(std::move(v));
  }
  for (auto& n : from.notes) {
    if (std::find(into.notes.begin(), into.notes.end(), n) == into.notes.end())
      into.notes.push_back(std::move(n));
  }
  for (auto& er : from.errors) {
    bool have = std::any_of(into.errors.begin(), into.errors.end(),
                            [&](const ResolvedError& x) { return x.api == er.api && x.code == er.code; });
    if (!have) into.errors.push_back(std::move(er));
  }
}

}  // namespace

std::vector<Explanation> explain_text(std::string_view pasted, const kb::KnowledgeBase& kb,
                                      const ExplainOptions& options) {
  const std::string straight = straighten_quotes(pasted);
  const std::string_view text = straight;
  const auto& sigs = signatures(kb);
  std::vector<Explanation> out;
  std::map<std::string, std::size_t> by_key;
  // The whole text, lower-cased, for signatures whose layer depends on the setting it shows.
  const std::string text_lower = ascii_lower(std::string(text));
  // The last few lines, lower-cased, for signatures that need a traceback's frame before the error.
  std::deque<std::string> before;
  const AnchorIndex& index = signature_anchor_index(kb);
  LazyProgramMentions programs(text_lower, kb);
  ContextText context_text(text_lower);
  for (const auto& logical : logical_lines(text, sigs, options.require_context, &index)) {
    std::string_view line = logical.text;
    std::size_t line_no = logical.first;
    if (!line.empty()) {
      std::string line_lower = ascii_lower(std::string(line));
      std::string before_lower;
      for (const auto& b : before) before_lower += b + "\n";
      before.push_back(line_lower.substr(0, kBeforeLineBytes));
      if (before.size() > kBeforeLines) before.pop_front();
      for (const auto& m : match_line(line, sigs, options.require_context, before_lower, &index)) {
        auto c = build(m, line_lower, context_text, line_no, programs, sigs, kb);
        for (std::size_t f = 0; !c && f < m.fallbacks.size(); ++f)
          c = build(m.fallbacks[f], line_lower, context_text, line_no, programs, sigs, kb);
        if (!c) continue;
        auto it = by_key.find(c->key);
        if (it == by_key.end()) {
          c->explanation.lines.push_back(line_no);
          c->explanation.occurrences = 1;
          by_key.emplace(c->key, out.size());
          out.push_back(std::move(c->explanation));
        } else {
          // Two matches on one line (an error name next to its number) are one occurrence.
          auto& e = out[it->second];
          if (e.lines.empty() || e.lines.back() != line_no) {
            e.lines.push_back(line_no);
            ++e.occurrences;
          }
          merge_into(e, std::move(c->explanation));
        }
      }
    }
  }
  // The first specific message answers first, whatever its line: bare error codes and names say
  // less than it ("make: *** Error 4" before the DKMS failure), and wrappers and symptoms in words
  // less still.
  auto specific =
      std::find_if(out.begin(), out.end(), [](const Explanation& e) { return !e.defers && !e.generic; });
  if (specific != out.end()) {
    auto rank = [](const Explanation& e) { return e.defers ? 2 : (e.generic ? 1 : 0); };
    std::stable_sort(out.begin(), specific + 1,
                     [&](const Explanation& a, const Explanation& b) { return rank(a) < rank(b); });
  } else {
    // Only wrappers and symptoms: among those that defer, a tool's message ("No devices were found")
    // says more than the reporter's words before it ("both GPUs not found"), which the table ranks
    // lower. They trade places among themselves; the others keep theirs.
    std::vector<std::size_t> at;
    std::vector<Explanation> deferring;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (!out[i].defers) continue;
      at.push_back(i);
      deferring.push_back(std::move(out[i]));
    }
    std::stable_sort(deferring.begin(), deferring.end(),
                     [](const Explanation& a, const Explanation& b) { return a.priority > b.priority; });
    for (std::size_t k = 0; k < at.size(); ++k) out[at[k]] = std::move(deferring[k]);
  }
  if (!out.empty() && names_component(text, kb.raw("triage_terms"), "container")) {
    for (auto& e : out) e.in_container = true;
  }
  return out;
}

std::string value_of(const Explanation& e, std::string_view name) {
  for (const auto& v : e.values) {
    if (v.name == name) return v.text;
  }
  return "";
}

}  // namespace cudiag::explain
