#include "explain/similar_reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/errors.h"

namespace cudiag::explain {

namespace {

bool starts_term(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }
bool in_term(char c) { return starts_term(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }
char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string string_field(const Json& entry, const char* key, std::string_view where) {
  auto it = entry.find(key);
  if (it == entry.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
    throw InputError(fmt::format("{}: \"{}\" must be a non-empty string", where, key));
  return it->get<std::string>();
}

}  // namespace

std::vector<std::string> terms_of(std::string_view text) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;  // a log can hold many thousands of terms
  std::size_t i = 0;
  while (i < text.size()) {
    char c = ascii_lower(text[i]);
    if (!starts_term(c)) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < text.size() && in_term(ascii_lower(text[j]))) ++j;
    // A run shorter than three characters is no term, nor is any run inside it.
    if (j - i >= 3) {
      std::string term;
      for (std::size_t k = i; k < j; ++k) term += ascii_lower(text[k]);
      auto first = term.find_first_not_of(".-");
      auto last = term.find_last_not_of(".-");
      term = first == std::string::npos ? "" : term.substr(first, last - first + 1);
      if (term.size() >= 3 && seen.insert(term).second) out.push_back(std::move(term));
    }
    i = j;
  }
  return out;
}

namespace {

std::vector<ReportRecord> records_of(const Json& doc, std::string_view where) {
  auto entries = doc.find("entries");
  if (!doc.is_object() || entries == doc.end() || !entries->is_array())
    throw InputError(fmt::format("{}: missing \"entries\" (an array)", where));
  std::vector<ReportRecord> records;
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const Json& e = (*entries)[i];
    auto at = fmt::format("{}: entries[{}]", where, i);
    if (!e.is_object()) throw InputError(at + ": must be an object");
    records.push_back({string_field(e, "url", at), string_field(e, "layer", at), string_field(e, "fix", at),
                       string_field(e, "terms", at)});
  }
  return records;
}

}  // namespace

ReportIndex::ReportIndex(const Json& doc, std::string_view where) : ReportIndex(records_of(doc, where)) {}

ReportIndex::ReportIndex(std::vector<ReportRecord> records) {
  std::unordered_map<std::string, std::size_t> ids;
  std::vector<std::vector<std::size_t>> entry_terms;
  entries_.reserve(records.size());
  entry_terms.reserve(records.size());
  for (auto& record : records) {
    std::vector<std::size_t> term_ids;
    // The generator wrote terms_of's output, space-separated: splitting is enough.
    const std::string& terms = record.terms;
    for (std::size_t start = 0; start < terms.size();) {
      auto end = std::min(terms.find(' ', start), terms.size());
      std::string term = terms.substr(start, end - start);
      start = end + 1;
      if (term.empty()) continue;
      auto [it, added] = ids.emplace(term, vocabulary_.size());
      if (added) {
        vocabulary_.push_back(term);
        document_frequency_.push_back(0);
      }
      ++document_frequency_[it->second];
      term_ids.push_back(it->second);
    }
    entries_.push_back({std::move(record.url), std::move(record.layer), std::move(record.fix), {}});
    entry_terms.push_back(std::move(term_ids));
  }
  postings_.resize(vocabulary_.size());
  ids_.reserve(vocabulary_.size());
  for (std::size_t t = 0; t < vocabulary_.size(); ++t) ids_.emplace(vocabulary_[t], t);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    double norm = 0;
    for (auto t : entry_terms[i]) norm += weight(t) * weight(t);
    norm = std::sqrt(norm);
    for (auto t : entry_terms[i]) {
      double w = weight(t) / norm;
      entries_[i].terms.emplace_back(t, w);
      postings_[t].emplace_back(i, w);
    }
  }
}

double ReportIndex::weight(std::size_t term_id) const {
  // Inverse document frequency, plus one so that a term every report has still counts a little.
  auto n = static_cast<double>(entries_.size());
  return std::log(n / (1.0 + static_cast<double>(document_frequency_[term_id]))) + 1.0;
}

std::vector<SimilarReport> ReportIndex::nearest(std::string_view text, std::size_t k,
                                                std::string_view exclude_url) const {
  // The text's terms, weighted as the reports' are; a term no report has
  // weighs as the rarest, so that a text full of unknown words is like none.
  std::vector<std::pair<std::size_t, double>> query;
  double norm = 0;
  auto unknown = std::log(static_cast<double>(entries_.size())) + 1.0;
  for (const auto& term : terms_of(text)) {
    auto it = ids_.find(term);
    double w = it == ids_.end() ? unknown : weight(it->second);
    norm += w * w;
    if (it != ids_.end()) query.emplace_back(it->second, w);
  }
  if (query.empty()) return {};
  norm = std::sqrt(norm);
  std::map<std::size_t, double> scores;
  for (auto [t, w] : query)
    for (auto [entry, ew] : postings_[t]) scores[entry] += w / norm * ew;
  std::vector<std::pair<double, std::size_t>> ranked;
  for (auto [entry, s] : scores)
    if (exclude_url.empty() || entries_[entry].url != exclude_url) ranked.emplace_back(s, entry);
  // Most similar first; equal scores in index order, so the answer never depends on the map's order.
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (ranked.size() > k) ranked.resize(k);
  std::vector<SimilarReport> out;
  for (auto [s, i] : ranked) {
    const Entry& e = entries_[i];
    SimilarReport r{e.url, e.layer, e.fix, s, {}};
    std::vector<std::pair<double, std::size_t>> shared;
    for (const auto& term : query) {
      auto id = term.first;  // a structured binding cannot be captured before C++20's clang 16
      if (std::any_of(e.terms.begin(), e.terms.end(), [id](const auto& et) { return et.first == id; }))
        shared.emplace_back(term.second, id);
    }
    std::sort(shared.begin(), shared.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t n = 0; n < shared.size() && n < 5; ++n)
      r.shared.push_back(vocabulary_[shared[n].second]);
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<SimilarAnswer> answer_from_similar(const std::vector<SimilarReport>& nearest) {
  if (nearest.empty() || nearest.front().similarity < kMinShownSimilarity) return std::nullopt;
  std::map<std::string, double> votes;
  for (std::size_t i = 0; i < nearest.size() && i < kSimilarVoters; ++i)
    votes[nearest[i].layer] += nearest[i].similarity;
  auto best = std::max_element(votes.begin(), votes.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  SimilarAnswer a;
  a.layer = best->first;
  for (std::size_t i = 0; i < nearest.size() && i < kSimilarVoters; ++i) {
    if (nearest[i].layer != a.layer) continue;
    if (!a.report) a.report = &nearest[i];
    ++a.agreeing;
  }
  return a;
}

}  // namespace cudiag::explain
