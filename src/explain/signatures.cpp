#include "explain/signatures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "core/errors.h"
#include "kb/builders.h"
#include "kb/reader.h"
#include "model/layers.h"

namespace cudiag::explain {

namespace {

constexpr const char* kTable = "error_signatures";

const std::map<std::string, CaptureKind>& kind_names() {
  static const std::map<std::string, CaptureKind> names = {
      {"text", CaptureKind::kText},
      {"driver_cuda_int", CaptureKind::kDriverCudaInt},
      {"required_cuda", CaptureKind::kRequiredCuda},
      {"soname", CaptureKind::kSoname},
      {"error_code", CaptureKind::kErrorCode},
      {"error_name", CaptureKind::kErrorName},
      {"error_message", CaptureKind::kErrorMessage},
      {"arch", CaptureKind::kArch},
      {"extension", CaptureKind::kExtension},
      {"gcc_max", CaptureKind::kGccMax},
      {"cudnn_version", CaptureKind::kCudnnVersion},
      {"underscore_version", CaptureKind::kUnderscoreVersion},
      {"ptx_isa", CaptureKind::kPtxIsa},
      {"cuda_version", CaptureKind::kCudaVersion},
      {"nvml_exception", CaptureKind::kNvmlException},
      {"arch_list", CaptureKind::kArchList},
  };
  return names;
}

// The placeholder suffixes each kind provides besides the bare name.
std::vector<std::string> derived_suffixes(CaptureKind kind) {
  switch (kind) {
    case CaptureKind::kDriverCudaInt:
      return {"_cuda", "_torch_wheel"};
    case CaptureKind::kRequiredCuda:
      return {"_driver"};
    case CaptureKind::kSoname:
      return {"_stem", "_base", "_version"};
    case CaptureKind::kErrorCode:
      return {"_name", "_meaning", "_note"};
    case CaptureKind::kErrorName:
      return {"_code", "_meaning", "_note"};
    case CaptureKind::kErrorMessage:
    case CaptureKind::kNvmlException:
      return {"_name", "_code", "_meaning", "_note"};
    case CaptureKind::kCudaVersion:
      return {"_tag"};
    case CaptureKind::kArch:
      return {"_name", "_first_cuda", "_first_tag"};
    case CaptureKind::kPtxIsa:
      return {"_cuda"};
    case CaptureKind::kExtension:
      return {"_module", "_package"};
    case CaptureKind::kGccMax:
      return {"_next_gcc", "_next_cuda"};
    case CaptureKind::kArchList:
      return {"_oldest", "_newest", "_gpu", "_wheel"};
    case CaptureKind::kCudnnVersion:
    case CaptureKind::kUnderscoreVersion:
      return {"_version"};
    case CaptureKind::kText:
      break;
  }
  return {};
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Every {name} in `text`.
std::vector<std::string> placeholders(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while ((pos = text.find('{', pos)) != std::string::npos) {
    auto end = text.find('}', pos);
    if (end == std::string::npos) break;
    out.push_back(text.substr(pos + 1, end - pos - 1));
    pos = end + 1;
  }
  return out;
}

Signature read_signature(const kb::TableContext& table, kb::EntryReader e, const kb::KnowledgeBase& kb) {
  Signature s;
  s.id = e.str("id");
  e.name_entry(s.id);
  for (const auto& a : e.strings("anchors")) {
    if (a.empty()) e.fail("anchors: an anchor must not be empty");
    s.anchors.push_back(lower(a));
  }
  if (s.anchors.empty()) e.fail("anchors: at least one literal the message always contains");
  for (const auto& c : e.strings("context")) s.context.push_back(lower(c));
  for (const auto& c : e.strings("preceded_by")) s.preceded_by.push_back(lower(c));
  s.pattern = e.str("regex");
  s.regex = LazyRegex(lowercase_pattern(s.pattern));
  if (kb.origin() != "built-in") {
    if (auto error = s.regex.compile_error(); !error.empty())
      e.fail(fmt::format("regex: does not compile: {}", error));
  }
  s.explained_by = e.str_or("explained_by", "");
  bool own_text = s.explained_by.empty();  // otherwise copied from that entry (resolve_explained_by)
  s.layer = own_text ? e.str("layer") : e.str_or("layer", "host");
  s.symptom = e.boolean_or("symptom", false);
  s.before_kernels = e.boolean_or("before_kernels", false);
  if (s.before_kernels && !s.symptom) e.fail("before_kernels: only a symptom can be one");
  s.defers = e.boolean_or("defers", false);
  s.anchored = e.boolean_or("anchored", false);
  s.continued = e.boolean_or("continued", false);
  for (auto& c : e.objects("context_layers")) {
    ContextLayer cl;
    for (const auto& w : c.strings("words")) cl.words.push_back(lower(w));
    if (cl.words.empty()) c.fail("words: at least one word the text contains");
    cl.libraries = c.strings("libraries");
    cl.layer = c.str("layer");
    cl.cause = c.str_or("cause", "");
    cl.program_cause = c.str_or("program_cause", "");
    if (!cl.program_cause.empty()) {
      auto wanted = placeholders(cl.program_cause);
      if (wanted.empty() ||
          std::any_of(wanted.begin(), wanted.end(), [](const auto& p) { return p != "program"; }))
        c.fail("program_cause: it must name {program} and no other placeholder");
    }
    s.context_layers.push_back(std::move(cl));
  }
  const auto& layers = explain_layers();
  auto known_layer = [&](const std::string& l) {
    return std::find(layers.begin(), layers.end(), l) != layers.end();
  };
  for (const auto& cl : s.context_layers) {
    if (!known_layer(cl.layer)) e.fail(fmt::format("context_layers: '{}' is not a layer", cl.layer));
  }
  if (!known_layer(s.layer)) e.fail(fmt::format("layer: '{}' is not a layer", s.layer));
  if (auto m = e.json().find("layer_for_library"); m != e.json().end()) {
    if (!m->is_object()) e.fail("layer_for_library: expected an object of library -> layer");
    for (const auto& [lib, layer] : m->items()) {
      if (!layer.is_string() || !known_layer(layer.get<std::string>()))
        e.fail(fmt::format("layer_for_library.{}: not a layer", lib));
      s.layer_for_library.emplace(lib, layer.get<std::string>());
    }
  }
  if (own_text) {
    s.title = e.str("title");
    s.meaning = e.str("meaning");
    s.causes = e.strings("causes");
    s.program_cause = e.str_or("program_cause", "");
    for (auto& v : e.objects("value_causes")) {
      s.value_causes.push_back({v.str("value"), v.str("equals"), v.str("cause")});
      if (s.value_causes.back().equals.empty()) v.fail("equals: the value's text, not empty");
    }
    s.checks = e.strings("checks");
    if (s.causes.empty()) e.fail("causes: at least one likely cause");
    if (s.checks.empty()) e.fail("checks: at least one check");
  }
  for (auto& c : e.objects("captures")) {
    CaptureDef d;
    d.name = c.str("name");
    auto kind = c.str_or("kind", "text");
    auto it = kind_names().find(kind);
    if (it == kind_names().end()) c.fail(fmt::format("kind: '{}' is not a capture kind", kind));
    d.kind = it->second;
    d.of = c.str_or("of", "");
    if ((d.kind == CaptureKind::kArchList) != !d.of.empty())
      c.fail("of: an arch_list capture, and only one, names the capture of the GPU's architecture");
    s.captures.push_back(std::move(d));
  }
  for (const auto& d : s.captures) {
    bool found = d.of.empty() || std::any_of(s.captures.begin(), s.captures.end(), [&](const CaptureDef& o) {
                   return o.name == d.of && o.kind == CaptureKind::kArch;
                 });
    if (!found) e.fail(fmt::format("captures: {}: of: no arch capture '{}'", d.name, d.of));
  }
  if (s.captures.size() != s.regex.groups())
    e.fail(
        fmt::format("captures: {} given but the regex has {} groups", s.captures.size(), s.regex.groups()));
  for (auto& r : e.objects("errors")) {
    kb::ErrorRef ref{r.str("api"), r.integer("code")};
    if (!kb.error(ref.api, ref.code))
      r.fail(fmt::format("{} error {} is not in error_codes", ref.api, ref.code));
    s.errors.push_back(std::move(ref));
  }
  const auto& checks = machine_check_names();
  for (const auto& m : e.strings("machine")) {
    bool known = std::find(checks.begin(), checks.end(), m) != checks.end() || m.rfind("library:", 0) == 0;
    if (!known) e.fail(fmt::format("machine: '{}' is not a machine check", m));
    s.machine.push_back(m);
  }
  s.priority = static_cast<int>(e.opt_integer("priority").value_or(50));
  s.confirms = e.strings("confirms");
  s.generic = e.boolean_or("generic", false);
  s.environment = e.boolean_or("environment", true);

  std::set<std::string> names;
  for (const auto& c : s.captures) {
    names.insert(c.name);
    for (const auto& suffix : derived_suffixes(c.kind)) names.insert(c.name + suffix);
  }
  if (!s.program_cause.empty()) {
    auto wanted = placeholders(s.program_cause);
    if (std::find(wanted.begin(), wanted.end(), "program") == wanted.end())
      e.fail("program_cause: it must name {program}");
    for (const auto& p : wanted) {
      if (p != "program" && !names.count(p))
        e.fail(fmt::format("program_cause: {{{}}}: no capture provides it", p));
    }
  }
  std::vector<const std::string*> texts = {&s.title, &s.meaning};
  for (const auto& c : s.causes) texts.push_back(&c);
  for (const auto& v : s.value_causes) {
    if (!names.count(v.value)) e.fail(fmt::format("value_causes: {{{}}}: no capture provides it", v.value));
    texts.push_back(&v.cause);
  }
  for (const auto& c : s.checks) texts.push_back(&c);
  for (const auto* t : texts) {
    for (const auto& p : placeholders(*t)) {
      if (!names.count(p)) e.fail(fmt::format("{{{}}}: no capture provides it", p));
    }
  }
  s.provenance = e.provenance();
  (void)table;
  return s;
}

}  // namespace

std::string lowercase_pattern(const std::string& pattern) {
  std::string out = pattern;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\\') {
      ++i;  // the escaped character stays as written
      continue;
    }
    if (out[i] >= 'A' && out[i] <= 'Z') out[i] = static_cast<char>(out[i] - 'A' + 'a');
  }
  return out;
}

