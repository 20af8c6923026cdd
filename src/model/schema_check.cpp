#include "model/schema_check.h"

#include <fmt/format.h>

#include <string_view>

#include "core/embedded.h"

namespace cudiag::model {

namespace {

const Json& report_schema() {
  static const Json schema = [] {
    const auto* f = find_embedded("schema/report.schema.json");
    return f != nullptr ? Json::parse(f->bytes, nullptr, false) : Json();
  }();
  return schema;
}

// "#/$defs/fact" -> the schema node; null when the reference is not local.
const Json* resolve(const Json& root, const Json& node) {
  const Json* n = &node;
  for (int hops = 0; hops < 8 && n->is_object() && n->contains("$ref"); ++hops) {
    const auto& ref = (*n)["$ref"];
    if (!ref.is_string() || !ref.get_ref<const std::string&>().starts_with("#/")) return nullptr;
    try {
      n = &root.at(Json::json_pointer(ref.get<std::string>().substr(1)));
    } catch (const Json::exception&) {
      return nullptr;
    }
  }
  return n;
}

bool has_type(const Json& value, std::string_view type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  return true;  // a type this checker does not know constrains nothing
}

std::string type_of(const Json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  return value.type_name();
}

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string walk(const Json& root, const Json& schema_node, const Json& value, const std::string& path,
                 int depth) {
  const Json* s = resolve(root, schema_node);
  if (s == nullptr || !s->is_object() || depth > 64) return "";
  // anyOf / oneOf: fine when one branch is.
  for (const char* key : {"anyOf", "oneOf"}) {
    if (!s->contains(key) || !(*s)[key].is_array()) continue;
    std::string first;
    for (const auto& branch : (*s)[key]) {
      auto why = walk(root, branch, value, path, depth + 1);
      if (why.empty()) return "";
      if (first.empty()) first = why;
    }
    if (!first.empty()) return first;
  }
  if (s->contains("type")) {
    const Json& t = (*s)["type"];
    bool ok = false;
    std::string expected;
    if (t.is_string()) {
      ok = has_type(value, t.get<std::string>());
      expected = t.get<std::string>();
    } else if (t.is_array()) {
      for (const auto& one : t) {
        if (!one.is_string()) continue;
        ok = ok || has_type(value, one.get<std::string>());
        expected += (expected.empty() ? "" : " or ") + one.get<std::string>();
      }
    } else {
      ok = true;
    }
    if (!ok)
      return fmt::format("{}: expected {}, found {}", path.empty() ? "/" : path, expected, type_of(value));
  }
  if (s->contains("const") && (*s)["const"].is_string() && value != (*s)["const"])
    return fmt::format("{}: expected \"{}\"", path.empty() ? "/" : path, (*s)["const"].get<std::string>());
  if (value.is_object()) {
    const Json* props = s->contains("properties") ? &(*s)["properties"] : nullptr;
    const Json* extra = s->contains("additionalProperties") ? &(*s)["additionalProperties"] : nullptr;
    for (auto it = value.begin(); it != value.end(); ++it) {
      const Json* sub = nullptr;
      if (props != nullptr && props->is_object() && props->contains(it.key()))
        sub = &(*props)[it.key()];
      else if (extra != nullptr && extra->is_object())
        sub = extra;
      if (sub == nullptr) continue;
      auto why = walk(root, *sub, it.value(), path + "/" + escape_pointer_token(it.key()), depth + 1);
      if (!why.empty()) return why;
    }
  } else if (value.is_array() && s->contains("items") && (*s)["items"].is_object()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      auto why = walk(root, (*s)["items"], value[i], fmt::format("{}/{}", path, i), depth + 1);
      if (!why.empty()) return why;
    }
  }
  return "";
}

}  // namespace

std::string first_schema_type_mismatch(const Json& doc) {
  const Json& schema = report_schema();
  if (!schema.is_object()) return "";
  return walk(schema, schema, doc, "", 0);
}

}  // namespace cudiag::model
