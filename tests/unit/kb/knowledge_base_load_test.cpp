// Loading a --kb directory: bad data is an InputError that names the file.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "kb_test_util.h"

namespace cudiag::kb {
namespace {

using testing::KbCopy;
using testing::load_error;

TEST(KnowledgeBaseLoadTest, UnmodifiedCopyLoadsLikeTheBuiltin) {
  KbCopy copy("same");
  auto kb = KnowledgeBase::load_dir(copy.dir());
  EXPECT_EQ(kb.origin(), copy.dir());
  EXPECT_EQ(kb.gpus().size(), KnowledgeBase::builtin().gpus().size());
  EXPECT_EQ(kb.driver_for_cuda(*Version::parse("12.4"))->full_min->text(), "550.54.14");
}

TEST(KnowledgeBaseLoadTest, MalformedJsonNamesTheFile) {
  KbCopy copy("malformed");
  copy.write("gpus", std::string("{\"table\": \"gpus\", "));
  auto msg = load_error(copy);
  EXPECT_NE(msg.find(copy.file("gpus").string()), std::string::npos) << msg;
  // A --kb table is untrusted input, read like a saved report (core/bounded_input.h).
  EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
}

TEST(KnowledgeBaseLoadTest, EntryWithoutSourceFails) {
  KbCopy copy("nosource");
  Json doc = copy.read("error_codes");
  doc["entries"][3].erase("source");
  copy.write("error_codes", doc);
  auto msg = load_error(copy);
  EXPECT_NE(msg.find("error_codes.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("entries[3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing source"), std::string::npos) << msg;
}

TEST(KnowledgeBaseLoadTest, SourceWithoutUrlOrUnknownIdFails) {
  KbCopy copy("badsource");
  Json doc = copy.read("ptx_isa");
  doc["entries"][0]["source"] = Json{{"section", "somewhere"}};
  copy.write("ptx_isa", doc);
  EXPECT_NE(load_error(copy).find("without a url"), std::string::npos);
  doc["entries"][0]["source"] = "no-such-id";
  copy.write("ptx_isa", doc);
  EXPECT_NE(load_error(copy).find("'no-such-id' is not defined"), std::string::npos);
}

TEST(KnowledgeBaseLoadTest, NestedArraysNeedSourcesToo) {
  KbCopy copy("limits");
  Json doc = copy.read("minor_version_compat");
  doc["limits"][0].erase("source");
  copy.write("minor_version_compat", doc);
  auto msg = load_error(copy);
  EXPECT_NE(msg.find("limits[0]"), std::string::npos) << msg;
}

TEST(KnowledgeBaseLoadTest, DuplicatesAndDisorderFail) {
  KbCopy copy("order");
  Json doc = copy.read("toolkit_drivers");
  std::swap(doc["entries"][10], doc["entries"][11]);
  copy.write("toolkit_drivers", doc);
  EXPECT_NE(load_error(copy).find("out of order"), std::string::npos);

  KbCopy fresh("dup");
  Json gpus = fresh.read("gpus");
  gpus["entries"].push_back(gpus["entries"][0]);
  fresh.write("gpus", gpus);
  EXPECT_NE(load_error(fresh).find("duplicate pci_id"), std::string::npos);
}

TEST(KnowledgeBaseLoadTest, WrongTypesAndBadValuesFail) {
  KbCopy copy("types");
  Json doc = copy.read("architectures");
  doc["entries"][0]["cc"] = 2.0;
  copy.write("architectures", doc);
  EXPECT_NE(load_error(copy).find("cc: expected a version string"), std::string::npos);

  KbCopy conf("confidence");
  Json br = conf.read("driver_branches");
  br["entries"][0]["confidence"] = "probably";
  conf.write("driver_branches", br);
  EXPECT_NE(load_error(conf).find("is not one of confirmed"), std::string::npos);

  KbCopy enc("encoding");
  Json e = enc.read("version_encodings");
  e["entries"][2]["example"]["version"] = "9.1.1";
  enc.write("version_encodings", e);
  EXPECT_NE(load_error(enc).find("decodes to 9.1.0"), std::string::npos);
}

TEST(KnowledgeBaseLoadTest, CrossTableReferencesAreChecked) {
  KbCopy copy("cross");
  Json doc = copy.read("gpus");
  doc["entries"][0]["cc"] = "4.0";
  copy.write("gpus", doc);
  EXPECT_NE(load_error(copy).find("not in architectures"), std::string::npos);
}

TEST(KnowledgeBaseLoadTest, MissingTableAndMismatchedNameFail) {
  KbCopy copy("missing");
  std::filesystem::remove(copy.file("gpus"));
  EXPECT_NE(load_error(copy).find("no gpus.json"), std::string::npos);

  KbCopy renamed("renamed");
  Json doc = renamed.read("ptx_isa");
  doc["table"] = "ptx";
  renamed.write("ptx_isa", doc);
  EXPECT_NE(load_error(renamed).find("\"table\" is 'ptx'"), std::string::npos);
}

TEST(KnowledgeBaseLoadTest, ExtraTablesGetTheGenericChecks) {
  // A table this version has no builder for (a future framework matrix) still needs sources.
  KbCopy copy("extra");
  Json t = {{"table", "framework_torch"},
            {"schema_version", 1},
            {"description", "d"},
            {"confidence", "confirmed"},
            {"sources", {{"s", {{"url", "https://example.org"}, {"section", "x"}}}}},
            {"entries", Json::array({Json{{"torch", "2.5"}, {"source", "s"}}})}};
  copy.write("framework_torch", t);
  auto kb = KnowledgeBase::load_dir(copy.dir());
  EXPECT_EQ(kb.raw("framework_torch")["entries"].size(), 1u);
  t["entries"].push_back(Json{{"torch", "2.6"}});
  copy.write("framework_torch", t);
  EXPECT_NE(load_error(copy).find("framework_torch.json"), std::string::npos);
}

TEST(KnowledgeBaseLoadTest, UnreadableDirectory) {
  try {
    KnowledgeBase::load_dir("/nonexistent/kb");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kb"), std::string::npos);
  }
}

}  // namespace
}  // namespace cudiag::kb
