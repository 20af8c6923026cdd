// The text form of the kernel_test section (`cudiag test`, and the text
// report's kernel_test block). Formatting only.
#include "render/kernel_test_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudiag::render {

namespace {

struct Style {
  bool color;
  std::string paint(const std::string& text, const char* code) const {
    return color ? fmt::format("\033[{}m{}\033[0m", code, text) : text;
  }
};

std::string mark(const std::string& status, const Style& s) {
  if (status == "ok" || status == "pass") return s.paint("✓", "32");
  if (status == "skipped" || status == "not installed") return s.paint("–", "2");
  return s.paint("✗", "31");
}

// Counts UTF-8 code points, for column alignment of lines holding "→".
std::size_t width(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

void step_lines(std::string& out, const Json& steps, const Style& s) {
  for (const auto& step : steps) {
    auto message = step.value("message", step.value("name", ""));
    auto status = step.value("status", "");
    std::string time = step.contains("ms") ? fmt::format("{:9.1f} ms", step.value("ms", 0.0)) : "";
    std::string pad = width(message) < 72 ? std::string(72 - width(message), ' ') : " ";
    out += fmt::format("  {} {}{}{}\n", mark(status, s), message, time.empty() ? "" : pad, time);
  }
}

// A saved report may hold a partial or older kernel_test: every key the text
// reads is given its empty value, and entries that are not objects are dropped.
Json objects_only(const Json& list) {
  Json out = Json::array();
  if (!list.is_array()) return out;
  for (const auto& e : list) {
    if (!e.is_object()) continue;
    Json x = e;
    if (x.contains("steps")) x["steps"] = objects_only(x["steps"]);
    if (!x.contains("steps")) x["steps"] = Json::array();
    out.push_back(std::move(x));
  }
  return out;
}

Json object_at(const Json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_object() ? obj[key] : Json::object();
}

Json complete(const Json& given) {
  Json section = given.is_object() ? given : Json::object();
  Json kernels = object_at(section, "kernels");
  kernels["ptx"] = object_at(kernels, "ptx");
  kernels["sass"] = object_at(kernels, "sass");
  section["kernels"] = kernels;
  Json driver = object_at(section, "driver");
  if (!driver.contains("library")) driver["library"] = nullptr;
  driver["steps"] = objects_only(driver.value("steps", Json::array()));
  driver["devices"] = objects_only(driver.value("devices", Json::array()));
  section["driver"] = driver;
  section["nvrtc"] = objects_only(section.value("nvrtc", Json::array()));
  section["frameworks"] = objects_only(section.value("frameworks", Json::array()));
  if (!section.contains("first_failure")) section["first_failure"] = nullptr;
  return section;
}

}  // namespace

std::string render_kernel_test_text(const Json& given, bool color) {
  const Json section = complete(given);
  Style s{color};
  std::string out = "cudiag test: a real kernel, launched and checked element by element\n";
  const auto& k = section["kernels"];
  auto archs = k["sass"].value("archs", std::vector<std::string>{});
  std::string sass =
      k["sass"].value("built", false)
          ? fmt::format("SASS for {} (nvcc {})", fmt::join(archs, " "), k["sass"].value("nvcc", "?"))
          : "SASS path: not built (no nvcc at build time)";
  out += fmt::format("kernels: PTX ISA {} for {} (JIT path); {}\n", k["ptx"].value("isa", "?"),
                     k["ptx"].value("target", "?"), sass);
  if (section.contains("cuda_visible_devices")) {
    out += fmt::format("CUDA_VISIBLE_DEVICES={}\n", section.value("cuda_visible_devices", ""));
  }

  const auto& d = section["driver"];
  std::string lib = d["library"].is_string() ? d["library"].get<std::string>() : "(none)";
  out += fmt::format(
      "\ndriver API  {}{}\n", lib,
      d.contains("cuda_driver_version") ? fmt::format(" (CUDA {})", d.value("cuda_driver_version", "")) : "");
  step_lines(out, d["steps"], s);
  for (const auto& dev : d["devices"]) {
    out += fmt::format("device {}  {}{}{}\n", dev.value("ordinal", 0), dev.value("name", "?"),
                       dev.contains("compute_capability")
                           ? fmt::format(" (compute {})", dev.value("compute_capability", ""))
                           : "",
                       dev.contains("pci_bus_id") ? " " + dev.value("pci_bus_id", "") : "");
    step_lines(out, dev["steps"], s);
  }
  for (const auto& n : section["nvrtc"]) {
    out += fmt::format("\nNVRTC {}  {}{}\n", n.value("version", "?"), n.value("library", ""),
                       n.contains("ptx_isa") ? fmt::format(" (PTX ISA {})", n.value("ptx_isa", "")) : "");
    step_lines(out, n["steps"], s);
  }
  std::string python;
  for (const auto& f : section["frameworks"]) {
    if (f.value("python", "") != python) {
      python = f.value("python", "");
      out += fmt::format("\nPython {}\n", python);
    }
    auto status = f.value("status", "");
    auto name = f.value("framework", "");
    std::string line;
    if (status == "not installed") {
      line = fmt::format("{}: not installed", name);
    } else if (status == "pass") {
      line = fmt::format("{} {}: GPU matmul matches the CPU ({})", name, f.value("version", ""),
                         f.value("device", "GPU"));
    } else {
      auto err = f.value("error", "failed");
      line = fmt::format("{} {}→ {}", name, f.contains("version") ? f.value("version", "") + " " : "",
                         err.substr(0, err.find('\n')));
    }
    std::string pad = width(line) < 72 ? std::string(72 - width(line), ' ') : " ";
    out += fmt::format("  {} {}{}{:9.1f} ms\n", mark(status, s), line, pad, f.value("ms", 0.0));
  }

  out += "\n";
  if (section.value("status", "") == "pass") {
    out += s.paint("PASS", "32") +
           fmt::format("  every test that ran passed ({:.0f} ms)\n", section.value("total_ms", 0.0));
  } else {
    const auto& f = section["first_failure"];
    out +=
        s.paint("FAIL", "31") + (f.is_object() ? fmt::format("  first failing step ({}): {}\n",
                                                             f.value("section", ""), f.value("message", ""))
                                               : "\n");
  }
  return out;
}

std::string render_requirements_text(const Json& requirements) {
  std::string out = "\nRequirements\n";
  if (!requirements.is_array()) return "";
  for (const auto& r : requirements) {
    if (!r.is_object()) continue;
    out += fmt::format("  {} {}: {}\n", r.value("satisfied", false) ? "ok  " : "FAIL",
                       r.value("requirement", ""), r.value("message", ""));
  }
  return out;
}

}  // namespace cudiag::render
