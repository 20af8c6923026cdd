// `cudiag kb`: read the knowledge base. Each subcommand prints one answer,
// readable at 80 columns, or the same as JSON with --format json. A query the
// knowledge base cannot answer is bad input (exit 2) with a one-line message.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "core/errors.h"
#include "kb/json_out.h"
#include "kb/knowledge_base.h"
#include "render/kb_text.h"
#include "render/output.h"

namespace cudiag::cli {
namespace {

using kb::KnowledgeBase;

Version parse_version_arg(const std::string& text) {
  auto v = Version::parse(text);
  if (!v) throw InputError(fmt::format("{}: not a version", text));
  return *v;
}

struct KbOptions {
  std::string format = "text";
  bool json() const { return format == "json"; }
};

// Knowledge tables may come from --kb, a directory anyone can write: what
// they say passes the writer's redaction and escaping like any output.
void emit_json(const Json& j) { render::write_json_output(j, {}); }
void emit_text(const std::string& text) { render::write_output(text, render::OutputKind::kText, {}); }

// --- subcommands

int run_driver_for(const KnowledgeBase& k, const KbOptions& o, const std::string& version,
                   const std::string& os) {
  auto cuda = parse_version_arg(version);
  auto req = k.driver_for_cuda(cuda, os);
  if (!req) {
    // Unknown, said so: the nearest rows are shown as what they are, never as this release's answer.
    auto near = k.nearest_toolkit_releases(cuda);
    if (near.empty())
      throw InputError(fmt::format("CUDA {}: no such toolkit release in the knowledge base", version));
    if (o.json()) {
      Json j = Json::object();
      j["cuda"] = version;
      j["known"] = false;
      Json rows = Json::array();
      for (const auto* r : near) {
        if (auto n = k.driver_for_cuda(r->cuda, os)) rows.push_back(kb::to_json(*n));
      }
      j["nearest_known"] = rows;
      emit_json(j);
      return kExitErrorFinding;
    }
    emit_text(render::kb_driver_for_unknown_text(version, os, near));
    return kExitErrorFinding;
  }
  if (o.json()) {
    emit_json(kb::to_json(*req));
    return kExitOk;
  }
  emit_text(render::kb_driver_for_text(version, os, *req));
  return kExitOk;
}

int run_cuda_for_driver(const KnowledgeBase& k, const KbOptions& o, const std::string& version) {
  auto driver = parse_version_arg(version);
  auto m = k.branch_for_driver(driver);
  if (!m) throw InputError(fmt::format("{}: no driver branch this old in the knowledge base", version));
  if (o.json()) {
    Json j = kb::to_json(*m->branch, m->exact);
    j["driver"] = driver.text();
    emit_json(j);
    return kExitOk;
  }
  emit_text(render::kb_cuda_for_driver_text(driver, *m));
  return kExitOk;
}

int run_arch(const KnowledgeBase& k, const KbOptions& o, const std::string& query) {
  auto m = k.arch_match(query);
  if (!m) throw InputError(fmt::format("{}: no such architecture in the knowledge base", query));
  const auto& a = *m->arch;
  if (o.json()) {
    emit_json(kb::to_json(a, m->variant));
    return kExitOk;
  }
  emit_text(render::kb_arch_text(*m));
  return kExitOk;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

int run_error(const KnowledgeBase& k, const KbOptions& o, const std::string& query, const std::string& api) {
  std::vector<const kb::ErrorCode*> found;
  std::string q = query;
  bool negative = !q.empty() && q[0] == '-';
  if (all_digits(negative ? q.substr(1) : q)) {
    long code = std::stol(q);
    for (const auto* e : k.errors_with_code(code)) {
      if (api.empty() || e->api == api) found.push_back(e);
    }
  } else if (const auto* e = k.error_named(q); e && (api.empty() || e->api == api)) {
    found.push_back(e);
  }
  if (found.empty())
    throw InputError(
        fmt::format("{}: no such {}error code in the knowledge base", query, api.empty() ? "" : api + " "));
  if (o.json()) {
    Json a = Json::array();
    for (const auto* e : found) a.push_back(kb::to_json(*e));
    emit_json(a);
    return kExitOk;
  }
  emit_text(render::kb_errors_text(found));
  return kExitOk;
}

std::optional<unsigned> parse_pci_id(std::string s, bool require_prefix) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool prefixed = false;
  for (std::string_view p : {"10de:", "0x"}) {
    if (s.rfind(p, 0) == 0) {
      s.erase(0, p.size());
      prefixed = true;
    }
  }
  if ((require_prefix && !prefixed) || s.size() != 4 || !std::all_of(s.begin(), s.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c)) != 0;
      }))
    return std::nullopt;
  return static_cast<unsigned>(std::stoul(s, nullptr, 16));
}

