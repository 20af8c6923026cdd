// The knowledge base against the dated snapshot of NVIDIA's tables it
// follows (tests/kb-snapshot/). A new CUDA release is a row added to the
// snapshot from NVIDIA's page, then a data change in data/kb/ until this
// test passes again (docs/knowledge-base.md, "Adding a CUDA release").
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/json.h"
#include "kb/knowledge_base.h"

namespace cudiag {
namespace {

Json snapshot() {
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/kb-snapshot/nvidia-tables-2026-12-03.json");
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

const kb::KnowledgeBase& k() { return kb::KnowledgeBase::builtin(); }

TEST(KbFreshness, SnapshotNamesItsSources) {
  Json snap = snapshot();
  EXPECT_EQ(snap["date"], "2026-12-03");
  for (const auto& [name, table] : snap["tables"].items()) {
    EXPECT_TRUE(table["url"].get<std::string>().starts_with("https://docs.nvidia.com/")) << name;
    EXPECT_FALSE(table["rows"].empty()) << name;
  }
}

TEST(KbFreshness, EveryToolkitReleaseAndMinimumDriverMatches) {
  Json rows = snapshot()["tables"]["toolkit_driver"]["rows"];
  std::set<std::string> in_snapshot;
  for (const auto& row : rows) {
    auto cuda = *Version::parse(row["cuda"].get<std::string>());
    in_snapshot.insert(cuda.text());
    const kb::ToolkitRelease* found = nullptr;
    for (const auto& r : k().toolkit_releases()) {
      if (r.cuda == cuda && r.cuda.parts().size() == cuda.parts().size()) found = &r;
    }
    ASSERT_NE(found, nullptr) << "CUDA " << cuda.text() << " (" << row["release"]
                              << ") is missing from the KB";
    const auto& linux_col = found->for_os("linux");
    if (row["linux_min"].is_null()) {
      EXPECT_TRUE(!linux_col.min || linux_col.min_from == "bundled")
          << cuda.text() << ": the snapshot has no Table 3 value, the KB claims " << linux_col.min->text();
    } else {
      ASSERT_TRUE(linux_col.min.has_value()) << cuda.text() << ": no Linux minimum in the KB";
      EXPECT_EQ(linux_col.min->text(), row["linux_min"].get<std::string>()) << "CUDA " << cuda.text();
      EXPECT_NE(linux_col.min_from, "bundled")
          << cuda.text() << ": Table 3 has it, the KB still marks it bundled-only";
    }
  }
  for (const auto& r : k().toolkit_releases())
    EXPECT_TRUE(in_snapshot.contains(r.cuda.text()))
        << "CUDA " << r.cuda.text() << " is in the KB but not the snapshot";
}

TEST(KbFreshness, DriverBranchesReportTheSnapshotsCudaVersion) {
  // Held in a variable: a range-for over a temporary's member reads freed memory.
  const Json rows = snapshot()["tables"]["driver_branch_cuda"]["rows"];
  for (const auto& row : rows) {
    auto branch = row["branch"].get<long>();
    auto cuda = k().cuda_for_driver(*Version::parse(std::to_string(branch) + ".0"));
    ASSERT_TRUE(cuda.has_value()) << "R" << branch;
    EXPECT_EQ(cuda->text(), row["cuda"].get<std::string>()) << "R" << branch;
  }
}

TEST(KbFreshness, PtxIsaPerCudaMatches) {
  const Json rows = snapshot()["tables"]["ptx_isa"]["rows"];
  for (const auto& row : rows) {
    auto isa = k().ptx_isa_for_cuda(*Version::parse(row["cuda"].get<std::string>()));
    ASSERT_TRUE(isa.has_value()) << "CUDA " << row["cuda"];
    EXPECT_EQ(isa->text(), row["ptx_isa"].get<std::string>()) << "CUDA " << row["cuda"];
  }
}

}  // namespace
}  // namespace cudiag