const std::vector<std::string>& explain_layers() {
  // The report's layers (model/layers.h), and the container image, which a signature may also name.
  static const std::vector<std::string> layers = [] {
    auto l = model::layer_order();
    l.push_back("container");
    return l;
  }();
  return layers;
}

// An entry that is another wording of a message takes the explaining entry's layer, texts and checks;
// both must capture the same values, which those texts use.
void resolve_explained_by(std::vector<Signature>& all) {
  for (auto& s : all) {
    if (s.explained_by.empty()) continue;
    auto target =
        std::find_if(all.begin(), all.end(), [&](const Signature& t) { return t.id == s.explained_by; });
    auto fail = [&](const std::string& what) {
      throw InputError(fmt::format("{}: {}: explained_by: {}", kTable, s.id, what));
    };
    if (target == all.end()) fail(fmt::format("no entry '{}'", s.explained_by));
    if (!target->explained_by.empty() || target->generic)
      fail("names an entry that is itself a wording or generic");
    bool same = s.captures.size() == target->captures.size() &&
                std::equal(s.captures.begin(), s.captures.end(), target->captures.begin(),
                           [](const CaptureDef& a, const CaptureDef& b) {
                             return a.name == b.name && a.kind == b.kind && a.of == b.of;
                           });
    if (!same) fail(fmt::format("its captures differ from those of '{}'", s.explained_by));
    s.layer = target->layer;
    s.layer_for_library = target->layer_for_library;
    if (s.context_layers.empty()) s.context_layers = target->context_layers;
    s.title = target->title;
    s.meaning = target->meaning;
    s.causes = target->causes;
    s.program_cause = target->program_cause;
    s.value_causes = target->value_causes;
    s.checks = target->checks;
    if (s.machine.empty()) s.machine = target->machine;
    if (s.confirms.empty()) s.confirms = target->confirms;
    s.environment = target->environment;
    s.symptom = target->symptom;
    s.before_kernels = target->before_kernels;
    s.defers = target->defers;
  }
}

