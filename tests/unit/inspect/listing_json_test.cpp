// inspect::append_json writes `cudiag inspect --format json` without a Json
// tree. Its text must be what nlohmann's dump(2) prints for the same document
// nested `indent` deep (the layout the command printed before, and what a
// reader diffing two runs expects), valid JSON whatever bytes the file names
// hold, and carry every entry.
#include <gtest/gtest.h>

#include <string>

#include "core/json.h"
#include "inspect/inspect.h"
#include "inspect/listing.h"
#include "inspect_test_util.h"

namespace cudiag {
namespace {

using namespace inspect;

// nlohmann's own layout of `j`, nested `by` spaces deep.
std::string nlohmann_nested(const Json& j, int by) {
  std::string text = json_text(j, 2);
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out.append(static_cast<std::size_t>(by), ' ');
  }
  return out;
}

// Parses what append_json wrote and checks nlohmann would lay it out identically.
Json written(const InspectResult& r, int indent, const Json& extra = Json::object()) {
  std::string out = "prefix ";
  append_json(r, out, indent, extra);
  EXPECT_TRUE(out.starts_with("prefix ")) << "appends, never overwrites";
  std::string text = out.substr(7);
  Json j = Json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << text.substr(0, 2000);
  if (j.is_discarded()) return j;
  EXPECT_EQ(text, nlohmann_nested(j, indent));
  return j;
}

TEST(InspectJson, RealBinariesLaidOutAsNlohmannDoes) {
  for (const char* name :
       {"both", "libvariants.so", "rdc", "libkernels.a", "k.fatbin", "k_sm120.cubin", "lto.o"}) {
    std::string path = inspect_test::kernel(name);
    if (path.empty()) GTEST_SKIP() << "no nvcc at build time";
    auto r = inspect_file(path, InspectOptions{.read_payload_heads = true});
    ASSERT_TRUE(r.ok()) << r.error;
    Json extra = Json::object();
    extra["verdicts"] =
        Json::array({{{"gpu", "sm_120"}, {"verdict", "jit"}, {"image", "x"}, {"reason", "y"}}});
    for (int indent : {0, 4}) {
      Json j = written(r, indent, extra);
      ASSERT_TRUE(j.is_object()) << name;
      EXPECT_EQ(j["path"], path);
      ASSERT_EQ(j["entries"].size(), r.entries.size()) << name;
      ASSERT_EQ(j["modules"].size(), r.blobs.size()) << name;
      for (std::size_t i = 0; i < r.entries.size(); ++i) {
        EXPECT_EQ(j["entries"][i]["arch"], entry_arch_name(r.entries[i]));
        EXPECT_EQ(j["entries"][i]["offset"], r.entries[i].offset);
        EXPECT_EQ(j["entries"][i]["module"], r.entries[i].blob);
      }
      EXPECT_EQ(j["verdicts"][0]["verdict"], "jit");
    }
  }
}

TEST(InspectJson, AwkwardStringsStayValidJson) {
  InspectResult r;
  r.path = std::string(
      "/tmp/we\"ird\\name\twith\x01"
      "ctl and \xff\xfe bad utf-8 and caf\xc3\xa9");
  r.needed = {"libcudart.so.12", ""};
  r.error = r.path + ": truncated at offset 0x10";
  r.warnings = {"\x7f"};
  Json j = written(r, 2);
  ASSERT_TRUE(j.is_object());
  std::string path = j["path"].get<std::string>();
  EXPECT_NE(path.find("we\"ird\\name\twith\x01"
                      "ctl"),
            std::string::npos)
      << path;
  EXPECT_NE(path.find("\xef\xbf\xbd"), std::string::npos) << "invalid UTF-8 becomes U+FFFD: " << path;
  EXPECT_NE(path.find("caf\xc3\xa9"), std::string::npos) << "valid UTF-8 is kept: " << path;
  EXPECT_EQ(j["modules"], Json::array());
  EXPECT_EQ(j["entries"], Json::array());
  EXPECT_EQ(j["needed"], Json({"libcudart.so.12", ""}));
  EXPECT_FALSE(j.contains("soname"));
}

}  // namespace
}  // namespace cudiag
