// Loading: parse each file, check the header every table shares, run the
// table's builder, then the checks that span tables.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>

#include "core/bounded_input.h"
#include "core/embedded.h"
#include "core/errors.h"
#include "core/options.h"
#include "kb/builders.h"

namespace cudiag::kb {

namespace {

constexpr long kSchemaVersion = 1;

using Builder = void (*)(const TableContext&, KnowledgeBase::Data&);

struct TableDef {
  const char* name;
  Builder build;
};

// The order matters only for display; builders do not depend on each other.
const std::vector<TableDef>& table_defs() {
  static const std::vector<TableDef> defs = {
      {"toolkit_drivers", build_toolkit_drivers},
      {"minor_version_compat", build_minor_version_compat},
      {"driver_branches", build_driver_branches},
      {"architectures", build_architectures},
      {"ptx_isa", build_ptx_isa},
      {"host_compilers", build_host_compilers},
      {"forward_compat", build_forward_compat},
      {"error_codes", build_error_codes},
      {"gpus", build_gpus},
      {"library_sonames", build_library_sonames},
      {"version_encodings", build_version_encodings},
      // No builder: src/explain/signatures.cpp parses it; listed so every
      // knowledge base (--kb DIR too) has the messages `cudiag explain` knows.
      {"error_signatures", nullptr},
      // No builder: the frameworks rules read it (src/rules/framework_rules.cpp).
      {"framework_matrix", nullptr},
      // No builder: explain's build fixes read it (src/explain/build_fixes.cpp).
      {"toolkit_identifiers", nullptr},
      // No builder: explain's last-resort guess reads it (src/explain/triage.cpp).
      {"triage_terms", nullptr},
      // Checked at load, read when asked: --assume ngc and the NGC container rule (src/kb/ngc_containers.h).
      {"ngc_containers", build_ngc_containers},
  };
  return defs;
}

std::string stem_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// Header shared by every table; also the rule that every element of every
// top-level array has a source, so a table added later (framework matrices,
// error signatures) is held to it without a builder.
TableContext read_header(const std::string& file, const Json& doc) {
  TableContext t;
  t.file = file;
  t.doc = &doc;
  if (!doc.is_object()) throw InputError(file + ": expected a JSON object at the top level");
  auto need_string = [&](const char* key) -> std::string {
    auto it = doc.find(key);
    if (it == doc.end() || !it->is_string() || it->get<std::string>().empty())
      throw InputError(fmt::format("{}: missing \"{}\" (a non-empty string)", file, key));
    return it->get<std::string>();
  };
  t.table = need_string("table");
  if (t.table != stem_of(file))
    throw InputError(
        fmt::format("{}: \"table\" is '{}' but the file is named {}.json", file, t.table, stem_of(file)));
  auto sv = doc.find("schema_version");
  if (sv == doc.end() || !sv->is_number_integer() || sv->get<long>() != kSchemaVersion)
    throw InputError(fmt::format("{}: \"schema_version\" must be {}", file, kSchemaVersion));
  need_string("description");
  auto conf = parse_confidence(need_string("confidence"));
  if (!conf)
    throw InputError(file + ": \"confidence\": expected confirmed, single-source, unconfirmed or disputed");
  t.default_confidence = *conf;
  auto sources = doc.find("sources");
  if (sources == doc.end() || !sources->is_object() || sources->empty())
    throw InputError(file + ": missing \"sources\" (an object of id -> {url, section})");
  for (const auto& [id, value] : sources->items())
    t.sources.emplace(id, parse_source(value, fmt::format("{}: sources.{}", file, id)));
  auto entries = doc.find("entries");
  if (entries == doc.end() || !entries->is_array())
    throw InputError(file + ": missing \"entries\" (an array)");
  for (const auto& [key, value] : doc.items()) {
    if (!value.is_array()) continue;
    for (std::size_t i = 0; i < value.size(); ++i) {
      EntryReader e(t, value[i], fmt::format("{}[{}]", key, i));
      (void)e.provenance();
    }
  }
  return t;
}

Json parse_json(const KbFile& f) {
  // The built-in tables are ours (fast path); a --kb directory is input.
  if (f.path.starts_with("data/kb/")) {
    try {
      return Json::parse(f.text);
    } catch (const Json::exception& e) {
      throw InputError(fmt::format("{}: invalid JSON: {}", f.path, e.what()));
    }
  }
  return parse_untrusted_json(f.text, f.path);
}

// Facts that two tables state twice must agree.
void check_across_tables(const KnowledgeBase& kb) {
  for (const auto& g : kb.gpus()) {
    if (!kb.arch_for_cc(g.cc))
      throw InputError(fmt::format("{}: {} (0x{:04x}): compute capability {} is not in architectures", "gpus",
                                   g.name, g.pci_id, g.cc.text()));
  }
  for (const auto& r : kb.toolkit_releases()) {
    const auto* m = kb.mvc_for_major(r.cuda.major());
    if (!m) continue;
    // Linux only: on Windows the 12.x floor (528.33) is above 12.0 GA's own
    // minimum (527.41), one of the disagreements recorded in the data.
    auto floor = m->min_for("linux", r.cuda);
    const auto& full = r.linux_driver.min;
    if (floor && full && *full < *floor)
      throw InputError(fmt::format(
          "toolkit_drivers: {}: linux minimum {} is below the minor-version floor {} of CUDA {}.x",
          r.cuda.text(), full->text(), floor->text(), m->cuda_major));
  }
  auto check_refs = [&](const std::vector<ErrorRef>& refs, const std::string& where) {
    for (const auto& ref : refs) {
      if (!kb.error(ref.api, ref.code))
        throw InputError(fmt::format("{}: refers to {} error {}, which error_codes does not define", where,
                                     ref.api, ref.code));
    }
  };
  for (const auto& m : kb.mvc())
    for (const auto& l : m.limits) check_refs(l.errors, "minor_version_compat: limits." + l.id);
  for (const auto& r : kb.forward_compat().rules) check_refs(r.errors, "forward_compat: rules." + r.id);
}

}  // namespace

std::vector<EntryReader> table_array(const TableContext& t, std::string_view key) {
  std::vector<EntryReader> out;
  auto it = t.doc->find(key);
  if (it == t.doc->end()) return out;
  if (!it->is_array()) throw InputError(fmt::format("{}: \"{}\" must be an array", t.file, key));
  for (std::size_t i = 0; i < it->size(); ++i) out.emplace_back(t, (*it)[i], fmt::format("{}[{}]", key, i));
  return out;
}

const std::vector<std::string>& required_tables() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& d : table_defs()) v.emplace_back(d.name);
    return v;
  }();
  return names;
}

