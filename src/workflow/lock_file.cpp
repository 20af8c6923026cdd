#include "workflow/lock_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include "core/errors.h"
#include "model/library_catalog.h"

namespace cudiag::workflow {

namespace {

// Where a stack key lives in the file: [table] field.
struct Place {
  std::string table;
  std::string field;
};

Place place_of(const StackValue& v) {
  if (v.key == "driver") return {"driver", "version"};
  if (v.key == "driver.cuda") return {"driver", "cuda"};
  if (v.key == "gpu.count") return {"gpus", "count"};
  if (v.key == "gpu.cc") return {"gpus", "compute_capabilities"};
  if (v.key == "gpu.name") return {"gpus", "names"};
  if (v.key == "cuda_toolkit") return {"cuda_runtime", "toolkits"};
  if (v.key == "kernel_test") return {"kernel_test", "passed"};
  if (v.layer == "frameworks") {
    auto dot = v.key.find('.');
    if (dot == std::string::npos) return {"frameworks." + v.key, "version"};
    return {"frameworks." + v.key.substr(0, dot), v.key.substr(dot + 1)};
  }
  return {"libraries", v.key};
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string loosened(const StackValue& v, const std::string& value) {
  auto loose = parse_loose_version(value);
  if (!loose || v.kind != ValueKind::kVersion || v.key.starts_with("gpu.")) return value;
  if (v.key == "driver") return fmt::format(">={},<{}", value, loose->version.major() + 1);
  if (v.key == "driver.cuda") return ">=" + value;
  if (loose->version.parts().size() < 2) return value;
  return fmt::format("{}.{}.*", loose->version.major(), loose->version.minor());
}

std::string value_text(const StackValue& v, const LockWriteOptions& o) {
  if (v.kind == ValueKind::kBool)
    return v.values.empty() ? "false" : (v.values.front() == "passed" ? "true" : "false");
  if (v.key == "gpu.count" && v.values.size() == 1) return v.values.front();
  std::vector<std::string> items;
  for (const auto& s : v.values) items.push_back(toml_string(o.loose ? loosened(v, s) : s));
  if (items.size() == 1) return items.front();
  return fmt::format("[{}]", fmt::join(items, ", "));
}

bool pinned(const StackValue& v, const Stack& stack) {
  if (v.key == "kernel_test") return stack.kernel_test_collected;
  if (v.key == "cuda_runtime") return false;              // written as [cuda_runtime] instances
  if (v.layer == "frameworks") return !v.values.empty();  // a framework's unknown cudnn is not "none"
  if (v.key.starts_with("driver") || v.key.starts_with("gpu.")) return !v.values.empty();
  return true;
}

}  // namespace

std::string write_lock(const Stack& stack, const LockWriteOptions& o) {
  std::string out;
  if (!o.comment.empty()) out += "# " + o.comment + "\n";
  out +=
      "# Each value is a version or a range: \"550.54.15\", \">=550,<570\", \"12.4.*\", \"!=12.5\", \"*\";\n"
      "# a list when the machine has several; [] pins \"none\". Delete a line to stop checking it.\n"
      "# `cudiag verify FILE` exits 0 while this machine still matches and 1 with the drift.\n";
  out += fmt::format("schema = {}\n", toml_string(kLockSchema));
  std::string table;
  auto open = [&](const std::string& t) {
    if (t == table) return;
    table = t;
    out += fmt::format("\n[{}]\n", t);
  };
  for (const auto& v : stack.values) {
    if (v.key == "cuda_runtime") {
      open("cuda_runtime");
      out += "# each libcudart: its version and real path (drop `path` to accept it anywhere)\ninstances = [";
      for (const auto& r : stack.runtimes) {
        if (r.version.empty()) continue;
        StackValue as_version{v.layer, v.key, ValueKind::kVersion, {r.version}, ""};
        out += fmt::format("\n  {{ version = {}, path = {} }},",
                           toml_string(o.loose ? loosened(as_version, r.version) : r.version),
                           toml_string(r.path));
      }
      out += stack.runtimes.empty() ? "]\n" : "\n]\n";
      continue;
    }
    if (!pinned(v, stack)) continue;
    auto p = place_of(v);
    open(p.table);
    out += fmt::format("{} = {}", p.field, value_text(v, o));
    out += v.from.empty() ? "\n" : fmt::format("  # {}\n", v.from);
  }
  return out;
}

namespace {

long line_of(const toml::node& n) { return static_cast<long>(n.source().begin.line); }

class LockReader {
 public:
  explicit LockReader(const std::string& name) : name_(name) {}

  [[noreturn]] void fail(long line, const std::string& key, const std::string& what) const {
    throw InputError(fmt::format("{}:{}: {}: {}", name_, line, key, what));
  }

  LockEntry entry(const std::string& key, ValueKind kind, const toml::node& n, const std::string& spelled) {
    LockEntry e;
    e.key = key;
    e.kind = kind;
    e.spelled = spelled;
    e.line = line_of(n);
    if (kind == ValueKind::kBool) {
      if (!n.is_boolean()) fail(e.line, spelled, "expected true or false");
      e.texts.push_back(n.as_boolean()->get() ? "passed" : "failed");
      return e;
    }
    auto one = [&](const toml::node& item) {
      long line = line_of(item);
      if (key == "gpu.count" && item.is_integer()) {
        e.specs.push_back(VersionSpec::exactly(std::to_string(item.as_integer()->get())));
        return;
      }
      if (!item.is_string()) fail(line, spelled, "write each version as a quoted string, e.g. \"12.4\"");
      std::string text = item.as_string()->get();
      if (kind == ValueKind::kText) {
        e.texts.push_back(text);
        return;
      }
      std::string why;
      auto spec = VersionSpec::parse(text, &why);
      if (!spec) fail(line, spelled, why);
      e.specs.push_back(*spec);
    };
    if (const auto* arr = n.as_array()) {
      for (const auto& item : *arr) one(item);
    } else {
      one(n);
    }
    return e;
  }