std::vector<Signature> load_signatures(const kb::KnowledgeBase& kb) {
  const Json& doc = kb.raw(kTable);
  kb::TableContext table;
  table.file = kTable;
  table.table = kTable;
  table.doc = &doc;
  if (auto conf = kb::parse_confidence(doc.value("confidence", ""))) table.default_confidence = *conf;
  if (auto src = doc.find("sources"); src != doc.end() && src->is_object()) {
    for (const auto& [id, value] : src->items())
      table.sources.emplace(id, kb::parse_source(value, fmt::format("{}: sources.{}", kTable, id)));
  }
  std::vector<Signature> out;
  std::set<std::string> ids;
  for (auto& e : kb::table_array(table, "entries")) {
    auto s = read_signature(table, e, kb);
    if (!ids.insert(s.id).second) throw InputError(fmt::format("{}: {}: id given twice", kTable, s.id));
    out.push_back(std::move(s));
  }
  if (out.empty()) throw InputError(fmt::format("{}: no entries", kTable));
  resolve_explained_by(out);
  return out;
}

const std::vector<Signature>& signatures(const kb::KnowledgeBase& kb) {
  static std::mutex mu;
  // Never destroyed: freeing ~270 signatures at exit only delays the process's end.
  static auto* loaded = new std::map<const kb::KnowledgeBase*, std::unique_ptr<std::vector<Signature>>>;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*loaded)[&kb];
  if (!slot) slot = std::make_unique<std::vector<Signature>>(load_signatures(kb));
  return *slot;
}

}  // namespace cudiag::explain
