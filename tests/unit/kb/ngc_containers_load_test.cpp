// The NGC container table is checked when a knowledge base loads: a --kb copy with a malformed release
// names the entry and the field, and a table cudiag accepted reads back without a silent gap.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "kb/knowledge_base.h"
#include "kb/ngc_containers.h"
#include "kb_test_util.h"

namespace cudiag::kb {
namespace {

std::string load_error_after(const std::string& name, const std::function<void(Json&)>& edit) {
  testing::KbCopy copy(name);
  Json doc = copy.read("ngc_containers");
  edit(doc);
  copy.write("ngc_containers", doc);
  return testing::load_error(copy);
}

TEST(NgcContainersLoadTest, AMalformedReleaseNamesItsEntryAndField) {
  auto bad_cuda = load_error_after("ngc-cuda", [](Json& d) { d["entries"][0]["cuda"] = "ten"; });
  EXPECT_NE(bad_cuda.find("ngc_containers"), std::string::npos) << bad_cuda;
  EXPECT_NE(bad_cuda.find("entries[0] (19.01)"), std::string::npos) << bad_cuda;
  EXPECT_NE(bad_cuda.find("cuda"), std::string::npos) << bad_cuda;

  auto bad_branch = load_error_after("ngc-branch", [](Json& d) { d["entries"][1]["driver_branch"] = "410"; });
  EXPECT_NE(bad_branch.find("driver_branch"), std::string::npos) << bad_branch;

  auto bad_release = load_error_after("ngc-release", [](Json& d) { d["entries"][2]["release"] = "2019-03"; });
  EXPECT_NE(bad_release.find("is not YY.MM"), std::string::npos) << bad_release;

  auto twice = load_error_after("ngc-twice", [](Json& d) { d["entries"].push_back(d["entries"][0]); });
  EXPECT_NE(twice.find("given twice"), std::string::npos) << twice;

  auto bad_min = load_error_after("ngc-min", [](Json& d) {
    d["entries"][0]["datacenter_branches"] = Json::array({{{"branch", 450}, {"min", "418.40"}}});
  });
  EXPECT_NE(bad_min.find("not of branch 450"), std::string::npos) << bad_min;

  EXPECT_EQ(load_error_after("ngc-same", [](Json&) {}), "");
}

TEST(NgcContainersLoadTest, EveryEntryOfTheBuiltinTableIsRead) {
  const auto& kb = KnowledgeBase::builtin();
  EXPECT_EQ(ngc_releases(kb).size(), kb.raw("ngc_containers")["entries"].size());
}

}  // namespace
}  // namespace cudiag::kb