  void table_of_fields(const toml::table& t, const std::string& table_name,
                       const std::vector<std::pair<std::string, std::pair<std::string, ValueKind>>>& fields,
                       LockFile& lock) {
    for (const auto& [k, node] : t) {
      std::string field(k.str());
      std::string spelled = table_name + "." + field;
      auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == field; });
      if (it == fields.end()) fail(line_of(node), spelled, fmt::format("unknown key in [{}]", table_name));
      lock.entries.push_back(entry(it->second.first, it->second.second, node, spelled));
    }
  }

  void runtimes(const toml::table& t, LockFile& lock) {
    for (const auto& [k, node] : t) {
      std::string field(k.str());
      if (field == "toolkits") {
        lock.entries.push_back(entry("cuda_toolkit", ValueKind::kVersion, node, "cuda_runtime.toolkits"));
        continue;
      }
      if (field != "instances") fail(line_of(node), "cuda_runtime." + field, "unknown key in [cuda_runtime]");
      const auto* arr = node.as_array();
      if (!arr) fail(line_of(node), "cuda_runtime.instances", "expected a list of { version, path }");
      lock.pins_runtimes = true;
      for (const auto& item : *arr) {
        const auto* inst = item.as_table();
        if (!inst)
          fail(line_of(item), "cuda_runtime.instances", "expected { version = \"...\", path = \"...\" }");
        LockRuntime r;
        r.line = line_of(item);
        bool has_version = false;
        for (const auto& [ik, iv] : *inst) {
          std::string f(ik.str());
          if (!iv.is_string()) fail(line_of(iv), "cuda_runtime.instances." + f, "expected a quoted string");
          std::string text = iv.as_string()->get();
          if (f == "path") {
            r.path = text;
          } else if (f == "version") {
            std::string why;
            auto spec = VersionSpec::parse(text, &why);
            if (!spec) fail(line_of(iv), "cuda_runtime.instances.version", why);
            r.spec = *spec;
            has_version = true;
          } else {
            fail(line_of(iv), "cuda_runtime.instances." + f, "unknown key (expected version, path)");
          }
        }
        if (!has_version) fail(r.line, "cuda_runtime.instances", "an instance needs a version");
        lock.runtimes.push_back(r);
      }
    }
  }

 private:
  std::string name_;
};

}  // namespace

LockFile parse_lock(std::string_view text, const std::string& name) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    throw InputError(
        fmt::format("{}:{}:{}: {}", name, e.source().begin.line, e.source().begin.column, e.description()));
  }
  LockReader reader(name);
  LockFile lock;
  const auto* schema = root.get("schema");
  if (!schema || !schema->is_string())
    throw InputError(
        fmt::format("{}: schema: missing; a lock file starts with schema = \"{}\"", name, kLockSchema));
  if (schema->as_string()->get() != kLockSchema)
    reader.fail(line_of(*schema), "schema",
                fmt::format("'{}' is not {} (written by another cudiag version?)", schema->as_string()->get(),
                            kLockSchema));
  using K = ValueKind;
  for (const auto& [k, node] : root) {
    std::string key(k.str());
    if (key == "schema") continue;
    const auto* t = node.as_table();
    if (!t)
      reader.fail(line_of(node), key,
                  "unknown top-level key (expected [driver], [gpus], [cuda_runtime], [libraries], "
                  "[frameworks.NAME], [kernel_test])");
    if (key == "driver") {
      reader.table_of_fields(
          *t, key, {{"version", {"driver", K::kVersion}}, {"cuda", {"driver.cuda", K::kVersion}}}, lock);
    } else if (key == "gpus") {
      reader.table_of_fields(*t, key,
                             {{"count", {"gpu.count", K::kVersion}},
                              {"compute_capabilities", {"gpu.cc", K::kVersion}},
                              {"names", {"gpu.name", K::kText}}},
                             lock);
    } else if (key == "cuda_runtime") {
      reader.runtimes(*t, lock);
    } else if (key == "libraries") {
      for (const auto& [lk, lv] : *t) {
        std::string lib(lk.str());
        if (!model::find_library_kind(lib)) reader.fail(line_of(lv), "libraries." + lib, "unknown library");
        lock.entries.push_back(reader.entry(lib, K::kVersion, lv, "libraries." + lib));
      }
    } else if (key == "frameworks") {
      for (const auto& [fk, fv] : *t) {
        std::string fw(fk.str());
        const auto* ft = fv.as_table();
        if (!ft) reader.fail(line_of(fv), "frameworks." + fw, "expected a table [frameworks." + fw + "]");
        reader.table_of_fields(*ft, "frameworks." + fw,
                               {{"version", {fw, K::kVersion}},
                                {"cuda", {fw + ".cuda", K::kVersion}},
                                {"cudnn", {fw + ".cudnn", K::kVersion}}},
                               lock);
      }
    } else if (key == "kernel_test") {
      reader.table_of_fields(*t, key, {{"passed", {"kernel_test", K::kBool}}}, lock);
    } else {
      reader.fail(line_of(node), key, "unknown table");
    }
  }
  return lock;
}

}  // namespace cudiag::workflow