int run_gpu(const KnowledgeBase& k, const KbOptions& o, const std::string& query) {
  std::vector<const kb::Gpu*> found;
  if (auto id = parse_pci_id(query, true)) {
    if (const auto* g = k.gpu_by_pci_id(*id)) found.push_back(g);
  } else {
    found = k.gpus_matching(query);
    // A bare "2684" is a name word first and a device id only when no name has it.
    if (found.empty()) {
      if (auto bare = parse_pci_id(query, false)) {
        if (const auto* g = k.gpu_by_pci_id(*bare)) found.push_back(g);
      }
    }
  }
  if (found.empty()) throw InputError(fmt::format("{}: no such GPU in the knowledge base", query));
  if (o.json()) {
    Json a = Json::array();
    for (const auto* g : found) a.push_back(kb::to_json(*g, k.arch_for_cc(g->cc)));
    emit_json(a);
    return kExitOk;
  }
  std::vector<std::pair<const kb::Gpu*, const kb::Arch*>> rows;
  for (const auto* g : found) rows.emplace_back(g, k.arch_for_cc(g->cc));
  emit_text(render::kb_gpus_text(rows));
  return kExitOk;
}

int run_ptx(const KnowledgeBase& k, const KbOptions& o, const std::string& isa_text,
            const std::string& cuda_text) {
  if (isa_text.empty() == cuda_text.empty())
    throw InputError("kb ptx: give either a PTX ISA version or --cuda X.Y");
  if (!cuda_text.empty()) {
    auto cuda = parse_version_arg(cuda_text);
    auto isa = k.ptx_isa_for_cuda(cuda);
    if (!isa)
      throw InputError(fmt::format("CUDA {}: no PTX ISA version for it in the knowledge base", cuda_text));
    const kb::PtxIsa* row = nullptr;
    for (const auto& p : k.ptx_isas()) {
      if (p.cuda.major() == cuda.major() && p.cuda.minor() == cuda.minor()) row = &p;
    }
    if (o.json()) {
      emit_json(kb::to_json(*row));
      return kExitOk;
    }
    emit_text(render::kb_ptx_of_cuda_text(*row, *isa));
    return kExitOk;
  }
  auto isa = parse_version_arg(isa_text);
  auto cuda = k.cuda_for_ptx_isa(isa);
  if (!cuda)
    throw InputError(fmt::format("PTX ISA {}: newer than any CUDA version in the knowledge base", isa_text));
  const kb::PtxIsa* row = nullptr;
  for (const auto& p : k.ptx_isas()) {
    if (p.cuda == *cuda) row = &p;
  }
  if (o.json()) {
    Json j = kb::to_json(*row);
    j["query_ptx_isa"] = isa.text();
    emit_json(j);
    return kExitOk;
  }
  emit_text(render::kb_cuda_of_ptx_text(*row, isa, *cuda));
  return kExitOk;
}

