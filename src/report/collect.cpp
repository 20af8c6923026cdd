#include "report/collect.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/build_info.h"
#include "core/fsroot.h"
#include "core/subprocess.h"
#include "core/utc_time.h"
#include "probes/layer_probe.h"
#include "probes/probe_registry.h"

namespace cudiag::report {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Json new_report() {
  Json report = Json::object();
  report["schema"] = kReportSchema;
  Json tool = Json::object();
  tool["name"] = "cudiag";
  tool["version"] = build_info::kVersion;
  tool["git_commit"] = build_info::kGitCommit;
  report["tool"] = tool;
  report["collected_at"] = utc_now();
  return report;
}

Json collect_report(const machine::Machine& machine) {
  auto start = std::chrono::steady_clock::now();
  const CollectOptions& options = machine.options;
  machine::LibrarySearch search(machine.root, machine.env);
  AnswerCache answers(options.answer_cache_dir);
  probes::ProbeContext ctx{machine, search, self_executable(), &answers};
  Json timings = Json::object();
  timings["search_ms"] = ms_since(start);

  // Children first, so they run while this process reads files (probes/probe_registry.h, the stages).
  std::vector<std::unique_ptr<probes::LayerProbe>> layers;
  for (const auto& def : probes::registered_layer_probes()) layers.push_back(def.make(options));
  probes::ChildBatch batch(ctx.self_exe, options.child_timeout);
  // The driver API's cuInit first (the longest call), then NVML; then the searches.
  std::vector<std::size_t> early(layers.size());
  for (std::size_t i = 0; i < early.size(); ++i) early[i] = i;
  std::stable_sort(early.begin(), early.end(), [](std::size_t a, std::size_t b) {
    return probes::registered_layer_probes()[a].start_early_rank <
           probes::registered_layer_probes()[b].start_early_rank;
  });
  for (auto i : early) layers[i]->start_early(ctx, batch);
  for (auto& l : layers) l->plan(ctx, batch);

  Json report = new_report();
  if (!machine.root.is_real_root()) report["root"] = machine.root.root();
  auto run_stage = [&](probes::ProbeStage stage) {
    for (const auto* p : probes::registered_probes(stage)) {
      if (p->enabled && !p->enabled(options)) continue;
      auto t = std::chrono::steady_clock::now();
      report[p->key] = p->run(ctx, options, report);
      if (p->timed) timings[p->key + "_ms"] = ms_since(t);
    }
  };
  run_stage(probes::ProbeStage::kEarly);
  auto t = std::chrono::steady_clock::now();
  for (auto& l : layers) l->read_files(ctx);
  timings["layer_files_ms"] = ms_since(t);
  run_stage(probes::ProbeStage::kWhileChildrenRun);

  if (options.while_children_run) {
    t = std::chrono::steady_clock::now();
    options.while_children_run();
    timings["while_children_run_ms"] = ms_since(t);
  }
  t = std::chrono::steady_clock::now();
  batch.wait();
  timings["children_wait_ms"] = ms_since(t);
  for (auto& l : layers) {
    t = std::chrono::steady_clock::now();
    report[l->layer()] = l->finish(ctx, batch, report);
    timings[fmt::format("{}_finish_ms", l->layer())] = ms_since(t);
  }
  run_stage(probes::ProbeStage::kAfterChildren);
  Json search_info = Json::object();
  search_info["ld_so_cache"] = Json::object();
  search_info["ld_so_cache"]["entries"] = search.ld_cache().entries.size();
  search_info["ld_so_cache"]["format"] = search.ld_cache().format;
  if (!search.ld_cache_error().empty()) search_info["ld_so_cache"]["error"] = search.ld_cache_error();
  Json dirs = Json::array();
  for (const auto& d : search.dirs()) {
    Json j = Json::object();
    j["path"] = d.path;
    j["via"] = d.via;
    dirs.push_back(j);
  }
  search_info["dirs"] = dirs;
  Json sp = Json::array();
  for (const auto& s : search.site_packages()) {
    Json j = Json::object();
    j["path"] = s.path;
    j["via"] = s.via;
    sp.push_back(j);
  }
  search_info["site_packages"] = sp;
  report["search"] = search_info;
  report["findings"] = Json::array();
  answers.save();
  timings["children"] = batch.timings();
  timings["answer_cache"] = answers.status();
  timings["total_ms"] = ms_since(start);
  report["timings"] = timings;
  return report;
}

}  // namespace cudiag::report
