#include "kb/reader.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace cudiag::kb {

namespace {
std::string_view type_name(const Json& j) {
  if (j.is_string()) return "a string";
  if (j.is_number_integer()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_boolean()) return "a boolean";
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  return "null";
}
}  // namespace

Source parse_source(const Json& value, const std::string& where) {
  if (!value.is_object())
    throw InputError(fmt::format("{}: a source must be an object with url and section", where));
  auto url = value.find("url");
  auto section = value.find("section");
  if (url == value.end() || !url->is_string() || url->get<std::string>().empty())
    throw InputError(fmt::format("{}: source without a url", where));
  const auto& u = url->get_ref<const std::string&>();
  if (u.rfind("https://", 0) != 0 && u.rfind("http://", 0) != 0)
    throw InputError(fmt::format("{}: source url '{}' is not an http(s) URL", where, u));
  if (section == value.end() || !section->is_string() || section->get<std::string>().empty())
    throw InputError(fmt::format("{}: source {} without a section", where, u));
  return Source{u, section->get<std::string>()};
}

std::vector<Source> resolve_sources(const TableContext& table, const Json& value, const std::string& where) {
  std::vector<Source> out;
  auto one = [&](const Json& v) {
    if (v.is_string()) {
      auto it = table.sources.find(v.get_ref<const std::string&>());
      if (it == table.sources.end())
        throw InputError(fmt::format("{}: {}: source '{}' is not defined in \"sources\"", table.file, where,
                                     v.get_ref<const std::string&>()));
      out.push_back(it->second);
    } else {
      out.push_back(parse_source(v, fmt::format("{}: {}", table.file, where)));
    }
  };
  if (value.is_array()) {
    for (const auto& v : value) one(v);
  } else {
    one(value);
  }
  if (out.empty()) throw InputError(fmt::format("{}: {}: empty source list", table.file, where));
  return out;
}

EntryReader::EntryReader(const TableContext& table, const Json& entry, std::string where)
    : table_(table), entry_(entry), where_(std::move(where)) {
  if (!entry_.is_object()) fail(fmt::format("expected an object, got {}", type_name(entry_)));
}

void EntryReader::fail(std::string_view what) const {
  throw InputError(fmt::format("{}: {}: {}", table_.file, where_, what));
}

const Json* EntryReader::get(std::string_view key) const {
  auto it = entry_.find(key);
  if (it == entry_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool EntryReader::has(std::string_view key) const { return get(key) != nullptr; }

std::string EntryReader::str(std::string_view key) const {
  const Json* v = get(key);
  if (!v) fail(fmt::format("missing {}", key));
  if (!v->is_string()) fail(fmt::format("{}: expected a string, got {}", key, type_name(*v)));
  if (v->get_ref<const std::string&>().empty()) fail(fmt::format("{}: empty", key));
  return v->get<std::string>();
}

std::string EntryReader::str_or(std::string_view key, std::string fallback) const {
  return has(key) ? str(key) : fallback;
}

Version EntryReader::version(std::string_view key) const {
  const Json* v = get(key);
  if (!v) fail(fmt::format("missing {}", key));
  if (!v->is_string()) fail(fmt::format("{}: expected a version string, got {}", key, type_name(*v)));
  auto parsed = Version::parse(v->get_ref<const std::string&>());
  if (!parsed) fail(fmt::format("{}: '{}' is not a version", key, v->get_ref<const std::string&>()));
  return *parsed;
}

std::optional<Version> EntryReader::opt_version(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return version(key);
}

long EntryReader::integer(std::string_view key) const {
  const Json* v = get(key);
  if (!v) fail(fmt::format("missing {}", key));
  if (!v->is_number_integer()) fail(fmt::format("{}: expected an integer, got {}", key, type_name(*v)));
  return v->get<long>();
}

std::optional<long> EntryReader::opt_integer(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return integer(key);
}

bool EntryReader::boolean_or(std::string_view key, bool fallback) const {
  const Json* v = get(key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(fmt::format("{}: expected a boolean, got {}", key, type_name(*v)));
  return v->get<bool>();
}

std::vector<std::string> EntryReader::strings(std::string_view key) const {
  std::vector<std::string> out;
  const Json* v = get(key);
  if (!v) return out;
  if (!v->is_array()) fail(fmt::format("{}: expected an array of strings, got {}", key, type_name(*v)));
  for (const auto& s : *v) {
    if (!s.is_string() || s.get_ref<const std::string&>().empty())
      fail(fmt::format("{}: expected non-empty strings", key));
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::vector<long> EntryReader::integers(std::string_view key) const {
  std::vector<long> out;
  const Json* v = get(key);
  if (!v) return out;
  if (!v->is_array()) fail(fmt::format("{}: expected an array of integers, got {}", key, type_name(*v)));
  for (const auto& n : *v) {
    if (!n.is_number_integer()) fail(fmt::format("{}: expected integers, got {}", key, type_name(n)));
    out.push_back(n.get<long>());
  }
  return out;
}

std::vector<Version> EntryReader::versions(std::string_view key) const {
  std::vector<Version> out;
  for (const auto& s : strings(key)) {
    auto parsed = Version::parse(s);
    if (!parsed) fail(fmt::format("{}: '{}' is not a version", key, s));
    out.push_back(*parsed);
  }
  return out;
}

std::optional<Confidence> EntryReader::opt_confidence(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  auto text = str(key);
  auto c = parse_confidence(text);
  if (!c)
    fail(fmt::format("{}: '{}' is not one of confirmed, single-source, unconfirmed, disputed", key, text));
  return c;
}

std::optional<EntryReader> EntryReader::object(std::string_view key) const {
  const Json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_object()) fail(fmt::format("{}: expected an object, got {}", key, type_name(*v)));
  return EntryReader(table_, *v, fmt::format("{}.{}", where_, key));
}

std::vector<EntryReader> EntryReader::objects(std::string_view key) const {
  std::vector<EntryReader> out;
  const Json* v = get(key);
  if (!v) return out;
  if (!v->is_array()) fail(fmt::format("{}: expected an array, got {}", key, type_name(*v)));
  for (std::size_t i = 0; i < v->size(); ++i)
    out.emplace_back(table_, (*v)[i], fmt::format("{}.{}[{}]", where_, key, i));
  return out;
}

Provenance EntryReader::provenance(const Provenance* inherit) const {
  Provenance p;
  if (const Json* s = get("source")) {
    p.sources = resolve_sources(table_, *s, where_);
  } else if (inherit) {
    p.sources = inherit->sources;
  } else {
    fail("missing source (every entry needs one: an id from \"sources\" or {\"url\", \"section\"})");
  }
  p.confidence =
      opt_confidence("confidence").value_or(inherit ? inherit->confidence : table_.default_confidence);
  p.note = str_or("note", "");
  return p;
}

}  // namespace cudiag::kb