int run_tables(const KnowledgeBase& k, const KbOptions& o) {
  auto tables = k.tables();
  if (o.json()) {
    Json a = Json::array();
    for (const auto& t : tables) {
      a.push_back(Json{{"table", t.name},
                       {"file", t.file},
                       {"entries", t.entries},
                       {"description", t.description},
                       {"sources", kb::sources_json(t.sources)}});
    }
    emit_json(Json{{"origin", k.origin()}, {"tables", a}});
    return kExitOk;
  }
  emit_text(render::kb_tables_text(k.origin(), tables));
  return kExitOk;
}

int run_dump(const KnowledgeBase& k, const std::string& table) {
  emit_json(k.raw(table));
  return kExitOk;
}

const RegisterCommand kKb{
    {"kb", "Look up the compatibility knowledge base (drivers, architectures, errors, GPUs)", 60,
     [](CLI::App& sub, const GlobalOptions& global) -> CommandRun {
       auto o = std::make_shared<KbOptions>();
       sub.add_option("--format", o->format, "Output format")->check(CLI::IsMember({"text", "json"}));
       sub.require_subcommand(1);

       struct Args {
         std::string value, os = "linux", api, cuda;
       };
       auto args = std::make_shared<Args>();
       auto* driver_for = sub.add_subcommand("driver-for", "Minimum driver for a CUDA toolkit release");
       driver_for->add_option("version", args->value, "CUDA version: 12.8 or 12.8.1")->required();
       driver_for->add_option("--os", args->os, "linux or windows")
           ->check(CLI::IsMember({"linux", "windows"}));
       auto* cuda_for = sub.add_subcommand("cuda-for-driver", "CUDA version a driver supports");
       cuda_for->add_option("driver", args->value, "Driver version: 535.104.05")->required();
       auto* arch = sub.add_subcommand("arch", "A GPU architecture: sm_120, 12.0, sm_90a, compute_90");
       arch->add_option("sm", args->value, "sm_XX, compute_XX or X.Y")->required();
       auto* error = sub.add_subcommand("error", "A CUDA driver, runtime or NVML error code");
       error->add_option("code", args->value, "Number or name: 804, CUDA_ERROR_NO_DEVICE")->required();
       error->add_option("--api", args->api, "driver, runtime or nvml (default: all)")
           ->check(CLI::IsMember({"driver", "runtime", "nvml"}));
       auto* gpu = sub.add_subcommand("gpu", "A GPU by name or PCI device id");
       gpu->add_option("name", args->value, "\"RTX 4090\", 0x2684 or 10de:2684")->required();
       auto* ptx = sub.add_subcommand("ptx", "PTX ISA: the CUDA version that knows it, or --cuda X.Y");
       ptx->add_option("isa", args->value, "PTX ISA version: 8.4");
       ptx->add_option("--cuda", args->cuda, "CUDA version: which PTX ISA it generates");
       auto* tables = sub.add_subcommand("tables", "List the tables with entry counts and sources");
       auto* dump = sub.add_subcommand("dump", "Print one table as JSON");
       dump->add_option("table", args->value, "Table name (see kb tables)")->required();
       for (auto* s : {driver_for, cuda_for, arch, error, gpu, ptx, tables, dump}) s->fallthrough();

       return [&global, o, args, driver_for, cuda_for, arch, error, gpu, ptx, tables, dump]() -> int {
         const auto& k = kb::active_kb(global);
         if (driver_for->parsed()) return run_driver_for(k, *o, args->value, args->os);
         if (cuda_for->parsed()) return run_cuda_for_driver(k, *o, args->value);
         if (arch->parsed()) return run_arch(k, *o, args->value);
         if (error->parsed()) return run_error(k, *o, args->value, args->api);
         if (gpu->parsed()) return run_gpu(k, *o, args->value);
         if (ptx->parsed()) return run_ptx(k, *o, args->value, args->cuda);
         if (tables->parsed()) return run_tables(k, *o);
         if (dump->parsed()) return run_dump(k, args->value);
         return kExitBadInput;
       };
     }}};

}  // namespace
}  // namespace cudiag::cli
