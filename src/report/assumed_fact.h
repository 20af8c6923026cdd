#pragma once
// What assume.cpp and assume_layers.cpp both write: a fact with the source
// "assume:KEY", the object or array a fact goes into (made when missing or of
// another type), and a version that must parse.
#include <fmt/format.h>

#include <string>
#include <utility>

#include "core/errors.h"
#include "core/json.h"
#include "core/version.h"

namespace cudiag::report::assume_support {

inline Json assumed(Json value, const std::string& key) {
  Json f = Json::object();
  f["value"] = std::move(value);
  f["source"] = "assume:" + key;
  return f;
}

inline Json& object_at(Json& parent, const std::string& key) {
  if (!parent.contains(key) || !parent[key].is_object()) parent[key] = Json::object();
  return parent[key];
}

inline Json& array_at(Json& parent, const std::string& key) {
  if (!parent.contains(key) || !parent[key].is_array()) parent[key] = Json::array();
  return parent[key];
}

// Throws InputError naming the assumption when `value` is not a version.
inline Version assumed_version(const std::string& key, const std::string& value) {
  auto v = Version::parse(value);
  if (!v) throw InputError(fmt::format("--assume {}={}: not a version", key, value));
  return *v;
}

}  // namespace cudiag::report::assume_support
