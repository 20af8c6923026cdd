// The reported failures explain compares a text with (explain/similar_reports.h):
// the terms, the index made from the corpora, the nearest reports and the
// verdict they give when nothing else answers. The small indexes are written
// here; the built-in one is the corpora's, checked against them.
#include "explain/similar_reports.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "explain/verdict.h"

namespace cudiag::explain {
namespace {

const kb::KnowledgeBase& kb() { return kb::KnowledgeBase::builtin(); }

Json corpus(const std::string& name) {
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/unit/explain/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

std::string joined(const std::vector<std::string>& terms) {
  std::string out;
  for (const auto& t : terms) out += (out.empty() ? "" : " ") + t;
  return out;
}

Json entry(const std::string& url, const std::string& layer, const std::string& terms) {
  return {{"url", url}, {"layer", layer}, {"fix", "fix of " + url}, {"terms", terms}};
}

TEST(SimilarReportsTest, TermsAreLowerCasedRunsThatStartWithALetterTrimmedOfDotsAndDashes) {
  EXPECT_EQ(joined(terms_of("ImportError: libcudnn_ops_infer.so.8: cannot open shared object file")),
            "importerror libcudnn_ops_infer.so.8 cannot open shared object file");
  // Short runs, numbers and what is not ASCII are no terms; a repeated term counts once.
  EXPECT_EQ(joined(terms_of("GPU 0: NVIDIA A100 -- 535.104.05 -- gpu ok é")), "gpu nvidia a100");
  EXPECT_EQ(joined(terms_of("...--gpus all. cu121.")), "gpus all cu121");
  EXPECT_TRUE(terms_of("").empty());
}

TEST(SimilarReportsTest, TheBuiltInIndexIsTheCorporaThreadsWithAConfirmedFix) {
  // scripts/gen_reported_failures.py makes the index; a corpus edited without it rerun fails here.
  std::multiset<std::string> expected;
  std::vector<std::string> files = {"pasted_cases.json"};
  for (int n = 1; n <= 999; ++n) {  // every numbered set the directory has
    auto name = n == 1 ? std::string("heldout_cases.json") : "heldout" + std::to_string(n) + "_cases.json";
    if (std::ifstream(std::string(CUDIAG_TEST_DIR) + "/unit/explain/" + name)) files.push_back(name);
  }
  for (const auto& f : files) {
    Json doc = corpus(f);
    const Json& cases = doc.is_object() ? doc["cases"] : doc;
    for (const auto& c : cases) {
      if (c.value("thread_says", "").empty()) continue;
      expected.insert(c["source"].get<std::string>() + "|" + c["expect_layer"].get<std::string>() + "|" +
                      c["thread_says"].get<std::string>() + "|" +
                      joined(terms_of(c["text"].get<std::string>())));
    }
  }
  std::ifstream in(std::string(CUDIAG_SOURCE_DIR) + "/data/reported/reported_failures.json",
                   std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::multiset<std::string> indexed;
  Json index = Json::parse(s.str());
  for (const auto& e : index["entries"])
    indexed.insert(e["url"].get<std::string>() + "|" + e["layer"].get<std::string>() + "|" +
                   e["fix"].get<std::string>() + "|" + e["terms"].get<std::string>());
  EXPECT_GT(expected.size(), 1000u);
  EXPECT_TRUE(indexed == expected) << "data/reported/reported_failures.json is stale: run "
                                      "scripts/gen_reported_failures.py";
  EXPECT_EQ(ReportIndex::builtin().size(), indexed.size());
}

TEST(SimilarReportsTest, RareSharedTermsWeighMoreThanCommonOnes) {
  Json doc = {
      {"entries",
       {entry("a", "libraries", "error cuda libcudnn_cnn_infer.so.8 missing"),
        entry("b", "driver_api", "error cuda driver insufficient"),
        entry("c", "host", "error cuda visible devices"), entry("d", "host", "error unrelated words")}}};
  ReportIndex index(doc, "test index");
  auto near = index.nearest("Error: CUDA: could not load libcudnn_cnn_infer.so.8", 5);
  ASSERT_GE(near.size(), 3u);
  EXPECT_EQ(near[0].url, "a");
  EXPECT_EQ(near[0].shared.front(), "libcudnn_cnn_infer.so.8");  // rarest first
  EXPECT_GT(near[0].similarity, near[1].similarity);
  EXPECT_LE(near[0].similarity, 1.0);
  // Nothing shared, nothing near.
  EXPECT_TRUE(index.nearest("segmentation fault in numpy", 5).empty());
  // A report left out (a corpus case scored without its own thread) never comes back.
  for (const auto& r : index.nearest("Error: CUDA: could not load libcudnn_cnn_infer.so.8", 5, "a"))
    EXPECT_NE(r.url, "a");
}

TEST(SimilarReportsTest, AMalformedIndexIsAnInputErrorNamingWhere) {
  EXPECT_THROW(ReportIndex(Json::array(), "x.json"), InputError);
  try {
    ReportIndex(Json{{"entries", {{{"url", "u"}, {"layer", "host"}, {"terms", "a b c"}}}}}, "x.json");
    FAIL() << "an entry without its fix was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.json: entries[0]: \"fix\""), std::string::npos) << e.what();
  }
}

TEST(SimilarReportsTest, TheLayerWithTheLargestSummedSimilarityAnswersAboveTheThreshold) {
  std::vector<SimilarReport> near = {{"u1", "libraries", "f1", 0.6, {}},
                                     {"u2", "frameworks", "f2", 0.5, {}},
                                     {"u3", "frameworks", "f3", 0.4, {}}};
  auto a = answer_from_similar(near);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->layer, "frameworks");  // 0.9 against 0.6
  EXPECT_EQ(a->report->url, "u2");
  EXPECT_EQ(a->agreeing, 2);
  near = {{"u1", "libraries", "f1", kMinShownSimilarity - 0.01, {}}};
  EXPECT_FALSE(answer_from_similar(near));
  EXPECT_FALSE(answer_from_similar({}));
}

TEST(SimilarReportsTest, SimilarReportsAnswerOnlyWhenNoMessageOrFactDoes) {
  std::vector<SimilarReport> near = {
      {"https://example.org/t/1", "container", "Ran it with --gpus all.", 0.7, {"x"}}};
  auto v = decide_or_guess("something odd happened in my pod", {}, Json::array(), kb(), near);
  EXPECT_EQ(v.from, "similar");
  EXPECT_EQ(v.layer, "container");
  EXPECT_EQ(v.fix, "Ran it with --gpus all.");
  ASSERT_EQ(v.sources.size(), 1u);
  EXPECT_EQ(v.sources[0].url, "https://example.org/t/1");
  Explanation e;
  e.id = "cuda-driver-insufficient";
  e.layer = "driver_api";
  e.title = "driver too old";
  EXPECT_EQ(decide_or_guess("whatever", {e}, Json::array(), kb(), near).from, "message");
  // A component named beside a failure (the word guess) answers before the reports: scored both
  // ways, the guess was right more often where both answered.
  EXPECT_EQ(decide_or_guess("onnxruntime falls back to the CPU: CUDAExecutionProvider is not available", {},
                            Json::array(), kb(), near)
                .from,
            "words");
}

TEST(SimilarReportsTest, AHealthyLogIsComparedWithNoReport) {
  // Words of many reports, but no failure: nothing to compare.
  EXPECT_TRUE(
      similar_reports_for("INFO torch 2.3.0+cu121 loaded, cudnn 8.9, NCCL 2.20, 8 GPUs\n", kb()).empty());
  EXPECT_FALSE(similar_reports_for(
                   "UNIMPLEMENTED: DNN library is not found. Loaded runtime CuDNN library: 8.0.5\n", kb())
                   .empty());
}

TEST(SimilarReportsTest, AReportedTextFindsItsOwnThreadFirst) {
  // Each corpus case is in the index: its own text must find it, which the
  // scoring then leaves out.
  Json doc = corpus("heldout86_cases.json");
  const auto& c = doc["cases"][0];
  auto text = c["text"].get<std::string>();
  auto near = ReportIndex::builtin().nearest(text, 3);
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0].url, c["source"].get<std::string>());
  EXPECT_GT(near[0].similarity, 0.99);
  for (const auto& r : ReportIndex::builtin().nearest(text, 3, c["source"].get<std::string>()))
    EXPECT_NE(r.url, c["source"].get<std::string>());
}

}  // namespace
}  // namespace cudiag::explain
