// Layer 6, `libraries`: cuDNN, cuBLAS, NCCL, NVRTC, ... — every instance,
// each with the version its own function reports, and several versions of one
// library flagged.
//
// Where a version comes from, best first: the library's own answer remembered
// for this unchanged file (core/answer_cache.h); the NVIDIA wheel whose RECORD
// lists the file (machine/wheel_record.h), unless --confirm-versions asks the
// library itself; a child that loads the library and calls its function; the
// file's name.
#include <fmt/format.h>

#include <optional>
#include <set>

#include "core/fact.h"
#include "machine/wheel_record.h"
#include "probes/layer_probe.h"
#include "probes/library_catalog.h"

namespace cudiag::probes {
namespace {

class LibrariesProbe : public LayerProbe {
 public:
  explicit LibrariesProbe(const CollectOptions& options) : options_(options) {}
  const char* layer() const override { return "libraries"; }

  void plan(const ProbeContext& ctx, ChildBatch& batch) override {
    machine::WheelRecordIndex wheels(ctx.machine.root);
    for (const auto& kind : model::library_catalog()) {
      Entry e{&kind, ctx.search.find_all(kind.file_prefix), {}, {}, {}};
      for (const auto& inst : e.instances) {
        bool call = options_.library_calls && inst.error.empty();
        auto host = ctx.machine.root.host_path(inst.real_path);
        std::optional<Json> known =
            call && ctx.answers ? ctx.answers->find(cache_what(kind), host) : std::nullopt;
        std::optional<WheelVersion> wheel;
        if (call && !known && !options_.confirm_library_versions) wheel = wheel_version(wheels, kind, inst);
        e.remembered.push_back(known.value_or(Json()));
        e.wheel.push_back(wheel);
        e.tickets.push_back(call && !known && !wheel ? batch.add("library", {kind.key, host}) : kNone);
      }
      entries_.push_back(std::move(e));
    }
  }

  Json finish(const ProbeContext& ctx, const ChildBatch& batch, const Json&) override {
    Json layer = Json::object();
    for (const auto& e : entries_) {
      Json lib = Json::object();
      lib["name"] = e.kind->display;
      Json instances = Json::array();
      std::set<std::string> versions;
      for (std::size_t i = 0; i < e.instances.size(); ++i) {
        const auto& inst = e.instances[i];
        Json j = instance_json(inst, "");
        j.erase("picked_by_loader");
        if (e.tickets[i] != kNone || !e.remembered[i].is_null()) {
          const Json& answer = e.tickets[i] != kNone ? batch.result(e.tickets[i]) : e.remembered[i];
          auto failure = child_failure(answer);
          // Only a clean answer is worth remembering; a crash or timeout is asked again.
          if (failure.empty() && e.tickets[i] != kNone && ctx.answers)
            ctx.answers->remember(cache_what(*e.kind), ctx.machine.root.host_path(inst.real_path), answer);
          if (!failure.empty()) {
            j["version"] = unknown_fact(call_source(inst.real_path, "dlopen"), failure);
          } else {
            std::string how;
            auto v = model::decode_library_version(e.kind->key,
                                                   answer.contains("calls") ? answer["calls"] : Json(), &how);
            j["version"] = v.empty() ? unknown_fact(call_source(inst.real_path, e.kind->calls.front().symbol),
                                                    "no version function answered")
                                     : fact(v, call_source(inst.real_path, how));
            // The same call's answer on this unchanged file, made at this time.
            if (answer.contains("answered_at")) j["version"]["answered_at"] = answer["answered_at"];
          }
        } else if (e.wheel[i]) {
          const auto& w = *e.wheel[i];
          j["version"] = fact(w.version, file_source(w.owner.record_path));
          j["version"]["via"] = fmt::format(
              "wheel {} {}: its RECORD lists this file's {} ({}, the precision of {}; --confirm-versions "
              "asks the library itself)",
              w.owner.distribution, w.owner.version, w.owner.matched_by, w.version,
              e.kind->calls.front().symbol);
        } else if (!inst.file_version.empty()) {
          j["version"] = fact(inst.file_version, file_source(inst.real_path));
        } else {
          j["version"] =
              unknown_fact(file_source(inst.real_path), inst.error.empty() ? "not called" : inst.error);
        }
        if (fact_value(j["version"]).is_string())
          versions.insert(fact_value(j["version"]).get<std::string>());
        instances.push_back(j);
      }
      lib["instances"] = instances;
      lib["distinct_versions"] = Json(std::vector<std::string>(versions.begin(), versions.end()));
      lib["multiple_versions"] = versions.size() > 1;
      layer[e.kind->key] = lib;
    }
    return layer;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct WheelVersion {
    machine::WheelOwner owner;
    std::string version;  // the owner's version at the precision of the library's own function
  };
  struct Entry {
    const model::LibraryKind* kind;
    std::vector<machine::LibraryInstance> instances;
    std::vector<std::size_t> tickets;
    std::vector<Json> remembered;                    // a cached answer, or null
    std::vector<std::optional<WheelVersion>> wheel;  // the installing wheel's version, when used
  };
  static std::optional<WheelVersion> wheel_version(const machine::WheelRecordIndex& wheels,
                                                   const model::LibraryKind& kind,
                                                   const machine::LibraryInstance& inst) {
    if (kind.wheel_version_components == 0) return std::nullopt;
    auto owner = wheels.owner_of(inst.real_path);
    if (!owner) return std::nullopt;
    auto version = machine::leading_components(owner->version, kind.wheel_version_components);
    if (version.empty()) return std::nullopt;
    return WheelVersion{std::move(*owner), std::move(version)};
  }
  static std::string cache_what(const model::LibraryKind& kind) { return std::string("library ") + kind.key; }
  const CollectOptions& options_;
  std::vector<Entry> entries_;
};

}  // namespace

std::unique_ptr<LayerProbe> make_libraries_probe(const CollectOptions& options) {
  return std::make_unique<LibrariesProbe>(options);
}

namespace {
const RegisterLayerProbe kLibrariesProbe{{"libraries", 3, 3, make_libraries_probe}};
}  // namespace

}  // namespace cudiag::probes
