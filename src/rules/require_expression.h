#pragma once
// NVIDIA_REQUIRE_* evaluated exactly as NVIDIA's two evaluators do.
//
// libnvidia-container (src/cli/dsl.c, src/cli/configure.c), the evaluator of
// the legacy hook path (`docker --gpus`, the runtime in legacy mode):
//   requirement := alternative (' ' alternative)*   split on ' ' only: OR
//   alternative := factor (',' factor)*             split on ',' only: AND
//   factor      := NAME OP VALUE, NAME cuda|driver|arch|brand in any case
// Lazy: the first alternative that holds ends the evaluation, the first
// false factor ends its alternative, and a malformed factor is an error only
// when evaluation reaches it. Versions are digits and dots, compared part by
// part; brand takes = and != only, case-insensitively. With no GPU selected,
// arch and brand hold.
//
// The toolkit's Go evaluator (internal/requirements/, CSV mode on Tegra):
// eager parse of every factor (a malformed value anywhere refuses the whole
// set), case-sensitive names, unknown names skipped, semver values, device 0
// only, `driver` never set and `brand` always "".
//
// Where cudiag does not know a value the runtime would read (a GPU's brand,
// say), both evaluate over every value that could change the answer; the
// result is decided only when all of them agree.
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudiag::rules {

enum class RequireOutcome { kSatisfied, kUnsatisfied, kInvalid };
const char* outcome_name(RequireOutcome o);  // "satisfied", "unsatisfied", "invalid"

// The host driver as the runtime reads it: nullopt where cudiag does not know.
struct RequireHost {
  std::optional<std::string> cuda;    // the host driver's CUDA version "12.2" (never a compat libcuda's)
  std::optional<std::string> driver;  // NVML's driver version "535.104.05"
};

// One selected GPU. `brands` lists the brand strings libnvidia-container
// could read for it (src/driver.c maps NVML's brand to Quadro, Tesla, NVS,
// GRID, GeForce, TITAN or Unknown); nullopt: any brand.
struct RequireGpu {
  std::optional<std::string> arch;  // compute capability "8.0"
  std::optional<std::vector<std::string>> brands;
};

struct RequireResult {
  std::set<RequireOutcome> possible;  // one element when decided
  std::string message;                // the runtime's own message, when decided and not satisfied
  std::string failed_requirement;     // which requirement failed, when decided and not satisfied
  std::vector<std::string> unknowns;  // unknown properties the verdict depends on ("brand")
  bool decided() const { return possible.size() == 1; }
  RequireOutcome outcome() const { return *possible.begin(); }
};

// libnvidia-container's `configure --require=R1 --require=R2 …`: every
// requirement for each selected GPU, or once with no device when `gpus` is
// empty. More than 32 requirements is an input error.
RequireResult evaluate_libnvc(const std::vector<std::string>& requirements, const RequireHost& host,
                              const std::vector<RequireGpu>& gpus);

// The Go evaluator of CSV mode: `cuda` is what cuDriverGetVersion of the
// runtime's libcuda reports, `arch` device 0's compute capability.
RequireResult evaluate_toolkit_go(const std::vector<std::string>& requirements,
                                  const std::optional<std::string>& cuda,
                                  const std::optional<std::string>& arch);

// Masterminds semver v3 NewVersion (coercing) as the toolkit vendors it.
bool go_semver_valid(const std::string& s);

// `s` cut at every `sep`, empty fields kept: strsep(3)'s and Go's strings.Split's
// semantics, which both evaluators and the image-environment readers follow
// ("a,,b" has an empty factor; a trailing "," an empty alternative).
std::vector<std::string> split_fields(const std::string& s, char sep);

}  // namespace cudiag::rules
