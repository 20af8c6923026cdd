// The inspector on binaries this machine's nvcc built for known targets
// (tests/inspect/CMakeLists.txt lists each build's nvcc options). Expected
// values are the targets nvcc was asked for; the PTX `.version` and cubin ELF
// headers are read from the payloads themselves (--deep) and must agree with
// the fatbin headers.
#include <gtest/gtest.h>

#include <set>

#include "inspect/inspect.h"
#include "inspect_test_util.h"

namespace cudiag::inspect {
namespace {

using inspect_test::arches;
using S = std::set<std::string>;

InspectResult deep(const std::string& path) {
  InspectOptions o;
  o.read_payload_heads = true;
  auto r = inspect_file(path, o);
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  return r;
}

// Every SASS entry's own ELF header names the same SM; every PTX text
// declares the ISA and target the header records.
void expect_payloads_agree(const InspectResult& r) {
  for (const auto& e : r.entries) {
    if (e.kind == EntryKind::kSass) {
      ASSERT_TRUE(e.cubin) << r.path << " entry at " << e.offset;
      EXPECT_EQ(e.cubin->sm, e.arch.number());
      EXPECT_EQ(e.cubin->abi_version, 8) << "CUDA 13 nvcc writes ABI-8 cubins";
    } else if (e.kind == EntryKind::kPtx) {
      ASSERT_TRUE(e.ptx_text_version) << r.path << " entry at " << e.offset;
      EXPECT_EQ(*e.ptx_text_version, *e.ptx_isa());
      EXPECT_EQ(e.ptx_text_target, sm_name(e.arch));
    }
  }
}

TEST(InspectNvccTest, SassOnly) {
  CUDIAG_REQUIRE_KERNEL(path, "sass_only");
  auto r = deep(path);
  EXPECT_EQ(r.type, FileType::kElf);
  EXPECT_EQ(arches(r, EntryKind::kSass), (S{"sm_75", "sm_86"}));
  EXPECT_TRUE(arches(r, EntryKind::kPtx).empty());
  // The device-link blob, then the TU's blob, each with both cubins.
  ASSERT_EQ(r.blobs.size(), 2u);
  EXPECT_TRUE(r.blobs[0].device_link);
  EXPECT_FALSE(r.blobs[1].device_link);
  EXPECT_EQ(r.blobs[1].entry_count, 2u);
  expect_payloads_agree(r);
}

TEST(InspectNvccTest, PtxOnlyHasAnEmptyDeviceLinkBlob) {
  CUDIAG_REQUIRE_KERNEL(path, "ptx_only");
  auto r = deep(path);
  EXPECT_TRUE(arches(r, EntryKind::kSass).empty());
  EXPECT_EQ(arches(r, EntryKind::kPtx), (S{"compute_90"}));
  ASSERT_EQ(r.blobs.size(), 2u);
  EXPECT_EQ(r.blobs[0].entry_count, 0u);
  EXPECT_EQ(r.blobs[0].size, 16u);
  EXPECT_TRUE(r.blobs[0].device_link);
  expect_payloads_agree(r);
  EXPECT_EQ(r.entries[0].compression, Compression::kZstd) << "nvcc compresses PTX by default";
}

TEST(InspectNvccTest, SassAndPtx) {
  CUDIAG_REQUIRE_KERNEL(path, "both");
  auto r = deep(path);
  EXPECT_EQ(arches(r, EntryKind::kSass), (S{"sm_75", "sm_90"}));
  EXPECT_EQ(arches(r, EntryKind::kPtx), (S{"compute_90"}));
  expect_payloads_agree(r);
}

TEST(InspectNvccTest, ArchAndFamilySpecificVariantsInASharedLibrary) {
  CUDIAG_REQUIRE_KERNEL(path, "libvariants.so");
  auto r = deep(path);
  EXPECT_EQ(r.elf_type, 3);
  EXPECT_EQ(arches(r, EntryKind::kSass), (S{"sm_90a", "sm_100f"}));
  EXPECT_EQ(arches(r, EntryKind::kPtx), (S{"compute_100a", "compute_100f"}));
  // The PTX text carries the suffix too (".target sm_100f").
  expect_payloads_agree(r);
}

TEST(InspectNvccTest, RelocatableDeviceCode) {
  CUDIAG_REQUIRE_KERNEL(path, "rdc");
  auto r = deep(path);
  // Linked program: one sm_80 cubin. Inputs: per TU a relocatable sm_80 cubin and compute_90 PTX.
  EXPECT_EQ(arches(r, EntryKind::kSass, ".nv_fatbin"), (S{"sm_80"}));
  EXPECT_TRUE(arches(r, EntryKind::kPtx, ".nv_fatbin").empty());
  EXPECT_EQ(arches(r, EntryKind::kSass, "__nv_relfatbin"), (S{"sm_80"}));
  EXPECT_EQ(arches(r, EntryKind::kPtx, "__nv_relfatbin"), (S{"compute_90"}));
  std::size_t rel_blobs = 0;
  for (const auto& b : r.blobs) rel_blobs += b.section == "__nv_relfatbin";
  EXPECT_EQ(rel_blobs, 2u) << "one per translation unit";
  for (const auto& e : r.entries) {
    if (e.kind != EntryKind::kSass) continue;
    bool rel = r.blobs[e.blob].section == "__nv_relfatbin";
    EXPECT_EQ(e.cubin->elf_type, rel ? 1 : 2) << "ET_REL inputs, ET_EXEC linked code";
  }
  expect_payloads_agree(r);
}

TEST(InspectNvccTest, RdcObjectAndStaticArchive) {
  CUDIAG_REQUIRE_KERNEL(obj, "rdc_a.o");
  auto r = deep(obj);
  EXPECT_EQ(r.elf_type, 1);
  for (const auto& b : r.blobs) EXPECT_EQ(b.section, "__nv_relfatbin");
  EXPECT_EQ(arches(r, EntryKind::kSass), (S{"sm_80"}));
  EXPECT_EQ(arches(r, EntryKind::kPtx), (S{"compute_90"}));

  CUDIAG_REQUIRE_KERNEL(lib, "libkernels.a");
  auto a = deep(lib);
  EXPECT_EQ(a.type, FileType::kArchive);
  EXPECT_EQ(a.members, (std::vector<std::string>{"rdc_a.o", "rdc_b.o"}));
  std::set<std::string> members;
  for (const auto& b : a.blobs) members.insert(b.member);
  EXPECT_EQ(members, (S{"rdc_a.o", "rdc_b.o"}));
  expect_payloads_agree(a);
}

TEST(InspectNvccTest, DeviceLinkObject) {
  CUDIAG_REQUIRE_KERNEL(path, "dlink.o");
  auto r = deep(path);
  ASSERT_FALSE(r.blobs.empty());
  EXPECT_EQ(r.blobs[0].section, ".nv_fatbin");
  EXPECT_EQ(arches(r, EntryKind::kSass), (S{"sm_80"}));
  EXPECT_TRUE(arches(r, EntryKind::kPtx).empty());
  expect_payloads_agree(r);
}

TEST(InspectNvccTest, CompressionModes) {
  struct Case {
    const char* build;
    Compression expected;
  } cases[] = {
      {"zstd", Compression::kZstd}, {"lz4", Compression::kLz4}, {"uncompressed", Compression::kNone}};
  for (const auto& c : cases) {
    CUDIAG_REQUIRE_KERNEL(path, c.build);
    auto r = deep(path);
    ASSERT_FALSE(r.entries.empty()) << c.build;
    for (const auto& e : r.entries) {
      EXPECT_EQ(e.compression, c.expected) << c.build << " entry " << entry_arch_name(e);
      if (e.compression != Compression::kNone) {
        EXPECT_GT(e.compressed_size, 0u);
        EXPECT_LE(e.compressed_size, e.payload_size);
        EXPECT_GT(e.uncompressed_size, e.compressed_size);
      }
    }
    EXPECT_EQ(arches(r, EntryKind::kSass), (S{"sm_75", "sm_80"})) << c.build;
    EXPECT_EQ(arches(r, EntryKind::kPtx), (S{"compute_80"})) << c.build;
    expect_payloads_agree(r);
  }
}

TEST(InspectNvccTest, BareCubinFatbinAndLtoIr) {
  CUDIAG_REQUIRE_KERNEL(cubin, "k_sm120.cubin");
  auto c = deep(cubin);
  EXPECT_EQ(c.type, FileType::kCubin);
  ASSERT_EQ(c.entries.size(), 1u);
  EXPECT_EQ(entry_arch_name(c.entries[0]), "sm_120");
  EXPECT_EQ(c.entries[0].cubin->abi_version, 8);

  CUDIAG_REQUIRE_KERNEL(fatbin, "k.fatbin");
  auto f = deep(fatbin);
  EXPECT_EQ(f.type, FileType::kFatbin);
  EXPECT_EQ(arches(f, EntryKind::kSass), (S{"sm_75"}));
  EXPECT_EQ(arches(f, EntryKind::kPtx), (S{"compute_75"}));
  expect_payloads_agree(f);

  CUDIAG_REQUIRE_KERNEL(lto, "lto.o");
  auto l = deep(lto);
  ASSERT_EQ(l.entries.size(), 1u);
  EXPECT_EQ(l.entries[0].kind, EntryKind::kLtoIr);
  EXPECT_EQ(entry_arch_name(l.entries[0]), "lto_90");
}

}  // namespace
}  // namespace cudiag::inspect
