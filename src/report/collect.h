#pragma once
// Collection: runs every probe and assembles the report (schema
// "cudiag.report/1", see schema/report.schema.json). File-reading probes run
// in this process while the child probes, one per NVIDIA library instance,
// run in parallel beside them. Which probes run, in which stage, is
// probes/probe_registry.h.
#include "core/collect_options.h"
#include "core/json.h"
#include "machine/machine.h"

namespace cudiag::report {

inline constexpr const char* kReportSchema = "cudiag.report/1";

// The machine the command opened (machine/machine.h), with its options
// (CollectOptions and ErrorNamer: core/collect_options.h).
Json collect_report(const machine::Machine& machine);

// The report skeleton every producer shares: schema, tool, collected_at.
Json new_report();

}  // namespace cudiag::report
