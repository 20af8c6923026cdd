// NVIDIA's own requirement tests, ported as data (tests/container-require/):
// nvidia-container-toolkit's Go tables and cases derived from
// libnvidia-container's C source. Each case must give the toolkit's or the
// runtime's answer; the few cudiag cannot reproduce carry a "divergence"
// with the reason, and the pass rate must stay at or above 97 %.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/json.h"
#include "rules/container_requirements.h"
#include "rules/require_expression.h"

namespace cudiag::rules {
namespace {

Json load(const std::string& name) {
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/container-require/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

ImageEnv env_of(const Json& j) {
  ImageEnv env;
  for (const auto& [k, v] : j.items()) env[k] = v.get<std::string>();
  return env;
}

std::vector<std::string> strings(const Json& j) {
  std::vector<std::string> out;
  for (const auto& v : j) out.push_back(v.get<std::string>());
  return out;
}

std::optional<std::string> opt(const Json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<std::string>();
}

std::vector<RequireGpu> gpus_of(const Json& check) {
  std::vector<RequireGpu> gpus;
  if (check.contains("gpus")) {
    for (const auto& g : check["gpus"]) {
      RequireGpu gpu{opt(g, "arch"), std::nullopt};
      if (auto b = opt(g, "brand")) gpu.brands = std::vector<std::string>{*b};
      gpus.push_back(gpu);
    }
  } else if (check.contains("arch")) {
    gpus.push_back({opt(check, "arch"), std::vector<std::string>{"Tesla"}});
  }
  return gpus;
}

std::string verdict(const RequireResult& r) {
  std::string s;
  for (auto o : r.possible) s += std::string(s.empty() ? "" : "|") + outcome_name(o);
  return s;
}

// Empty when the case passes, else what differs.
std::string run_case(const Json& c) {
  const std::string kind = c["kind"];
  std::ostringstream diff;
  if (kind == "go" || kind == "libnvc" || kind == "both") {
    auto reqs = strings(c["requirements"]);
    for (const auto& check : c["checks"]) {
      const std::string want = check["expect"];
      if (kind != "libnvc") {
        auto got = verdict(evaluate_toolkit_go(reqs, opt(check, "cuda"), opt(check, "arch")));
        if (got != want) diff << "go at " << check.dump() << ": " << got << "; ";
      }
      if (kind != "go") {
        RequireHost host{opt(check, "cuda"), opt(check, "driver").value_or("535.104.05")};
        auto got = verdict(evaluate_libnvc(reqs, host, gpus_of(check)));
        if (got != want) diff << "libnvc at " << check.dump() << ": " << got << "; ";
      }
    }
  } else if (kind == "major_minor") {
    auto got = parse_major_minor(c["version"].get<std::string>());
    Json g = got ? Json(*got) : Json(nullptr);
    if (g != c["expect"]) diff << "got " << g.dump();
  } else if (kind == "requirements") {
    auto got = image_requirements(env_of(c["env"]));
    auto a = got.requirements;
    auto b = strings(c["expect"]);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (got.error || a != b) diff << "got " << Json(got.requirements).dump();
  } else if (kind == "devices") {
    auto got = visible_devices(env_of(c["env"]), strings(c["preferred"]));
    Json g = got ? Json(*got) : Json(nullptr);
    if (g != c["expect"]) diff << "got " << g.dump();
  } else if (kind == "hook") {
    auto h =
        hook_config(env_of(c["env"]), c["privileged"].get<bool>(), c["swarm_resource"].get<std::string>());
    const Json& e = c["expect"];
    if (e.contains("config")) {
      if (h.kind != HookConfig::Kind::kNotGpuContainer) diff << "expected no config";
    } else if (e.contains("panic")) {
      if (h.kind != HookConfig::Kind::kRefused) diff << "expected the hook to panic";
    } else {
      auto a = h.requirements;
      auto b = strings(e["requirements"]);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (h.kind != HookConfig::Kind::kConfigured || h.devices != strings(e["devices"]) || a != b)
        diff << "got devices " << Json(h.devices).dump() << " requirements " << Json(h.requirements).dump();
    }
  } else if (kind == "container") {
    RequireHost host{opt(c["host"], "cuda"), opt(c["host"], "driver")};
    auto v = hook_path_verdict(env_of(c["env"]), host, gpus_of(c), false);
    std::string got = v.kind == HookVerdict::Kind::kNotChecked ? "not_checked"
                      : v.kind == HookVerdict::Kind::kRefused  ? "refused"
                                                               : verdict(v.result);
    if (got != c["expect"].get<std::string>()) diff << "got " << got;
  } else {
    diff << "unknown kind " << kind;
  }
  return diff.str();
}

void run_file(const std::string& file, int& total, int& passed) {
  Json data = load(file);
  ASSERT_TRUE(data["cases"].is_array()) << file;
  for (const auto& c : data["cases"]) {
    const Json& s = c["source"];
    ASSERT_TRUE(s.contains("file") && s.contains("case") && s.contains("url")) << c.dump();
    ASSERT_TRUE(s["url"].get<std::string>().starts_with("https://github.com/NVIDIA/")) << c.dump();
    std::string name = s["file"].get<std::string>() + " " + s.value("test", s.value("function", "")) + " / " +
                       s["case"].get<std::string>();
    auto diff = run_case(c);
    ++total;
    if (diff.empty()) {
      ++passed;
      EXPECT_FALSE(c.contains("divergence")) << name << ": marked as a divergence but now passes";
    } else {
      EXPECT_TRUE(c.contains("divergence")) << name << ": " << diff;
    }
  }
}

TEST(ContainerRequireCases, ToolkitAndLibnvidiaContainerAgree) {
  int total = 0;
  int passed = 0;
  run_file("toolkit_cases.json", total, passed);
  run_file("libnvc_cases.json", total, passed);
  EXPECT_GE(total, 120);
  EXPECT_GE(passed * 100, total * 97) << passed << " of " << total;
  std::cout << "container requirement cases: " << passed << " of " << total << " agree\n";
}

}  // namespace
}  // namespace cudiag::rules
