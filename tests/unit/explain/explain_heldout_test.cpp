// Accuracy of `cudiag explain` on real messages from public threads that were
// collected apart from the signature work: heldout_cases.json (2026-12-03),
// heldout2_cases.json (2026-12-04, since used as the development set of that
// day's signatures, so in-sample now) and heldout3_cases.json (2026-12-04,
// collected while the signatures were written and scored only afterwards; its
// misses have since been read) and heldout4_cases.json (2026-12-04, second
// session: its "after_first_round" figure was out-of-sample) and heldout5_cases.json (2026-12-05, the
// development set of that day, sampled as failures are reported). Each file's "measured" block records
// the figures before and after. The figures are printed so CI shows them; each test fails only when the layer
// accuracy drops below that file's floor, the figure of the code as it was before the signatures built from
// or alongside it.
#include <gtest/gtest.h>

#include "accuracy_scoring.h"

namespace cudiag::explain {
namespace {

void score_file(const char* name, const char* label, double layer_floor, bool pasted = false,
                std::size_t at_least = 30) {
  const Json doc = scoring::load(name);
  ASSERT_GE(doc["cases"].size(), at_least);  // a set too small to measure anything fails
  for (const auto& c : doc["cases"]) {
    EXPECT_EQ(c["source"].get<std::string>().rfind("https://", 0), 0u);
    EXPECT_FALSE(c.value("expect_remedy", "").empty());
  }
  scoring::Tally layer;
  double both = scoring::score(doc["cases"], pasted, label, &layer);
  double layer_share = static_cast<double>(layer.right) / std::max(1, layer.total);
  std::cout << fmt::format("{}: right layer {}/{} ({:.1f} %), right layer and remedy {:.1f} %\n", label,
                           layer.right, layer.total, 100.0 * layer_share, 100.0 * both);
  EXPECT_GE(layer_share, layer_floor);
}

// Floors: the layer accuracy measured on main before the signatures of the
// round each set belongs to (the files' "measured" blocks).
TEST(ExplainHeldoutTest, FirstSetStaysAboveItsMeasuredFloor) {
  score_file("heldout_cases.json", "held-out", 30.0 / 48);
}

TEST(ExplainHeldoutTest, SecondSetStaysAboveItsMeasuredFloor) {
  score_file("heldout2_cases.json", "held-out #2 (development set)", 10.0 / 60);
}

TEST(ExplainHeldoutTest, ThirdSetStaysAboveItsMeasuredFloor) {
  score_file("heldout3_cases.json", "held-out #3", 9.0 / 50);
}

TEST(ExplainHeldoutTest, FourthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout4_cases.json", "held-out #4", 21.0 / 46);
}

// Set #5 (2026-12-05) samples failures as people report them, environment
// lines included, and is scored the way `cudiag explain --file ISSUE.txt`
// reads a pasted issue.
TEST(ExplainHeldoutTest, FifthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout5_cases.json", "held-out #5 (development set, pasted)", 23.0 / 61, true);
}

// Set #6 (2026-12-05), collected beside #5 and scored out-of-sample once
// after #5's round (18 % right layer and remedy), then read.
TEST(ExplainHeldoutTest, SixthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout6_cases.json", "held-out #6 (pasted)", 17.0 / 50, true);
}

// Set #7 (2026-12-05), the day's second development set (out-of-sample 22 % before it was read).
TEST(ExplainHeldoutTest, SeventhSetStaysAboveItsMeasuredFloor) {
  score_file("heldout7_cases.json", "held-out #7 (development set, pasted)", 15.0 / 45, true);
}

// Set #8 (2026-12-05), the session's last out-of-sample set: 21/39 before and after the session's work.
TEST(ExplainHeldoutTest, EighthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout8_cases.json", "held-out #8 (pasted)", 24.0 / 39, true);
}

// Set #9 (2026-12-05, second session), a development set: 7/33 right layer and remedy before it was read.
TEST(ExplainHeldoutTest, NinthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout9_cases.json", "held-out #9 (development set, pasted)", 16.0 / 33, true);
}

// Set #10 (2026-12-05, second session), out-of-sample: 15/30 before and after the session's work.
TEST(ExplainHeldoutTest, TenthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout10_cases.json", "held-out #10 (pasted)", 17.0 / 30, true);
}

// Sets #11-#13 (2026-12-05, second session), out-of-sample: 19/82 right layer and remedy before the
// session's work, 23/82 after it. Smaller than the first sets: the search index is heavily mined.
TEST(ExplainHeldoutTest, EleventhToThirteenthSetsStayAboveTheirMeasuredFloors) {
  // Raised in the third session, after it read them (right layer 14/36, 19/24, 15/22).
  score_file("heldout11_cases.json", "held-out #11 (pasted)", 14.0 / 36, true, 20);
  score_file("heldout12_cases.json", "held-out #12 (pasted)", 19.0 / 24, true, 20);
  score_file("heldout13_cases.json", "held-out #13 (pasted)", 15.0 / 22, true, 20);
}

// Sets #14-#23 (2026-12-05, third session). #14, #18-#20 and #22 were development sets (scored once,
// then read); #15-#17, #21 and #23 stayed unseen. Out-of-sample, #15-#17 and #21-#23 gave 25/94 right
// layer and remedy with the session-start binary (87e4ab6) and 27/94 with ab481fb (each file's
// "measured" block). The floors are the right-layer counts at the end of the session.
TEST(ExplainHeldoutTest, FourteenthToTwentyThirdSetsStayAboveTheirMeasuredFloors) {
  score_file("heldout14_cases.json", "held-out #14 (development set, pasted)", 17.0 / 22, true, 10);
  score_file("heldout15_cases.json", "held-out #15 (pasted)", 7.0 / 15, true, 10);
  score_file("heldout16_cases.json", "held-out #16 (pasted)", 12.0 / 25, true, 10);
  score_file("heldout17_cases.json", "held-out #17 (pasted)", 7.0 / 17, true, 10);
  score_file("heldout18_cases.json", "held-out #18 (development set, pasted)", 12.0 / 16, true, 10);
  score_file("heldout19_cases.json", "held-out #19 (development set, pasted)", 6.0 / 17, true, 10);
  score_file("heldout20_cases.json", "held-out #20 (development set, pasted)", 10.0 / 17, true, 10);
  score_file("heldout21_cases.json", "held-out #21 (pasted)", 7.0 / 14, true, 10);
  score_file("heldout22_cases.json", "held-out #22 (development set, pasted)", 3.0 / 13, true, 10);
  score_file("heldout23_cases.json", "held-out #23 (pasted)", 2.0 / 10, true, 10);
}

// Sets #24-#32 (2026-12-05, fourth session). Each was scored once unseen (its "first_scored" block),
// then read as a development set: out-of-sample, the nine gave 44/153 right layer and remedy with
// the session-start binary (2379aa1) and 46/153 when first scored. The floors are the right-layer
// counts at the end of the session.
TEST(ExplainHeldoutTest, TwentyFourthToThirtySecondSetsStayAboveTheirMeasuredFloors) {
  score_file("heldout24_cases.json", "held-out #24 (development set, pasted)", 15.0 / 24, true, 9);
  score_file("heldout25_cases.json", "held-out #25 (development set, pasted)", 17.0 / 26, true, 9);
  score_file("heldout26_cases.json", "held-out #26 (development set, pasted)", 15.0 / 23, true, 9);
  score_file("heldout27_cases.json", "held-out #27 (development set, pasted)", 15.0 / 20, true, 9);
  score_file("heldout28_cases.json", "held-out #28 (development set, pasted)", 12.0 / 15, true, 9);
  score_file("heldout29_cases.json", "held-out #29 (development set, pasted)", 6.0 / 11, true, 9);
  score_file("heldout30_cases.json", "held-out #30 (development set, pasted)", 10.0 / 13, true, 9);
  score_file("heldout31_cases.json", "held-out #31 (development set, pasted)", 5.0 / 9, true, 9);
  score_file("heldout32_cases.json", "held-out #32 (development set, pasted)", 8.0 / 12, true, 9);
}

// Sets #33-#38 (2026-12-05, fourth session), the session's last. #33-#35 were scored once unseen and then
// read (their helpers' reports described the cases); #36-#38 stayed unseen to the end (their helpers
// reported only counts): 4/26 right layer and remedy with the session-start binary and at the end.
TEST(ExplainHeldoutTest, ThirtyThirdToThirtyEighthSetsStayAboveTheirMeasuredFloors) {
  score_file("heldout33_cases.json", "held-out #33 (development set, pasted)", 5.0 / 6, true, 3);
  score_file("heldout34_cases.json", "held-out #34 (development set, pasted)", 6.0 / 8, true, 3);
  score_file("heldout35_cases.json", "held-out #35 (development set, pasted)", 8.0 / 11, true, 3);
  score_file("heldout36_cases.json", "held-out #36 (pasted)", 1.0 / 3, true, 3);
  score_file("heldout37_cases.json", "held-out #37 (pasted)", 3.0 / 10, true, 3);
  score_file("heldout38_cases.json", "held-out #38 (pasted)", 2.0 / 13, true, 3);
}

}  // namespace
}  // namespace cudiag::explain
