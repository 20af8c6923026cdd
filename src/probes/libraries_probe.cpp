// Layer 6, `libraries`: cuDNN, cuBLAS, NCCL, NVRTC, ... — every instance,
// each with the version its own function reports, and several versions of one
// library flagged.
#include <optional>
#include <set>

#include "core/fact.h"
#include "probes/layer_probe.h"
#include "probes/library_catalog.h"

namespace cudiag {
namespace {

class LibrariesProbe : public LayerProbe {
 public:
  explicit LibrariesProbe(const CollectOptions& options) : options_(options) {}
  const char* layer() const override { return "libraries"; }

  void plan(const ProbeContext& ctx, ChildBatch& batch) override {
    for (const auto& kind : library_catalog()) {
      Entry e{&kind, ctx.search.find_all(kind.file_prefix), {}, {}};
      for (const auto& inst : e.instances) {
        bool call = options_.library_calls && inst.error.empty();
        auto host = ctx.root.host_path(inst.real_path);
        std::optional<Json> known =
            call && ctx.answers ? ctx.answers->find(cache_what(kind), host) : std::nullopt;
        e.remembered.push_back(known.value_or(Json()));
        e.tickets.push_back(call && !known ? batch.add("library", {kind.key, host}) : kNone);
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
            ctx.answers->remember(cache_what(*e.kind), ctx.root.host_path(inst.real_path), answer);
          if (!failure.empty()) {
            j["version"] = unknown_fact(call_source(inst.real_path, "dlopen"), failure);
          } else {
            std::string how;
            auto v = decode_library_version(e.kind->key, answer.contains("calls") ? answer["calls"] : Json(),
                                            &how);
            j["version"] = v.empty() ? unknown_fact(call_source(inst.real_path, e.kind->calls.front().symbol),
                                                    "no version function answered")
                                     : fact(v, call_source(inst.real_path, how));
            // The same call's answer on this unchanged file, made at this time.
            if (answer.contains("answered_at")) j["version"]["answered_at"] = answer["answered_at"];
          }
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
  struct Entry {
    const LibraryKind* kind;
    std::vector<LibraryInstance> instances;
    std::vector<std::size_t> tickets;
    std::vector<Json> remembered;  // a cached answer, or null
  };
  static std::string cache_what(const LibraryKind& kind) { return std::string("library ") + kind.key; }
  const CollectOptions& options_;
  std::vector<Entry> entries_;
};

}  // namespace

std::unique_ptr<LayerProbe> make_libraries_probe(const CollectOptions& options) {
  return std::make_unique<LibrariesProbe>(options);
}

}  // namespace cudiag
