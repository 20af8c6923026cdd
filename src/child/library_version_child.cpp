// Child probe "library": loads one CUDA library and calls the functions the
// catalog names for its version (cudnnGetVersion, ncclGetVersion, ...).
#include <cstddef>
#include <cstdint>

#include "child/child_probe.h"
#include "child/dl.h"
#include "model/library_catalog.h"

namespace cudiag::child {
namespace {

Json run_call(const Library& lib, const model::VersionCall& call) {
  Json rec = Json::object();
  switch (call.kind) {
    case model::VersionCallKind::kProperty: {
      auto fn = lib.symbol<int (*)(int, int*)>(call.symbol);
      if (fn == nullptr) return missing_symbol(call.symbol);
      int major = 0, minor = 0, patch = 0;
      int r = fn(0, &major);
      if (r == 0) r = fn(1, &minor);
      if (r == 0) r = fn(2, &patch);
      rec["result"] = r;
      if (r == 0) {
        rec["major"] = major;
        rec["minor"] = minor;
        rec["patch"] = patch;
      }
      return rec;
    }
    case model::VersionCallKind::kSizeNoArg: {
      auto fn = lib.symbol<std::size_t (*)()>(call.symbol);
      if (fn == nullptr) return missing_symbol(call.symbol);
      rec["result"] = 0;
      rec["value"] = fn();
      return rec;
    }
    case model::VersionCallKind::kIntOut: {
      auto fn = lib.symbol<int (*)(int*)>(call.symbol);
      if (fn == nullptr) return missing_symbol(call.symbol);
      int v = 0;
      int r = fn(&v);
      rec["result"] = r;
      if (r == 0) rec["value"] = v;
      return rec;
    }
    case model::VersionCallKind::kTwoIntOut: {
      auto fn = lib.symbol<int (*)(int*, int*)>(call.symbol);
      if (fn == nullptr) return missing_symbol(call.symbol);
      int major = 0, minor = 0;
      int r = fn(&major, &minor);
      rec["result"] = r;
      if (r == 0) {
        rec["major"] = major;
        rec["minor"] = minor;
      }
      return rec;
    }
    case model::VersionCallKind::kUint32Out: {
      auto fn = lib.symbol<int (*)(std::uint32_t*)>(call.symbol);
      if (fn == nullptr) return missing_symbol(call.symbol);
      std::uint32_t v = 0;
      int r = fn(&v);
      rec["result"] = r;
      if (r == 0) rec["value"] = v;
      return rec;
    }
    case model::VersionCallKind::kIntNoArg: {
      auto fn = lib.symbol<int (*)()>(call.symbol);
      if (fn == nullptr) return missing_symbol(call.symbol);
      rec["result"] = 0;
      rec["value"] = fn();
      return rec;
    }
  }
  return rec;
}

Json probe_library(const std::vector<std::string>& args) {
  if (args.size() < 2) throw std::runtime_error("library probe needs KIND PATH");
  const model::LibraryKind* kind = model::find_library_kind(args[0]);
  if (kind == nullptr) throw std::runtime_error("unknown library kind " + args[0]);
  Json out = Json::object();
  Stopwatch load_time;
  Library lib(args[1]);
  out["load_ms"] = load_time.ms();
  if (!lib.loaded()) {
    out["load_error"] = lib.error();
    return out;
  }
  out["loaded_path"] = lib.loaded_path();
  Json calls = Json::object();
  for (const auto& call : kind->calls) calls[call.symbol] = run_call(lib, call);
  out["calls"] = calls;
  return out;
}

const RegisterChildProbe kRegister{"library", probe_library};

}  // namespace
}  // namespace cudiag::child
