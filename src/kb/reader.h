#pragma once
// Typed access to the fields of one knowledge-base entry. Every failure is an
// InputError naming the file, the entry and the field, e.g.
//   data/kb/gpus.json: entries[3] (0x2684): cc: expected a version string
// so a broken --kb file says exactly what to fix.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/version.h"
#include "kb/records.h"

namespace cudiag::kb {

// What every entry of one file shares: where it came from and its header.
struct TableContext {
  std::string file;   // for messages
  std::string table;  // "gpus"
  const Json* doc = nullptr;
  std::map<std::string, Source, std::less<>> sources;  // the file's "sources" by id
  Confidence default_confidence = Confidence::kConfirmed;
};

class EntryReader {
 public:
  EntryReader(const TableContext& table, const Json& entry, std::string where);

  [[noreturn]] void fail(std::string_view what) const;
  const Json& json() const { return entry_; }
  const std::string& where() const { return where_; }
  // Appends "(key)" to the entry's name in later messages once its key is known.
  void name_entry(std::string_view key) { where_ += " (" + std::string(key) + ")"; }

  bool has(std::string_view key) const;
  std::string str(std::string_view key) const;  // required, non-empty
  std::string str_or(std::string_view key, std::string fallback) const;
  Version version(std::string_view key) const;
  std::optional<Version> opt_version(std::string_view key) const;
  long integer(std::string_view key) const;
  std::optional<long> opt_integer(std::string_view key) const;
  bool boolean_or(std::string_view key, bool fallback) const;
  std::vector<std::string> strings(std::string_view key) const;  // absent: empty
  std::vector<long> integers(std::string_view key) const;        // absent: empty
  std::vector<Version> versions(std::string_view key) const;     // absent: empty
  std::optional<Confidence> opt_confidence(std::string_view key) const;
  // A nested object (absent: nullopt); its reader reports "<where>.<key>".
  std::optional<EntryReader> object(std::string_view key) const;
  // The elements of a nested array of objects (absent: empty).
  std::vector<EntryReader> objects(std::string_view key) const;

  // "source" (required unless `inherit` is given), "confidence", "note".
  Provenance provenance(const Provenance* inherit = nullptr) const;

 private:
  const Json* get(std::string_view key) const;
  const TableContext& table_;
  const Json& entry_;
  std::string where_;
};

// Resolves a "source" value: an id of the file's "sources", an inline
// {"url", "section"} object, or an array of those.
std::vector<Source> resolve_sources(const TableContext& table, const Json& value, const std::string& where);
Source parse_source(const Json& value, const std::string& where);

}  // namespace cudiag::kb