KnowledgeBase::KnowledgeBase(std::unique_ptr<Data> data) : d_(std::move(data)) {}
KnowledgeBase::KnowledgeBase(KnowledgeBase&&) noexcept = default;
KnowledgeBase& KnowledgeBase::operator=(KnowledgeBase&&) noexcept = default;
KnowledgeBase::~KnowledgeBase() = default;

KnowledgeBase KnowledgeBase::load_files(const std::vector<KbFile>& files, const std::string& origin) {
  auto d = std::make_unique<Data>();
  d->origin = origin;
  for (const auto& f : files) {
    auto name = stem_of(f.path);
    if (d->raw.count(name)) throw InputError(fmt::format("{}: table {} given twice", f.path, name));
    d->raw.emplace(name, parse_json(f));
    d->files.emplace(name, f.path);
  }
  for (const auto& def : table_defs()) {
    if (!d->raw.count(def.name))
      throw InputError(fmt::format(
          "{}: no {}.json (every knowledge-base table must be present; copy data/kb/ and edit it)", origin,
          def.name));
  }
  // Every file gets the shared checks, including tables this version has no builder for.
  for (const auto& [name, doc] : d->raw) {
    TableContext t = read_header(d->files.at(name), doc);
    auto def = std::find_if(table_defs().begin(), table_defs().end(),
                            [&](const TableDef& x) { return x.name == name; });
    if (def != table_defs().end() && def->build) def->build(t, *d);
  }
  KnowledgeBase kb(std::move(d));
  check_across_tables(kb);
  return kb;
}

KnowledgeBase KnowledgeBase::load_dir(const std::string& dir) {
  std::vector<KbFile> files;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot read the directory: {}", dir, ec.message()));
  for (const auto& entry : it) {
    if (entry.path().extension() != ".json") continue;
    // A FIFO or device named *.json is refused, never waited on; 16 MiB is
    // far above any table (the largest built-in one is ~200 KB).
    files.push_back(
        {entry.path().string(), read_input_bytes(entry.path().string(), 16u << 20, PipeInput::kRefused)});
  }
  // Directory order is arbitrary; messages should not be.
  std::sort(files.begin(), files.end(), [](const KbFile& a, const KbFile& b) { return a.path < b.path; });
  return load_files(files, dir);
}

const KnowledgeBase& KnowledgeBase::builtin() {
  // Never destroyed: freeing thousands of small strings at exit cost a report
  // ~1 ms for memory the process is about to give back anyway.
  static const KnowledgeBase* kb = new KnowledgeBase([] {
    std::vector<KbFile> files;
    for (const auto& f : embedded_files()) {
      if (f.path.rfind("data/kb/", 0) == 0 && f.path.size() > 5 &&
          f.path.substr(f.path.size() - 5) == ".json")
        files.push_back({std::string(f.path), std::string(f.bytes)});
    }
    try {
      return load_files(files, "built-in");
    } catch (const InputError& e) {
      // The embedded data is ours: tests keep it valid, so this is a bug, not bad input.
      throw std::logic_error(std::string("built-in knowledge base: ") + e.what());
    }
  }());
  return *kb;
}

const KnowledgeBase& active_kb(const GlobalOptions& global) {
  if (global.kb_dir.empty()) return KnowledgeBase::builtin();
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<KnowledgeBase>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = loaded[global.kb_dir];
  if (!slot) slot = std::make_unique<KnowledgeBase>(KnowledgeBase::load_dir(global.kb_dir));
  return *slot;
}

}  // namespace cudiag::kb
