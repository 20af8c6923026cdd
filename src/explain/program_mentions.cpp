#include "explain/program_mentions.h"

#include <algorithm>
#include <set>

#include "explain/captures.h"

namespace cudiag::explain {
namespace {

constexpr const char* kTable = "error_signatures";

bool word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

char fold(char c) { return c == '_' ? '-' : c; }

std::string folded(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), fold);
  return out;
}

}  // namespace

std::vector<ProgramName> program_names(const kb::KnowledgeBase& kb) {
  const Json& doc = kb.raw(kTable);
  std::set<std::string> seen;
  std::vector<ProgramName> out;
  auto take = [&](const std::string& search, const Json& shown) {
    auto name = ascii_lower(search);
    if (name.empty() || name == "torch" || name == "pytorch" || !shown.is_string()) return;
    if (seen.insert(name).second) out.push_back({name, shown.get<std::string>()});
  };
  if (auto p = doc.find("programs"); p != doc.end() && p->is_object()) {
    for (const auto& [search, shown] : p->items()) take(search, shown);
  }
  if (auto m = doc.find("extension_packages"); m != doc.end() && m->is_object()) {
    for (const auto& [module, dist] : m->items()) {
      if (dist.is_string()) take(dist.get<std::string>(), dist);
    }
  }
  return out;
}

ProgramMentions::ProgramMentions(std::string_view text_lower, const std::vector<ProgramName>& names) {
  const std::string text = folded(text_lower);
  std::vector<std::size_t> line_starts = {0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts.push_back(i + 1);
  }
  for (const auto& program : names) {
    const std::string name = folded(program.search);
    for (auto pos = text.find(name); pos != std::string::npos; pos = text.find(name, pos + 1)) {
      const auto end = pos + name.size();
      if ((pos > 0 && word_char(text[pos - 1])) || (end < text.size() && word_char(text[end]))) continue;
      const auto line = static_cast<std::size_t>(
          std::upper_bound(line_starts.begin(), line_starts.end(), pos) - line_starts.begin());
      mentions_.emplace_back(line, program.shown);
    }
  }
  std::sort(mentions_.begin(), mentions_.end());
}

std::optional<std::string> ProgramMentions::nearest(std::size_t line) const {
  const std::pair<std::size_t, std::string>* best = nullptr;
  std::size_t best_distance = 0;
  for (const auto& m : mentions_) {
    const auto distance = m.first > line ? m.first - line : line - m.first;
    if (!best || distance < best_distance) best = &m, best_distance = distance;
  }
  if (!best) return std::nullopt;
  return best->second;
}

}  // namespace cudiag::explain
