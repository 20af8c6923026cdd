#include "workflow/fleet_extract.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace cudiag::workflow::fleet {

namespace dom = simdjson::dom;

static_assert(simdjson::SIMDJSON_PADDING <= 64, "fleet_files.h kJsonPadding must cover simdjson's padding");

namespace {

using Keys = std::initializer_list<std::string_view>;

bool one_of(std::string_view k, Keys keys) { return std::find(keys.begin(), keys.end(), k) != keys.end(); }

// Appends compact JSON. Strings come from simdjson already validated as UTF-8.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  // Runs of plain characters are appended whole: this is the hot loop of the whole scan.
  void string(std::string_view s) {
    out_ += '"';
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto u = static_cast<unsigned char>(s[i]);
      if (u >= 0x20 && u != '"' && u != '\\') continue;
      out_.append(s.data() + run, i - run);
      run = i + 1;
      if (u == '"' || u == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(u);
      } else {
        static constexpr char kHex[] = "0123456789abcdef";
        out_ += "\\u00";
        out_ += kHex[u >> 4];
        out_ += kHex[u & 15];
      }
    }
    out_.append(s.data() + run, s.size() - run);
    out_ += '"';
  }
  void key(std::string_view k) {
    comma();
    string(k);
    out_ += ':';
    fresh_ = true;  // the value that follows needs no comma
  }
  void open(char c) {
    comma();
    out_ += c;
    fresh_ = true;
  }
  void close(char c) {
    out_ += c;
    fresh_ = false;
  }
  void comma() {
    if (!fresh_) out_ += ',';
    fresh_ = false;
  }
  void scalar(dom::element e) {
    comma();
    switch (e.type()) {
      case dom::element_type::STRING: {
        string(std::string_view(e));  // the type was just checked
        return;
      }
      case dom::element_type::INT64:
        out_ += fmt::format("{}", int64_t(e));
        return;
      case dom::element_type::UINT64:
        out_ += fmt::format("{}", uint64_t(e));
        return;
      case dom::element_type::DOUBLE:
        out_ += fmt::format("{}", double(e));
        return;
      case dom::element_type::BOOL:
        out_ += bool(e) ? "true" : "false";
        return;
      default:
        out_ += "null";
        return;
    }
  }

 private:
  std::string& out_;
  bool fresh_ = true;
};

bool is_container(dom::element e) {
  return e.type() == dom::element_type::OBJECT || e.type() == dom::element_type::ARRAY;
}

// The whole value (depth is already bounded by the parser).
void copy(Writer& w, dom::element e) {
  if (e.type() == dom::element_type::OBJECT) {
    w.open('{');
    for (auto kv : dom::object(e)) {
      if (kv.key == "source") continue;  // where a fact was read differs per node and never decides
      w.key(kv.key);
      copy(w, kv.value);
    }
    w.close('}');
  } else if (e.type() == dom::element_type::ARRAY) {
    w.open('[');
    for (auto x : dom::array(e)) copy(w, x);
    w.close(']');
  } else {
    w.scalar(e);
  }
}

// A fact ({"value": V, "source": …, "error": …}) as {"value": V}; anything else whole.
void leaf(Writer& w, dom::element e) {
  dom::element v;
  if (e.type() == dom::element_type::OBJECT && !dom::object(e).at_key("value").get(v)) {
    w.open('{');
    w.key("value");
    copy(w, v);
    w.close('}');
    return;
  }
  copy(w, e);
}

// An object with only `keys`, each as a leaf; a non-object whole (rules judge its type).
void pick(Writer& w, dom::element e, Keys keys) {
  if (e.type() != dom::element_type::OBJECT) {
    copy(w, e);
    return;
  }
  w.open('{');
  for (auto kv : dom::object(e)) {
    if (!one_of(kv.key, keys)) continue;
    w.key(kv.key);
    leaf(w, kv.value);
  }
  w.close('}');
}

// An array of objects, each with only `keys`; a non-array whole.
void pick_each(Writer& w, dom::element e, Keys keys) {
  if (e.type() != dom::element_type::ARRAY) {
    leaf(w, e);
    return;
  }
  w.open('[');
  for (auto x : dom::array(e)) pick(w, x, keys);
  w.close(']');
}

