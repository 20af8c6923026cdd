#pragma once
// What every rule file needs to read a report without guessing: typed access
// to facts (a missing or null fact is "unknown", never a default), the driver
// the rules compare against, the GPUs as one list whatever layer saw them, the
// allowlisted environment, and a Finding's docs from knowledge-base provenance.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/version.h"
#include "kb/knowledge_base.h"
#include "model/facts.h"
#include "model/gpus.h"
#include "model/host_driver.h"
#include "rules/finding.h"
#include "rules/rule_table.h"

namespace cudiag::rules {

// Typed fact access lives in the report model (src/model/facts.h).
using model::bool_at;
using model::code_at;
using model::is_assumed;
using model::string_at;
using model::value_at;
using model::version_at;
// Every rule reads the report by path and walks the layers in order (model/report_path.h, model/layers.h).
using model::fact_at;
using model::layer_order;
// Whether `path` exists at all (a layer or fact that was collected, known or not).
bool present(const Json& report, const std::string& path);

// Evidence with an explicit value (for facts derived from the knowledge base or
// from an element of an array the report does not address by a fact path).
Evidence evidence(std::string fact, Json value, std::string source);

void add_docs(Finding& f, const std::vector<kb::Source>& sources);
void add_docs(Finding& f, const kb::Provenance& p);

// The driver the CUDA runtime talks to, and the GPUs whatever layer saw
// them: the report model's derived views (src/model/host_driver.h, gpus.h),
// with the knowledge base.
using HostDriver = model::HostDriver;
HostDriver host_driver(const Json& report, const kb::KnowledgeBase& kb);
// "535.104.05 (CUDA 12.2)" or "535.104.05" or "CUDA 12.2".
using model::describe;
void add_driver_evidence(Finding& f, const Json& report, const HostDriver& d);

using GpuView = model::GpuView;
std::vector<GpuView> gpus(const Json& report, const kb::KnowledgeBase& kb);
using model::gpu_count_known;
using model::gpus_known;

// host.environment.NAME: nullopt when unset; `env_collected` says whether the
// environment was read at all (absent from a partial report: nothing is known).
std::optional<std::string> env(const Json& report, const std::string& name);
bool env_collected(const Json& report);

bool is_wsl(const Json& report);
std::optional<std::string> container_kind(const Json& report);

// The directory part of a path and its file name.
std::string dir_of(const std::string& path);
std::string file_of(const std::string& path);
// "libcublas.so.12.4.5.8" -> 12 (the soname's major), nullopt if the name has none.
std::optional<long> soname_major(const std::string& file_name);

// The finding `id` as its rules table declares it (rules/rule_table.h): its layer, its severity, and its
// message and remediation templates filled with `args`; evidence and docs are added by the rule.
//   Finding f = finding("nvml.init_failed", {{"call", init->describe()}, {"meaning", meaning}});
// The severity argument is for an id whose table allows several ("error / warning") and must be one of
// them; the layer argument for one whose table says "*". A template placeholder that `args` does not
// fill, or an arg that neither template uses, is a programming error: std::logic_error, in every build
// (rule_table_test checks every call in src/ against its templates, so none reaches a user).
Finding finding(const std::string& id, std::vector<TemplateArg> args = {});
Finding finding(const std::string& id, Severity severity, std::vector<TemplateArg> args = {});
Finding finding(const std::string& id, std::string layer, Severity severity,
                std::vector<TemplateArg> args = {});
void add_doc(Finding& f, std::string url, std::string section);

// The outcome code of an API-call fact at `path` when the call did not
// succeed, with its name ("CUDA_ERROR_NO_DEVICE (100)"); nullopt when it
// succeeded or was never made.
struct CallFailure {
  long code = 0;
  std::string name;
  std::string describe() const;  // "CUDA_ERROR_NO_DEVICE (100)"
};
std::optional<CallFailure> failed_call(const Json& report, const std::string& path);
// Why a child that should have made a call gave no answer (timed out,
// crashed, could not load), or "" — from the fact's "error" field.
std::string fact_error(const Json& report, const std::string& path);

// A sentence without its final period, to embed in another sentence.
std::string sentence_body(std::string text);

// The branch number of a driver version (535.104.05 -> 535).
long branch_of(const Version& driver);
// The same, where Windows numbers a branch's drivers a little higher (582.66 and 581.57 are
// R580, 537.13 is R535): the nearest branch the knowledge base lists at or below the first number.
long branch_of(const Version& driver, const kb::KnowledgeBase& kb);

// The branch that first reports at least `cuda` (e.g. 12.8 -> R570), or nullopt.
std::optional<long> first_branch_for_cuda(const kb::KnowledgeBase& kb, const Version& cuda);

}  // namespace cudiag::rules
