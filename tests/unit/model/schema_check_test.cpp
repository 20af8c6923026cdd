// The schema's type check that names a saved report's wrong field
// (model/schema_check.h): silent on real reports, exact on a swapped node.
#include "model/schema_check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/json.h"

namespace cudiag::model {
namespace {

Json saved_report() {
  // A real report of this machine's Debian 535 driver stack, as `cudiag report --format json` wrote it.
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/unit/explain/report_driver_535.json", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

TEST(SchemaCheck, ARealReportHasNoWrongField) { EXPECT_EQ(first_schema_type_mismatch(saved_report()), ""); }

TEST(SchemaCheck, ASwappedNodeIsNamedByItsPointer) {
  Json r = saved_report();
  r["host"]["os"] = "ubuntu";
  EXPECT_EQ(first_schema_type_mismatch(r), "/host/os: expected object, found string");
  r = saved_report();
  r["findings"] = Json::array({Json{{"id", 7}}});
  EXPECT_EQ(first_schema_type_mismatch(r), "/findings/0/id: expected string, found integer");
  r = saved_report();
  r["schema"] = "cudiag.report/9";
  EXPECT_EQ(first_schema_type_mismatch(r), "/schema: expected \"cudiag.report/1\"");
}

TEST(SchemaCheck, KeysWithSlashesAreEscapedInThePointer) {
  Json r = saved_report();
  r["host"]["environment"]["A/B~C"] = 5;  // additionalProperties: a fact
  EXPECT_EQ(first_schema_type_mismatch(r), "/host/environment/A~1B~0C: expected object, found integer");
}

TEST(SchemaCheck, AFactsValueIsUntypedAndAMissingFieldIsNoError) {
  Json r = saved_report();
  r["host"]["kernel_release"]["value"] = Json::array();
  r.erase("libraries");
  EXPECT_EQ(first_schema_type_mismatch(r), "");
}

}  // namespace
}  // namespace cudiag::model