// The GPU fields rules::gpus() reads from each list.
const Keys kPciKeys = {"kind", "bus_id", "bound_driver", "device_id", "compute_capability", "name"};
const Keys kCallGpuKeys = {"name", "pci_bus_id", "pci_device_id", "compute_capability"};

// A layer object: for each key in `scalars`, its leaf; for each (key, fields) in `lists`, pick_each.
void layer(Writer& w, dom::element e, Keys scalars,
           std::initializer_list<std::pair<std::string_view, Keys>> lists) {
  if (e.type() != dom::element_type::OBJECT) {
    copy(w, e);
    return;
  }
  w.open('{');
  for (auto kv : dom::object(e)) {
    if (one_of(kv.key, scalars)) {
      w.key(kv.key);
      leaf(w, kv.value);
      continue;
    }
    for (const auto& [name, fields] : lists) {
      if (kv.key != name) continue;
      w.key(kv.key);
      pick_each(w, kv.value, fields);
    }
  }
  w.close('}');
}

void libraries(Writer& w, dom::element e) {
  if (e.type() != dom::element_type::OBJECT) {
    copy(w, e);
    return;
  }
  w.open('{');
  for (auto kv : dom::object(e)) {
    w.key(kv.key);
    pick(w, kv.value, {"distinct_versions"});
  }
  w.close('}');
}

// What workflow::framework_builds() walks: containers and the fields it reads
// (stack.cpp's build_from / collect_builds); other scalars and facts cannot
// change a build and are left out, so per-node paths do not split the cache.
const Keys kBuildFields = {"version",    "__version__", "cuda",    "cuda_version",  "built_with_cuda",
                           "cuda_build", "build_cuda",  "cudnn",   "cudnn_version", "built_with_cudnn",
                           "name",       "framework",   "package", "build",         "value"};
const Keys kNotFrameworks = {"nvidia_wheels", "binaries", "loads", "plugins", "requires"};

bool is_fact(dom::element e) {
  dom::element v;
  return e.type() == dom::element_type::OBJECT && !dom::object(e).at_key("value").get(v);
}

void frameworks(Writer& w, dom::element e) {
  if (e.type() == dom::element_type::ARRAY) {
    w.open('[');
    for (auto x : dom::array(e)) {
      if (is_container(x)) frameworks(w, x);
    }
    w.close(']');
    return;
  }
  if (e.type() != dom::element_type::OBJECT) {
    copy(w, e);
    return;
  }
  w.open('{');
  for (auto kv : dom::object(e)) {
    if (one_of(kv.key, kNotFrameworks) || kv.key == "source") continue;
    if (one_of(kv.key, kBuildFields)) {
      w.key(kv.key);
      if (kv.key == "build" || kv.key == "value") {
        copy(w, kv.value);
      } else {
        leaf(w, kv.value);
      }
    } else if (is_container(kv.value) && !is_fact(kv.value)) {
      w.key(kv.key);
      frameworks(w, kv.value);
    }
  }
  w.close('}');
}

std::string text_or_fact(dom::element e) {
  std::string_view s;
  dom::element v;
  if (e.type() == dom::element_type::OBJECT && !dom::object(e).at_key("value").get(v)) e = v;
  if (e.type() == dom::element_type::STRING && !e.get_string().get(s)) return std::string(s);
  return "";
}

std::string field(dom::object o, std::string_view key) {
  dom::element v;
  std::string_view s;
  if (o.at_key(key).get(v) || v.get_string().get(s)) return "";
  return std::string(s);
}

std::string parse_error(simdjson::error_code err) {
  switch (err) {
    case simdjson::EMPTY:
      return "empty file";
    case simdjson::DEPTH_ERROR:
      return fmt::format("nested deeper than {} levels: not a report", kMaxJsonDepth);
    case simdjson::UNCLOSED_STRING:
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
      return "truncated JSON (the file ends before the document does)";
    case simdjson::UTF8_ERROR:
      return "not valid JSON: invalid UTF-8";
    case simdjson::CAPACITY:
      return "too large to parse";
    default:
      return fmt::format("not valid JSON: {}", simdjson::error_message(err));
  }
}

}  // namespace

