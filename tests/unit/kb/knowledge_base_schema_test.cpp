// The knowledge base as data: every table loads, every entry of every table
// has a source with a URL, keys are unique and ordered tables are in order.
// These tests read the JSON directly, independently of the loader's checks,
// so a loader bug cannot hide bad data.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "core/embedded.h"
#include "core/version.h"
#include "kb/knowledge_base.h"
#include "kb_test_util.h"

namespace cudiag::kb {
namespace {

Json embedded_table(const std::string& name) {
  const auto* f = find_embedded("data/kb/" + name + ".json");
  if (!f) throw std::runtime_error("not embedded: " + name);
  return Json::parse(f->bytes);
}

Version v(const Json& j) { return *Version::parse(j.get<std::string>()); }

TEST(KnowledgeBaseSchemaTest, BuiltinLoadsAndHasEveryTable) {
  const auto& kb = KnowledgeBase::builtin();
  auto tables = kb.tables();
  ASSERT_EQ(tables.size(), required_tables().size());
  for (const auto& t : tables) {
    EXPECT_GT(t.entries, 0u) << t.name;
    EXPECT_FALSE(t.sources.empty()) << t.name;
  }
}

TEST(KnowledgeBaseSchemaTest, EveryEntryOfEveryArrayHasAResolvableSourceWithUrl) {
  for (const auto& name : required_tables()) {
    Json doc = embedded_table(name);
    ASSERT_TRUE(doc["sources"].is_object()) << name;
    for (const auto& [id, s] : doc["sources"].items()) {
      EXPECT_EQ(s["url"].get<std::string>().rfind("https://", 0), 0u) << name << " " << id;
      EXPECT_FALSE(s["section"].get<std::string>().empty()) << name << " " << id;
    }
    for (const auto& [key, arr] : doc.items()) {
      if (!arr.is_array()) continue;
      for (const auto& e : arr) {
        ASSERT_TRUE(e.contains("source")) << name << "." << key << ": " << e.dump();
        Json refs = e["source"].is_array() ? e["source"] : Json::array({e["source"]});
        ASSERT_FALSE(refs.empty()) << name;
        for (const auto& r : refs) {
          if (r.is_string()) {
            EXPECT_TRUE(doc["sources"].contains(r.get<std::string>())) << name << ": unknown source " << r;
          } else {
            EXPECT_TRUE(r.contains("url") && r.contains("section")) << name << ": " << r.dump();
          }
        }
      }
    }
  }
}

TEST(KnowledgeBaseSchemaTest, ConfidenceValuesAreKnown) {
  const std::set<std::string> allowed = {"confirmed", "single-source", "unconfirmed", "disputed"};
  std::function<void(const Json&, const std::string&)> walk = [&](const Json& j, const std::string& where) {
    if (j.is_object()) {
      for (const auto& [k, val] : j.items()) {
        if ((k == "confidence" || k == "windows_confidence") && val.is_string()) {
          EXPECT_TRUE(allowed.count(val.get<std::string>())) << where << "." << k << " = " << val;
        }
        walk(val, where + "." + k);
      }
    } else if (j.is_array()) {
      for (const auto& e : j) walk(e, where);
    }
  };
  for (const auto& name : required_tables()) walk(embedded_table(name), name);
}

TEST(KnowledgeBaseSchemaTest, ToolkitsAscendAndMinimumsNeverDropWithinAMajor) {
  Json doc = embedded_table("toolkit_drivers");
  std::set<std::string> seen;
  std::optional<Version> prev;
  std::optional<Version> prev_linux, prev_windows;
  for (const auto& e : doc["entries"]) {
    ASSERT_TRUE(e["cuda"].is_string() && e["release"].is_string() && e["linux"].is_object() &&
                e["windows"].is_object())
        << e.dump();
    Version cuda = v(e["cuda"]);
    EXPECT_TRUE(seen.insert(cuda.text()).second) << "duplicate " << cuda.text();
    if (prev && prev->major() != cuda.major()) prev_linux = prev_windows = std::nullopt;
    if (prev) {
      EXPECT_LT(*prev, cuda);
    }
    if (!e["linux"].contains("min")) {  // 13.4+: no bundled driver and Table 3 not read
      EXPECT_EQ(e["linux"].value("confidence", ""), "unconfirmed") << cuda.text();
      prev = cuda;
      continue;
    }
    Version lmin = v(e["linux"]["min"]);
    if (prev_linux) {
      EXPECT_LE(*prev_linux, lmin) << cuda.text();
    }
    prev_linux = lmin;
    if (e["windows"].contains("min")) {
      Version wmin = v(e["windows"]["min"]);
      if (prev_windows) {
        EXPECT_LE(*prev_windows, wmin) << cuda.text();
      }
      prev_windows = wmin;
    }
    prev = cuda;
  }
  // Every release 9.0 ... 13.x with its updates: the GA of each minor is there.
  for (const char* minor : {"9.0",  "9.1",  "9.2",  "10.0", "10.1", "10.2", "11.0", "11.1", "11.2",
                            "11.3", "11.4", "11.5", "11.6", "11.7", "11.8", "12.0", "12.1", "12.2",
                            "12.3", "12.4", "12.5", "12.6", "12.8", "12.9", "13.0", "13.1"}) {
    EXPECT_TRUE(KnowledgeBase::builtin().driver_for_cuda(*Version::parse(minor))) << minor;
  }
}

TEST(KnowledgeBaseSchemaTest, PtxIsaAndBranchesAreOrdered) {
  std::optional<Version> prev_cuda, prev_isa;
  // Held in a variable: a range-for over a member of a temporary outlives it.
  const Json ptx = embedded_table("ptx_isa");
  for (const auto& e : ptx["entries"]) {
    Version cuda = v(e["cuda"]), isa = v(e["ptx_isa"]);
    if (prev_cuda) {
      EXPECT_LT(*prev_cuda, cuda);
      EXPECT_LE(*prev_isa, isa) << cuda.text();
    }
    prev_cuda = cuda;
    prev_isa = isa;
  }
  long prev_branch = 0;
  std::optional<Version> prev_reported;
  const Json branches = embedded_table("driver_branches");
  for (const auto& e : branches["entries"]) {
    long b = e["branch"].get<long>();
    EXPECT_LT(prev_branch, b);
    Version reported = v(e["cuda"]);
    if (prev_reported) {
      EXPECT_LE(*prev_reported, reported) << b;
    }
    prev_branch = b;
    prev_reported = reported;
  }
}

TEST(KnowledgeBaseSchemaTest, KeysAreUnique) {
  auto unique = [](const std::string& table, auto key_of) {
    std::set<std::string> keys;
    const Json data = embedded_table(table);
    for (const auto& e : data["entries"])
      EXPECT_TRUE(keys.insert(key_of(e)).second) << table << ": " << key_of(e);
  };
  unique("error_codes", [](const Json& e) {
    return e["api"].get<std::string>() + ":" + std::to_string(e["code"].get<long>());
  });
  unique("error_codes", [](const Json& e) { return e["name"].get<std::string>(); });
  unique("gpus", [](const Json& e) { return e["pci_id"].get<std::string>(); });
  unique("architectures", [](const Json& e) { return e["cc"].get<std::string>(); });
  unique("library_sonames", [](const Json& e) {
    return e["library"].get<std::string>() + std::to_string(e["cuda_major"].get<long>());
  });
  unique("minor_version_compat", [](const Json& e) { return std::to_string(e["cuda_major"].get<long>()); });
}

TEST(KnowledgeBaseSchemaTest, EachToolkitMinimumDriverReportsThatCudaVersion) {
  // Table 3's minimum driver must itself support the release: its branch reports >= that CUDA version.
  const auto& kb = KnowledgeBase::builtin();
  for (const auto& r : kb.toolkit_releases()) {
    if (!r.linux_driver.min) continue;  // unknown minimum (13.4+), recorded as unconfirmed
    auto reported = kb.cuda_for_driver(*r.linux_driver.min);
    ASSERT_TRUE(reported) << r.cuda.text();
    EXPECT_GE(reported->to_cuda_int(), r.cuda.to_cuda_int())
        << r.cuda.text() << " min " << r.linux_driver.min->text();
  }
}

TEST(KnowledgeBaseSchemaTest, EveryGpuHasAKnownArchitecture) {
  const auto& kb = KnowledgeBase::builtin();
  EXPECT_GE(kb.gpus().size(), 100u);
  for (const auto& g : kb.gpus()) EXPECT_NE(kb.arch_for_cc(g.cc), nullptr) << g.name;
}

// toolkit_identifiers: each name once, each entry either added ("since") or removed in a CUDA
// release the toolkit table lists, so explain's "build with CUDA X" names a release that exists.
TEST(KnowledgeBaseSchemaTest, ToolkitIdentifiersNameRealReleasesAndEachNameOnce) {
  const auto& kb = KnowledgeBase::builtin();
  auto released = [&](const Version& minor) {
    for (const auto& r : kb.toolkit_releases()) {
      if (r.cuda.major() == minor.major() && r.cuda.minor() == minor.minor()) return true;
    }
    return false;
  };
  std::set<std::string> names;
  const Json table = embedded_table("toolkit_identifiers");  // kept alive for the loop below
  for (const auto& e : table["entries"]) {
    EXPECT_NE(e.contains("since"), e.contains("removed")) << e.dump();
    auto at = Version::parse(e.value("since", e.value("removed", "")));
    ASSERT_TRUE(at) << e.dump();
    EXPECT_TRUE(released(*at)) << at->text() << " is not a toolkit release";
    ASSERT_FALSE(e["names"].empty());
    for (const auto& n : e["names"]) EXPECT_TRUE(names.insert(n.get<std::string>()).second) << n;
  }
}

// triage_terms: explain's guess names a real layer, each term is lower-case (lines are lowered
// before matching, so an upper-case letter could never match) and says something, and each
// symptom has words.
TEST(KnowledgeBaseSchemaTest, TriageTermsNameLayersAndMatchableTerms) {
  const std::set<std::string> layers = {"host",     "container",  "kernel_driver",
                                        "nvml",     "driver_api", "cuda_runtime",
                                        "binaries", "libraries",  "frameworks"};
  auto check_terms = [](const Json& terms, const std::string& where) {
    ASSERT_TRUE(terms.is_array() && !terms.empty()) << where;
    for (const auto& t : terms) {
      auto text = t.get<std::string>();
      auto bare = text;
      std::erase(bare, '*');
      EXPECT_FALSE(bare.empty()) << where;
      for (char c : text) EXPECT_FALSE(c >= 'A' && c <= 'Z') << where << ": " << text;
    }
  };
  const Json table = embedded_table("triage_terms");  // kept alive for the loops below
  std::set<std::string> ids;
  for (const auto& e : table["entries"]) {
    auto id = e.value("id", "");
    EXPECT_TRUE(ids.insert(id).second) << id;
    EXPECT_TRUE(layers.count(e.value("layer", ""))) << id;
    EXPECT_FALSE(e.value("fix", "").empty()) << id;
    EXPECT_FALSE(e.value("what", "").empty()) << id;
    check_terms(e["terms"], id);
  }
  ASSERT_TRUE(table["symptoms"].is_object());
  bool have_generic = false;
  for (const auto& [id, s] : table["symptoms"].items()) {
    EXPECT_FALSE(s.value("what", "").empty()) << id;
    have_generic = have_generic || s.value("generic", false);
    check_terms(s["terms"], id);
  }
  EXPECT_TRUE(have_generic) << "a failure in general words must be one of the symptoms";
}

}  // namespace
}  // namespace cudiag::kb
