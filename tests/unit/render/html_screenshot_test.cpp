// The HTML report in a real browser: headless Chromium renders a fixture
// report to a PNG, and tests/render/png_colours.py checks the picture is the
// expected size, not blank, and shows the red (error) and green (ok) status
// boxes. Skips (ctest SKIP) only when Chromium is not installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "render/render.h"
#include "render_test_util.h"

namespace cudiag {
namespace {

using render_test::fixture_report;
using render_test::TempFile;

std::string find_chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (::access(p, X_OK) == 0) return p;
  }
  return "";
}

std::map<std::string, long> png_facts(const std::string& png) {
  auto r =
      machine_test::run_program({"/usr/bin/python3", std::string(CUDIAG_TEST_DIR) + "/render/png_colours.py",
                                 png, "c5221f", "1e7b34", "a15c00"},
                                300);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, long> facts;
  std::istringstream lines(r.out);
  std::string kind;
  while (lines >> kind) {
    if (kind == "size") {
      lines >> facts["width"] >> facts["height"];
    } else if (kind == "distinct") {
      lines >> facts["distinct"];
    } else if (kind == "near") {
      std::string colour;
      lines >> colour >> facts[colour];
    }
  }
  return facts;
}

TEST(HtmlScreenshot, ChromiumShowsTheColouredLayerStack) {
  auto chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  TempFile page("report.html", render::render_report(fixture_report("ngc-pytorch-driver-too-old.json"),
                                                     "html", render::RenderOptions{}));
  std::string png = page.dir() + "/shot.png";
  auto r = machine_test::run_program(
      {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
       "--disable-dev-shm-usage", "--user-data-dir=" + page.dir() + "/profile", "--screenshot=" + png,
       "--window-size=1200,1600", "file://" + page.path()},
      240);
  ASSERT_EQ(r.exit_code, 0) << machine_test::describe(r);
  ASSERT_TRUE(std::filesystem::exists(png)) << machine_test::describe(r);
  if (const char* keep = std::getenv("CUDIAG_KEEP_SCREENSHOT"); keep != nullptr && *keep != '\0') {
    std::filesystem::copy_file(png, keep, std::filesystem::copy_options::overwrite_existing);
  }
  auto facts = png_facts(png);
  EXPECT_EQ(facts["width"], 1200);
  EXPECT_EQ(facts["height"], 1600);
  EXPECT_GT(facts["distinct"], 50) << "the page looks blank";
  // Status badges and box borders: the error layers, the ok layers, the warning layer.
  EXPECT_GT(facts["c5221f"], 400) << "no red (error) boxes";
  EXPECT_GT(facts["1e7b34"], 400) << "no green (ok) boxes";
  EXPECT_GT(facts["a15c00"], 100) << "no amber (warning) box";
}

}  // namespace
}  // namespace cudiag
