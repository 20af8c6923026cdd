// The per-GPU verdict on hand-made entry lists: which image the driver would
// use, and the reason a user reads when it cannot run.
#include "inspect/verdict.h"

#include <gtest/gtest.h>

#include <vector>

namespace cudiag::inspect {
namespace {

FatbinEntry sass(const char* arch) {
  FatbinEntry e;
  e.kind = EntryKind::kSass;
  e.arch = *parse_gpu_arch(arch);
  return e;
}

FatbinEntry ptx(const char* arch, PtxIsa isa) {
  FatbinEntry e;
  e.kind = EntryKind::kPtx;
  e.arch = *parse_gpu_arch(arch);
  e.version_major = static_cast<std::uint16_t>(isa.major);
  e.version_minor = static_cast<std::uint16_t>(isa.minor);
  return e;
}

GpuArch gpu(const char* name) { return *parse_gpu_arch(name); }

TEST(InspectVerdictTest, PicksTheClosestCompatibleSass) {
  std::vector<FatbinEntry> es{sass("sm_75"), sass("sm_80"), sass("sm_86"), sass("sm_90a")};
  auto v = verdict(es, gpu("sm_89"), std::nullopt);
  EXPECT_EQ(v.kind, VerdictKind::kNative);
  EXPECT_EQ(v.image, "sm_86");
  // sm_90a is pinned to 9.0 exactly: it is what an H100 runs.
  EXPECT_EQ(verdict(es, gpu("9.0"), std::nullopt).image, "sm_90a");
}

TEST(InspectVerdictTest, NoSassAndNoUsablePtxNamesTheMissingArch) {
  std::vector<FatbinEntry> es{sass("sm_75"), sass("sm_100"), ptx("compute_90a", {8, 0})};
  auto v = verdict(es, gpu("sm_120"), std::nullopt);
  EXPECT_EQ(v.kind, VerdictKind::kCannotRun);
  EXPECT_EQ(v.reason,
            "no SASS for sm_120 (only sm_75 sm_100) and PTX only for compute_90a (cannot be JIT-compiled for "
            "sm_120) (\"no kernel image is available for execution on the device\")");
  auto none = verdict(std::vector<FatbinEntry>{sass("sm_80")}, gpu("sm_90"), std::nullopt);
  EXPECT_EQ(none.reason,
            "no SASS for sm_90 (only sm_80) and no PTX to JIT-compile (\"no kernel image is available for "
            "execution on the device\")");
}

TEST(InspectVerdictTest, PtxJitNeedsADriverThatKnowsItsIsa) {
  std::vector<FatbinEntry> es{sass("sm_80"), ptx("compute_80", {8, 0}), ptx("compute_90", {9, 0})};
  // Unknown driver: JIT with the newest compatible PTX, and say what it needs.
  auto unknown = verdict(es, gpu("sm_120"), std::nullopt);
  EXPECT_EQ(unknown.kind, VerdictKind::kJit);
  EXPECT_EQ(unknown.image, "compute_90 (PTX ISA 9.0)");
  EXPECT_NE(unknown.reason.find("at first launch"), std::string::npos) << unknown.reason;
  EXPECT_NE(unknown.reason.find("needs a driver that supports that PTX ISA"), std::string::npos)
      << unknown.reason;
  // An R535 driver (PTX ISA 8.2) cannot JIT ISA 9.0, so it falls back to the older PTX.
  auto r535 = verdict(es, gpu("sm_120"), PtxIsa{8, 2});
  EXPECT_EQ(r535.kind, VerdictKind::kJit);
  EXPECT_EQ(r535.image, "compute_80 (PTX ISA 8.0)");
  // Only too-new PTX: cannot run, and the fix is a driver update.
  auto too_new = verdict(std::vector<FatbinEntry>{ptx("compute_90", {9, 0})}, gpu("sm_90"), PtxIsa{8, 2});
  EXPECT_EQ(too_new.kind, VerdictKind::kCannotRun);
  EXPECT_EQ(
      too_new.reason,
      "no SASS for sm_90 (none at all), and PTX compute_90 needs PTX ISA 9.0 but the driver supports only "
      "up to 8.2 (\"the provided PTX was compiled with an unsupported toolchain\"); update the driver");
}

TEST(InspectVerdictTest, LtoIrAloneIsNotLoadable) {
  FatbinEntry lto;
  lto.kind = EntryKind::kLtoIr;
  lto.arch = gpu("90");
  auto v = verdict(std::vector<FatbinEntry>{lto}, gpu("sm_90"), std::nullopt);
  EXPECT_EQ(v.kind, VerdictKind::kNoDeviceCode);
  EXPECT_NE(v.reason.find("LTO IR"), std::string::npos);
}

TEST(InspectVerdictTest, TheWorstModuleDecidesForAFile) {
  InspectResult r;
  r.blobs.resize(2);
  r.blobs[0].section = r.blobs[1].section = ".nv_fatbin";
  FatbinEntry a = sass("sm_90"), b = sass("sm_80");
  a.blob = 0;
  b.blob = 1;
  r.entries = {a, b};
  auto v = file_verdict(r, gpu("sm_90"), std::nullopt);
  EXPECT_EQ(v.kind, VerdictKind::kCannotRun);
  EXPECT_TRUE(v.reason.starts_with("1 of 2 CUDA modules cannot run: no SASS for sm_90 (only sm_80)"))
      << v.reason;
  EXPECT_EQ(file_verdict(r, gpu("sm_80"), std::nullopt).kind, VerdictKind::kCannotRun);
  EXPECT_EQ(file_verdict(r, gpu("sm_86"), std::nullopt).kind, VerdictKind::kCannotRun);
}

}  // namespace
}  // namespace cudiag::inspect
