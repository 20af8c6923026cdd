// `cudiag fleet`'s scan on small fleets made from real reports: the fixture
// GPU node (node-550), the fixture reports from public bug reports, and
// reports the built cudiag writes for the fixture machines (--root). Every
// expected count is computed here from those reports' own contents, not
// written down.
#include "workflow/fleet.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "kb/knowledge_base.h"
#include "workflow/fleet_extract.h"
#include "workflow_test_util.h"

namespace cudiag::workflow::testing {
namespace {

using fleet::Extract;
using fleet::Extractor;

const kb::KnowledgeBase& kb() { return kb::KnowledgeBase::builtin(); }

// A report cudiag writes for one of tests/fixtures/machines.
Json machine_report(const std::string& machine) {
  auto r = test_run::run_program({CUDIAG_BINARY, "--root",
                                  std::string(CUDIAG_TEST_DIR) + "/fixtures/machines/" + machine, "report",
                                  "--format", "json"});
  EXPECT_TRUE(r.json_ok()) << machine << ": " << r.err;
  return r.report;
}

std::vector<std::pair<std::string, Json>> real_reports() {
  std::vector<std::pair<std::string, Json>> out;
  out.emplace_back("node-550", fixture_report());
  for (const char* f : {"bare-metal-no-kernel-module.json", "ngc-pytorch-driver-too-old.json"})
    out.emplace_back(f, Json::parse(read_text(std::string(CUDIAG_TEST_DIR) + "/fixtures/reports/" + f)));
  for (const char* m : {"dgx-h100", "docker-nvidia", "docker-no-gpu", "wsl2"})
    out.emplace_back(m, machine_report(m));
  return out;
}

std::string extract_ok(Extractor& ex, const std::string& text, Extract& x) {
  std::string padded = text + std::string(64, '\0');
  return ex.extract(padded.data(), text.size(), padded.size(), x);
}

std::string compress_gzip(const std::string& in) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, static_cast<uLong>(in.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string compress_zstd(const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3));
  return out;
}

// The projection must carry everything read_stack() reads: a field that rule_support starts reading fails
// here.
TEST(FleetExtract, ProjectionGivesTheSameStackAsTheWholeReport) {
  Extractor ex;
  for (const auto& [name, report] : real_reports()) {
    Extract x;
    ASSERT_EQ(extract_ok(ex, report.dump(2), x), "") << name;
    Json projection = Json::parse(x.projection);
    Stack whole = read_stack(report, kb());
    Stack part = read_stack(projection, kb());
    ASSERT_EQ(whole.values.size(), part.values.size()) << name;
    for (std::size_t i = 0; i < whole.values.size(); ++i) {
      EXPECT_EQ(whole.values[i].key, part.values[i].key) << name;
      EXPECT_EQ(whole.values[i].values, part.values[i].values) << name << " " << whole.values[i].key;
    }
    ASSERT_EQ(whole.runtimes.size(), part.runtimes.size()) << name;
    for (std::size_t i = 0; i < whole.runtimes.size(); ++i) {
      EXPECT_EQ(whole.runtimes[i].version, part.runtimes[i].version) << name;
      EXPECT_EQ(whole.runtimes[i].path, part.runtimes[i].path) << name;
    }
    EXPECT_EQ(whole.frameworks_collected, part.frameworks_collected) << name;
    EXPECT_EQ(whole.kernel_test_collected, part.kernel_test_collected) << name;
    // Far smaller than the report: that is what makes it a cheap cache key.
    EXPECT_LT(x.projection.size() * 4, report.dump(2).size()) << name;
  }
}

TEST(FleetExtract, NoiseThatDiffersPerNodeLeavesTheProjectionAlone) {
  Extractor ex;
  Json a = fixture_report();
  Json b = a;
  b["collected_at"] = "2027-05-06T07:08:09Z";
  b["timings"]["total_ms"] = 987.5;
  b["kernel_driver"]["version"]["source"] = "file:/elsewhere";
  b["host"]["kernel_release"]["value"] = "6.1.0-9-amd64";
  Extract xa, xb;
  ASSERT_EQ(extract_ok(ex, a.dump(), xa), "");
  ASSERT_EQ(extract_ok(ex, b.dump(2), xb), "");
  EXPECT_EQ(xa.projection, xb.projection);
  b["kernel_driver"]["version"]["value"] = "535.104.05";
  ASSERT_EQ(extract_ok(ex, b.dump(), xb), "");
  EXPECT_NE(xa.projection, xb.projection);
}

TEST(FleetExtract, FindingsHostAndFirstFailingLayerAsSaved) {
  Extractor ex;
  Json r = Json::parse(
      read_text(std::string(CUDIAG_TEST_DIR) + "/fixtures/reports/ngc-pytorch-driver-too-old.json"));
  r["host"]["hostname"] = {{"value", "gpu-node-17"}, {"source", "call:gethostname"}};
  Extract x;
  ASSERT_EQ(extract_ok(ex, r.dump(), x), "");
  EXPECT_EQ(x.host, "gpu-node-17");
  EXPECT_TRUE(x.diagnosed);
  ASSERT_EQ(x.findings.size(), r["findings"].size());
  for (std::size_t i = 0; i < x.findings.size(); ++i) {
    EXPECT_EQ(x.findings[i].id, r["findings"][i]["id"]);
    EXPECT_EQ(x.findings[i].severity, r["findings"][i]["severity"]);
  }
  EXPECT_EQ(x.first_failing_layer, r.value("first_failing_layer", ""));
}

TEST(FleetExtract, MalformedInputIsAReasonNeverACrash) {
  Extractor ex;
  Extract x;
  std::string report = fixture_report().dump(2);
  EXPECT_NE(extract_ok(ex, report.substr(0, report.size() / 2), x).find("truncated"), std::string::npos);
  EXPECT_NE(extract_ok(ex, "", x).find("empty"), std::string::npos);
  EXPECT_NE(extract_ok(ex, "[1,2]", x).find("not a cudiag report"), std::string::npos);
  EXPECT_NE(extract_ok(ex, R"({"schema": "cudiag.lock/1"})", x).find("not a cudiag report"),
            std::string::npos);
  EXPECT_NE(extract_ok(ex, R"({"schema": 7})", x).find("not a cudiag report"), std::string::npos);
  std::string deep = R"({"schema": "cudiag.report/1", "frameworks": )" + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  EXPECT_NE(extract_ok(ex, deep, x).find("nested deeper"), std::string::npos);
  EXPECT_NE(extract_ok(ex, "{\"schema\": \"cudiag.report/1\", \"x\": \"\xff\xfe\"}", x).find("UTF-8"),
            std::string::npos);
  // Wrong types pass the parser; read_stack() meets them in the scan (see FleetScan.WrongTypes…).
  EXPECT_EQ(extract_ok(ex, R"({"schema": "cudiag.report/1", "libraries": 5, "findings": [1, {"id": 2}]})", x),
            "");
  EXPECT_TRUE(x.findings.empty());
}

class FleetScan : public ::testing::Test {
 protected:
  FleetScan() : dir_("fleet-scan") {}
  std::string put(const std::string& name, const std::string& bytes) {
    std::string p = dir_.path(name);
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    write_text(p, bytes);
    return p;
  }
  fleet::FleetResult scan(const std::vector<std::string>& args, const std::string& stdin_text = "",
                          const LockFile* lock = nullptr) {
    std::istringstream in(stdin_text);
    fleet::FleetOptions o;
    o.jobs = 2;
    o.lock = lock;
    return fleet::scan_fleet(fleet::expand_inputs(args, in), kb(), o);
  }
  ScratchDir dir_;
};

Json with_driver(Json r, const std::string& v) {
  r["kernel_driver"]["version"]["value"] = v;
  r["nvml"]["driver_version"]["value"] = v;
  return r;
}

Json named(Json r, const std::string& host) {
  r["host"]["hostname"] = {{"value", host}, {"source", "call:gethostname"}};
  return r;
}

TEST_F(FleetScan, GroupsOutliersFindingsAndUnreadableFiles) {
  Json node = fixture_report();
  Json old = Json::parse(
      read_text(std::string(CUDIAG_TEST_DIR) + "/fixtures/reports/ngc-pytorch-driver-too-old.json"));
  // 6 nodes of the fixture stack (two compressed), 3 with the driver moved, 2 of a different machine.
  // The .zst after the .gz once caught a decoder that, its output buffer filled exactly, called the
  // file truncated.
  for (int i = 0; i < 4; ++i)
    put(fmt::format("rack1/n{}.json", i), named(node, fmt::format("n{}", i)).dump(2));
  put("rack1/n4.json.gz", compress_gzip(named(node, "n4").dump(2)));
  put("rack2/n5.json.zst", compress_zstd(named(node, "n5").dump(2)));
  for (int i = 6; i < 9; ++i)
    put(fmt::format("rack2/n{}.json", i),
        named(with_driver(node, "535.104.05"), fmt::format("n{}", i)).dump());
  put("rack3/old-a.json", old.dump(2));
  put("rack3/old-b.json", old.dump());
  // Not reports: each listed with its reason, none fatal. notes.txt is not *.json: not even looked at.
  put("rack3/cut.json", node.dump(2).substr(0, 700));
  put("rack3/pod.json", R"({"apiVersion": "v1", "kind": "Pod"})");
  put("rack3/typed.json",
      R"({"schema": "cudiag.report/1", "kernel_driver": {"pci_devices": [{"kind": 5}]}})");
  put("rack3/cut.json.gz", compress_gzip(node.dump(2)).substr(0, 400));
  put("rack3/notes.txt", "hello");

  auto r = scan({dir_.path("")});
  EXPECT_EQ(r.files, 15u);
  EXPECT_EQ(r.reports, 11u);
  ASSERT_EQ(r.unreadable.size(), 4u);
  std::map<std::string, std::string> why;
  for (const auto& u : r.unreadable) why[std::filesystem::path(u.path).filename().string()] = u.reason;
  EXPECT_NE(why["cut.json"].find("truncated JSON"), std::string::npos) << why["cut.json"];
  EXPECT_NE(why["pod.json"].find("not a cudiag report"), std::string::npos);
  EXPECT_NE(why["typed.json"].find("unexpected type"), std::string::npos) << why["typed.json"];
  EXPECT_NE(why["cut.json.gz"].find("truncated gzip"), std::string::npos) << why["cut.json.gz"];

  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(r.groups[0].members.size(), 6u);
  EXPECT_EQ(r.groups[1].members.size(), 3u);
  EXPECT_EQ(r.groups[2].members.size(), 2u);
  std::vector<std::string> majority;
  for (auto m : r.groups[0].members) majority.push_back(r.names[m]);
  EXPECT_EQ(majority, (std::vector<std::string>{"n0", "n1", "n2", "n3", "n4", "n5"}));
  // The driver group differs in the driver alone, and the diff calls that a compatibility difference.
  ASSERT_EQ(r.groups[1].differs.size(), 1u);
  EXPECT_EQ(r.groups[1].differs[0].key, "driver");
  EXPECT_EQ(r.groups[1].differs[0].before, "550.54.15");
  EXPECT_EQ(r.groups[1].differs[0].after, "535.104.05");
  // The other machine's group: the stack differences `cudiag diff` lists, plus its container image
  // (which `diff` does not compare).
  auto d = diff_reports(node, old, kb());
  std::vector<std::string> from_diff, from_fleet;
  for (const auto& x : d.compatibility) {
    if (!x.key.starts_with("finding ") && x.key != "first_failing_layer") from_diff.push_back(x.key);
  }
  bool image = false;
  for (const auto& x : r.groups[2].differs) {
    if (x.key.starts_with("container.")) {
      image = image || (x.key == "container.image" && x.layer == "container");
    } else {
      from_fleet.push_back(x.key);
    }
  }
  std::sort(from_diff.begin(), from_diff.end());
  std::sort(from_fleet.begin(), from_fleet.end());
  EXPECT_EQ(from_fleet, from_diff);
  EXPECT_EQ(image, old.contains("container") && old["container"].contains("image"));
  EXPECT_FALSE(r.named_by_host[r.groups[2].members[0]]);  // no identity in it: named by its file

  // Findings: only the two old reports have any; each of its ids on exactly those 2 nodes.
  std::set<std::string> ids;
  for (const auto& f : old["findings"]) ids.insert(f["id"].get<std::string>());
  ASSERT_EQ(r.findings.size(), ids.size());
  for (const auto& f : r.findings) {
    EXPECT_TRUE(ids.count(f.id)) << f.id;
    EXPECT_EQ(f.members, r.groups[2].members) << f.id;
  }
  EXPECT_EQ(r.findings.front().severity, "error");  // errors first
  EXPECT_EQ(r.error_nodes(), 2u);
  ASSERT_EQ(r.first_failing.size(), 1u);
  EXPECT_EQ(r.first_failing[0].layer, old["first_failing_layer"].get<std::string>());
  EXPECT_EQ(r.exit_code(), 1);
}

TEST_F(FleetScan, OneCleanStackExitsZeroAndEachProblemMakesItOne) {
  Json node = fixture_report();
  for (int i = 0; i < 40; ++i)
    put(fmt::format("n{:02}.json", i), named(node, fmt::format("n{:02}", i)).dump());
  auto clean = scan({dir_.path("")});
  EXPECT_EQ(clean.reports, 40u);
  EXPECT_EQ(clean.groups.size(), 1u);
  EXPECT_EQ(clean.exit_code(), 0);
  put("zz-cut.json", node.dump().substr(0, 100));
  EXPECT_EQ(scan({dir_.path("")}).exit_code(), 1);  // a missing node's report is not a clean fleet
  std::filesystem::remove(dir_.path("zz-cut.json"));
  Json bad = node;
  bad["findings"] =
      Json::array({{{"id", "x.broken"}, {"layer", "host"}, {"severity", "error"}, {"message", "m"}}});
  put("zz-bad.json", bad.dump());
  auto one_error = scan({dir_.path("")});
  EXPECT_EQ(one_error.groups.size(), 1u);
  EXPECT_EQ(one_error.error_nodes(), 1u);
  EXPECT_EQ(one_error.exit_code(), 1);
}

TEST_F(FleetScan, WrongTypesAnywhereAreUnreadableNotACrash) {
  const char* cases[] = {
      R"({"schema": "cudiag.report/1", "cuda_runtime": {"runtimes": [{"runtime_version": "13.0", "real_path": 7}]}})",
      R"({"schema": "cudiag.report/1", "cuda_runtime": {"runtimes": [3]}})",
      R"({"schema": "cudiag.report/1", "kernel_driver": {"pci_devices": "none"}, "libraries": [1]})",
      R"({"schema": "cudiag.report/1", "frameworks": {"torch": {"version": {"value": [1]}}}})",
      R"({"schema": "cudiag.report/1", "kernel_test": {"passed": {"value": "yes"}}, "host": 3})",
  };
  int n = 0;
  for (const char* c : cases) put(fmt::format("c{}.json", n++), c);
  auto r = scan({dir_.path("")});
  EXPECT_EQ(r.files, 5u);
  EXPECT_EQ(r.reports + r.unreadable.size(), 5u);  // each one or the other, and no crash
}

TEST_F(FleetScan, StdinListsPathsAndAMissingOneIsListedNotFatal) {
  Json node = fixture_report();
  auto a = put("a.json", named(node, "a").dump());
  auto b = put("sub/b.json", named(node, "b").dump());
  auto r = scan({"-"}, a + "\n" + dir_.path("sub") + "\r\n\n" + dir_.path("gone.json") + "\n");
  EXPECT_EQ(r.reports, 2u);
  ASSERT_EQ(r.unreadable.size(), 1u);
  EXPECT_EQ(r.unreadable[0].path, dir_.path("gone.json"));
  // The same file named twice counts once.
  EXPECT_EQ(scan({a, a, dir_.path("")}).reports, 2u);
  // On the command line a missing path is the user's error.
  EXPECT_THROW(scan({dir_.path("gone.json")}), InputError);
}

TEST_F(FleetScan, DecompressionIsBounded) {
  std::string zeros(70u << 20, ' ');  // 70 MiB of whitespace: valid JSON padding, beyond the 64 MiB bound
  put("bomb.json.gz", compress_gzip("{" + zeros + "}"));
  put("bomb.json.zst", compress_zstd("{" + zeros + "}"));
  auto r = scan({dir_.path("")});
  ASSERT_EQ(r.unreadable.size(), 2u);
  for (const auto& u : r.unreadable)
    EXPECT_NE(u.reason.find("larger than 64 MiB"), std::string::npos) << u.reason;
}

TEST_F(FleetScan, LockDriftListsTheNodesLayerByLayer) {
  Json node = fixture_report();
  auto lock_text = run_cudiag("lock --report " + fixture_report_path() + " -o -");
  ASSERT_EQ(lock_text.exit_code, 0) << lock_text.err;
  LockFile lock = parse_lock(lock_text.out, "node.lock");
  for (int i = 0; i < 5; ++i) put(fmt::format("n{}.json", i), named(node, fmt::format("n{}", i)).dump());
  for (int i = 5; i < 7; ++i)
    put(fmt::format("n{}.json", i), named(with_driver(node, "570.86.10"), fmt::format("n{}", i)).dump());
  auto r = scan({dir_.path("")}, "", &lock);
  EXPECT_TRUE(r.lock_checked);
  ASSERT_EQ(r.drifted.size(), 2u);
  EXPECT_EQ(r.names[r.drifted[0]], "n5");
  EXPECT_EQ(r.names[r.drifted[1]], "n6");
  ASSERT_EQ(r.drift.size(), 1u);
  EXPECT_EQ(r.drift[0].layer, "kernel_driver");
  EXPECT_EQ(r.drift[0].key, "driver.version");
  EXPECT_EQ(r.drift[0].actual, "570.86.10");
  EXPECT_EQ(r.drift[0].members.size(), 2u);
  EXPECT_EQ(r.exit_code(), 1);
}

}  // namespace
}  // namespace cudiag::workflow::testing
