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
#include "rules/finding.h"

namespace cudiag::rules {

// The value of the fact at `path` (a {"value": ...} object, or a bare value), or null.
const Json& value_at(const Json& report, const std::string& path);
std::optional<std::string> string_at(const Json& report, const std::string& path);
std::optional<Version> version_at(const Json& report, const std::string& path);
std::optional<bool> bool_at(const Json& report, const std::string& path);
// The numeric result code of an API call fact ({"value": name, "code": N}), or nullopt.
std::optional<long> code_at(const Json& report, const std::string& path);
// Whether the fact at `path` was overlaid by --assume (source "assume:…").
bool is_assumed(const Json& report, const std::string& path);
// Whether `path` exists at all (a layer or fact that was collected, known or not).
bool present(const Json& report, const std::string& path);

// Evidence with an explicit value (for facts derived from the knowledge base or
// from an element of an array the report does not address by a fact path).
Evidence evidence(std::string fact, Json value, std::string source);

void add_docs(Finding& f, const std::vector<kb::Source>& sources);
void add_docs(Finding& f, const kb::Provenance& p);

// The driver the CUDA runtime talks to. `version` follows the lead's order:
// the kernel module (/proc/driver/nvidia/version), else NVML's answer, else
// the file name of the libcuda the loader picks — except when that libcuda is
// a cuda-compat package, whose own version is then what a runtime sees.
struct HostDriver {
  std::optional<Version> version;
  std::string version_fact;
  // The newest CUDA version the driver supports (cuDriverGetVersion / NVML),
  // else the knowledge base's value for the driver's branch.
  std::optional<Version> cuda;
  std::string cuda_fact;  // "" when it came from the knowledge base
  bool forward_compat = false;
  std::optional<Version> kernel_module;  // kernel_driver.version alone
};
HostDriver host_driver(const Json& report, const kb::KnowledgeBase& kb);
// "535.104.05 (CUDA 12.2)" or "535.104.05" or "CUDA 12.2".
std::string describe(const HostDriver& d);
void add_driver_evidence(Finding& f, const Json& report, const HostDriver& d);

// One GPU, from whichever layer reported it (PCI, NVML, the driver API, or --assume).
struct GpuView {
  std::string label;   // "GeForce RTX 4090 (0000:01:00.0)", "sm_90 GPU"
  std::string fact;    // where in the report it comes from
  std::string source;  // that fact's source
  std::string name;
  std::string bus_id;
  std::optional<Version> cc;
  std::string segment;  // "datacenter", "consumer", "workstation", ... ("" unknown)
  std::string bound_driver;
  const kb::Gpu* kb_gpu = nullptr;
  const kb::Arch* arch = nullptr;
};
std::vector<GpuView> gpus(const Json& report, const kb::KnowledgeBase& kb);
// Whether the report says anything about the GPUs present (so an empty list means "none").
bool gpus_known(const Json& report);

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

// A finding with its fixed parts; evidence and docs are added by the rule.
Finding make_finding(std::string id, std::string layer, Severity severity, std::string message,
                     std::string remediation);
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

// The branch that first reports at least `cuda` (e.g. 12.8 -> R570), or nullopt.
std::optional<long> first_branch_for_cuda(const kb::KnowledgeBase& kb, const Version& cuda);

}  // namespace cudiag::rules
