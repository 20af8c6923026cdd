#pragma once
// Real failures reported in public threads that a text resembles, each with
// the fix its thread confirmed (data/reported/reported_failures.json, made
// from the explain corpora by scripts/gen_reported_failures.py). A text and a
// report are compared by their terms (terms_of), each weighted by how rare it
// is among the reports, as the cosine of the two weight vectors: a shared
// "cudnn_ops_infer64_8.dll" counts, a shared "error" hardly does.
// Why: most failures people report are long-tail messages no signature will
// ever name, yet the same failure has usually been reported, and fixed, before.
// Pure: text in, reports out; the built-in index is parsed once, on first use.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/json.h"

namespace cudiag::explain {

struct SimilarReport {
  std::string url;
  std::string layer;  // the layer the thread's fix changed
  std::string fix;    // what fixed it, in one or two sentences
  double similarity = 0;
  std::vector<std::string> shared;  // the shared terms, rarest first (at most five)
};

// The distinct terms of `text` in first-seen order: runs of [a-z0-9_.-]
// (ASCII, lower-cased) that start with a letter or '_', '.' and '-' trimmed
// from both ends, three characters or more. scripts/gen_reported_failures.py
// computes the same for the index.
std::vector<std::string> terms_of(std::string_view text);

// One entry of the index as the generator wrote it.
struct ReportRecord {
  std::string url, layer, fix;
  std::string terms;  // terms_of(the reported text), space-separated
};

class ReportIndex {
 public:
  explicit ReportIndex(std::vector<ReportRecord> records);
  // `doc`: {"entries": [{"url", "layer", "fix", "terms"}]}. Throws InputError
  // naming `where` for a malformed document.
  ReportIndex(const Json& doc, std::string_view where);
  // data/reported/reported_failures.json, parsed with simdjson: nlohmann's
  // parser took ~10 ms of explain's ~60 for the 600 KB file, simdjson ~1.
  // The portable build, which cannot link simdjson, uses nlohmann.
  static const ReportIndex& builtin();
  // Not copyable: ids_ views the strings of vocabulary_.
  ReportIndex(const ReportIndex&) = delete;
  ReportIndex& operator=(const ReportIndex&) = delete;

  // The `k` reports most like `text`, most similar first, sharing at least one
  // term; reports of `exclude_url` left out (the corpora score each case
  // without its own thread).
  std::vector<SimilarReport> nearest(std::string_view text, std::size_t k,
                                     std::string_view exclude_url = {}) const;
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string url, layer, fix;
    std::vector<std::pair<std::size_t, double>> terms;  // term id, normalised weight
  };
  double weight(std::size_t term_id) const;
  std::vector<Entry> entries_;
  std::vector<std::string> vocabulary_;
  std::unordered_map<std::string_view, std::size_t> ids_;  // term -> id, into vocabulary_
  std::vector<std::size_t> document_frequency_;
  std::vector<std::vector<std::pair<std::size_t, double>>> postings_;  // term id -> (entry, weight)
};

// The layer the nearest reports point at, when they are near enough to answer
// for a text nothing else explains: the layer with the largest summed
// similarity among `nearest`, the most similar report of that layer, and
// nullopt when the most similar report is below the threshold.
struct SimilarAnswer {
  std::string layer;
  const SimilarReport* report = nullptr;  // the most similar report of `layer`
  int agreeing = 0;                       // reports of `nearest` with that layer
};
std::optional<SimilarAnswer> answer_from_similar(const std::vector<SimilarReport>& nearest);

// The similarity below which a report is not shown, nor answers.
inline constexpr double kMinShownSimilarity = 0.25;
// How many of the nearest reports vote on the layer, and how many explain shows.
inline constexpr std::size_t kSimilarVoters = 5;
inline constexpr std::size_t kSimilarShown = 3;

}  // namespace cudiag::explain
