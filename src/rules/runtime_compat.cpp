#include "rules/runtime_compat.h"

#include <fmt/format.h>

namespace cudiag::rules {

namespace {
constexpr long kInsufficientDriver = 35;

Version minor_of(const Version& v) { return Version::from_cuda_int(v.to_cuda_int()); }
}  // namespace

RuntimeCheck check_runtime_against_driver(const kb::KnowledgeBase& kb, const Version& runtime,
                                          const HostDriver& driver, const Json& report,
                                          const std::string& base) {
  RuntimeCheck c;
  c.requirement = kb.driver_for_cuda(minor_of(runtime));
  // What the runtime answered was answered to the driver that was there; an
  // --assume'd driver replaces that one, so the answer no longer applies.
  bool driver_assumed = !driver.version_fact.empty() && is_assumed(report, driver.version_fact);
  if (!base.empty() && !driver_assumed) {
    auto count = code_at(report, base + ".cudaGetDeviceCount");
    c.observed_insufficient = count && *count == kInsufficientDriver;
  }
  const Version want = minor_of(runtime);
  if (driver.cuda) {
    const Version have = minor_of(*driver.cuda);
    if (want <= have) {
      c.verdict = RuntimeVerdict::kCompatible;
    } else if (want.major() == have.major()) {
      const auto* mvc = kb.mvc_for_major(want.major());
      auto floor = mvc ? mvc->min_for("linux", want) : std::nullopt;
      // Without the driver's own version, the branch reporting this major is
      // at least the major's first branch, which is the MVC floor's branch.
      bool meets = floor && (!driver.version || *driver.version >= *floor);
      c.verdict = meets ? RuntimeVerdict::kMinorVersionCompat : RuntimeVerdict::kNeedsNewerDriver;
    } else {
      c.verdict = RuntimeVerdict::kNeedsNewerDriver;
    }
  } else if (driver.version && c.requirement) {
    if (c.requirement->full_min && *driver.version >= *c.requirement->full_min) {
      c.verdict = RuntimeVerdict::kCompatible;
    } else if (c.requirement->mvc_min && *driver.version >= *c.requirement->mvc_min) {
      c.verdict = RuntimeVerdict::kMinorVersionCompat;
    } else {
      c.verdict = RuntimeVerdict::kNeedsNewerDriver;
    }
  }
  // The runtime's own answer outranks the tables.
  if (c.observed_insufficient) c.verdict = RuntimeVerdict::kNeedsNewerDriver;
  return c;
}

std::string describe_minimum(const RuntimeCheck& c) {
  if (!c.requirement || !c.requirement->full_min) return "a newer driver";
  const auto& r = *c.requirement;
  if (r.mvc_min && *r.mvc_min < *r.full_min)
    return fmt::format("driver ≥ {} (≥ {} under minor-version compatibility)", r.full_min->text(),
                       r.mvc_min->text());
  return fmt::format("driver ≥ {}", r.full_min->text());
}

std::string remedy_for_newer_driver(const RuntimeCheck& c, const Version& runtime, const HostDriver& driver,
                                    bool forward_compat_possible) {
  std::string text;
  const auto* r = c.requirement ? &*c.requirement : nullptr;
  if (r && r->full_min && r->mvc_min && *r->mvc_min < *r->full_min) {
    text = fmt::format(
        "Install driver ≥ {} (≥ {} runs it under minor-version compatibility, without JIT of newer PTX)",
        r->full_min->text(), r->mvc_min->text());
  } else if (r && r->full_min) {
    text = fmt::format("Install driver ≥ {}", r->full_min->text());
  } else {
    text = fmt::format("Install a driver that supports CUDA {}", runtime.text());
  }
  if (driver.cuda) text += fmt::format(", or use a CUDA {}.x build of the software", driver.cuda->major());
  if (forward_compat_possible)
    text += fmt::format(", or, on a data-center GPU, the cuda-compat-{}-{} forward-compatibility package",
                        runtime.major(), runtime.minor());
  return text + ".";
}

std::string mvc_limits_text(const kb::KnowledgeBase& kb, const HostDriver& driver) {
  std::string isa;
  if (driver.cuda) {
    if (auto p = kb.ptx_isa_for_cuda(*driver.cuda)) isa = fmt::format(" newer than ISA {}", p->text());
  }
  return fmt::format(
      "PTX{} cannot be JIT-compiled (CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222), and APIs that need a newer "
      "driver "
      "return cudaErrorCallRequiresNewerDriver (36)",
      isa);
}

}  // namespace cudiag::rules