struct Extractor::Impl {
  dom::parser parser;
  std::size_t allocated = 0;
};

Extractor::Extractor() : impl_(std::make_unique<Impl>()) {}
Extractor::~Extractor() = default;

std::string Extractor::extract(const char* data, std::size_t size, std::size_t capacity, Extract& out) {
  // Cleared, not replaced: the buffers are reused from report to report.
  out.projection.clear();
  out.host.clear();
  out.diagnosed = false;
  out.findings.clear();
  out.first_failing_layer.clear();
  if (capacity < size + simdjson::SIMDJSON_PADDING) return "internal: buffer without padding";
  if (size > impl_->allocated || impl_->allocated == 0) {
    std::size_t want = std::max<std::size_t>(size, 64 * 1024);
    if (impl_->parser.allocate(want, kMaxJsonDepth)) return "too large to parse";
    impl_->allocated = want;
  }
  dom::element root;
  if (auto err = impl_->parser.parse(data, size, false).get(root)) {
    // A file cut short (a node that died mid-write) is the common case: say so whatever simdjson tripped on.
    std::size_t end = size;
    while (end > 0 && std::isspace(static_cast<unsigned char>(data[end - 1]))) --end;
    if (end > 0 && data[end - 1] != '}' && data[end - 1] != ']' && data[0] == '{' &&
        err != simdjson::UTF8_ERROR)
      return "truncated JSON (the file ends before the document does)";
    return parse_error(err);
  }
  if (root.type() != dom::element_type::OBJECT) return "not a cudiag report (expected a JSON object)";
  dom::object top(root);
  std::string_view schema;
  dom::element sv;
  if (top.at_key("schema").get(sv) || sv.get_string().get(schema) || !schema.starts_with("cudiag.report/"))
    return "not a cudiag report (no \"schema\": \"cudiag.report/1\")";

  Writer w(out.projection);
  w.open('{');
  for (auto kv : top) {
    const std::string_view k = kv.key;
    dom::element v = kv.value;
    if (k == "kernel_driver") {
      w.key(k);
      layer(w, v, {"version"}, {{"pci_devices", kPciKeys}});
    } else if (k == "nvml") {
      w.key(k);
      layer(w, v, {"driver_version", "cuda_driver_version"}, {{"gpus", kCallGpuKeys}});
    } else if (k == "driver_api") {
      w.key(k);
      layer(w, v, {"forward_compat_package", "library_version", "cuda_driver_version"},
            {{"devices", kCallGpuKeys}});
    } else if (k == "cuda_runtime") {
      w.key(k);
      layer(w, v, {}, {{"runtimes", {"runtime_version", "real_path", "path"}}, {"toolkits", {"version"}}});
    } else if (k == "libraries") {
      w.key(k);
      libraries(w, v);
    } else if (k == "frameworks") {
      w.key(k);
      frameworks(w, v);
    } else if (k == "kernel_test") {
      w.key(k);
      pick(w, v, {"passed", "ok", "success", "status", "result", "outcome", "verdict"});
    } else if (k == "container") {
      w.key(k);
      pick(w, v, {"image", "image_digest"});
    } else if (k == "host" && v.type() == dom::element_type::OBJECT) {
      dom::element h;
      if (!dom::object(v).at_key("hostname").get(h)) out.host = text_or_fact(h);
    } else if (k == "first_failing_layer") {
      std::string_view s;
      if (!v.get_string().get(s)) out.first_failing_layer = std::string(s);
    } else if (k == "findings" && v.type() == dom::element_type::ARRAY) {
      out.diagnosed = true;
      for (auto f : dom::array(v)) {
        if (f.type() != dom::element_type::OBJECT) continue;  // not a finding: unknown, not counted
        dom::object o(f);
        ReportFinding rf{field(o, "id"), field(o, "severity"), field(o, "layer"), field(o, "message")};
        if (rf.id.empty()) continue;
        out.findings.push_back(std::move(rf));
      }
    }
  }
  w.close('}');
  return "";
}

}  // namespace cudiag::workflow::fleet
