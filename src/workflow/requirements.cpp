#include "workflow/requirements.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/errors.h"
#include "model/library_catalog.h"

namespace cudiag::workflow {

namespace {

const std::vector<std::string> kFrameworks = {"torch", "tensorflow", "jax", "jaxlib", "cupy", "onnxruntime"};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

bool known_key(const std::string& key) {
  const auto& fixed = fixed_requirement_keys();
  if (std::find(fixed.begin(), fixed.end(), key) != fixed.end()) return true;
  if (model::find_library_kind(key)) return true;
  auto dot = key.find('.');
  std::string base = key.substr(0, dot);
  if (std::find(kFrameworks.begin(), kFrameworks.end(), base) == kFrameworks.end()) return false;
  if (dot == std::string::npos) return true;
  std::string field = key.substr(dot + 1);
  return field == "cuda" || field == "cudnn";
}

std::string all_known_keys() {
  std::vector<std::string> keys = fixed_requirement_keys();
  for (const auto& l : model::library_catalog()) keys.emplace_back(l.key);
  for (const auto& f : kFrameworks) {
    keys.push_back(f);
    keys.push_back(f + ".cuda");
  }
  return fmt::format("{}", fmt::join(keys, ", "));
}

std::string why_absent(const std::string& key, const Stack& stack) {
  if (key == "kernel_test") return "the kernel test was not run; use --deep";
  if (layer_of_key(key) == "frameworks" && !stack.frameworks_collected)
    return "frameworks were not collected";
  if (auto dot = key.find('.'); dot != std::string::npos && layer_of_key(key) == "frameworks") {
    const StackValue* base = stack.find(key.substr(0, dot));
    if (base && !base->values.empty())
      return fmt::format("{} {} records no {} version (not a CUDA build?)", base->key,
                         fmt::join(base->values, ", "), key.substr(dot + 1));
  }
  if (key.starts_with("driver")) return "no NVIDIA driver was found";
  if (key.starts_with("gpu.")) return "no GPU was found";
  return fmt::format("no {} was found", key);
}

bool text_matches(const std::string& pattern, const std::string& actual) {
  return lower(actual).find(lower(pattern)) != std::string::npos;
}

}  // namespace

const std::vector<std::string>& fixed_requirement_keys() {
  static const std::vector<std::string> keys = {"driver",    "driver.cuda", "cuda_runtime", "cuda_toolkit",
                                                "gpu.count", "gpu.cc",      "gpu.name",     "kernel_test"};
  return keys;
}

Requirement parse_requirement(std::string_view text) {
  auto fail = [&](const std::string& what) {
    return InputError(fmt::format("--require '{}': {}", text, what));
  };
  Requirement req;
  req.text = std::string(text);
  std::size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  std::size_t start = i;
  while (i < text.size() && is_key_char(text[i])) ++i;
  req.key = lower(text.substr(start, i - start));
  std::replace(req.key.begin(), req.key.end(), '-', '_');
  if (req.key.empty()) throw fail("expected KEY, KEY>=VERSION or KEY==VERSION");
  if (req.key == "pytorch") req.key = "torch";
  if (!known_key(req.key)) throw fail(fmt::format("unknown key '{}' (known: {})", req.key, all_known_keys()));
  std::string_view rest = text.substr(i);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.empty()) return req;
  if (std::string_view("=!<>").find(rest.front()) == std::string_view::npos)
    throw fail(fmt::format("expected an operator (==, !=, >=, <=, >, <) after '{}'", req.key));
  if (req.key == "kernel_test") throw fail("kernel-test takes no version; write --require kernel-test");
  if (req.key == "gpu.name") {
    // Names are not versions: ==TEXT / !=TEXT compare (case-insensitive) against each GPU's name.
    if (!rest.starts_with("==") && !rest.starts_with("!=")) throw fail("gpu.name takes == or != and a name");
    req.spec = VersionSpec::exactly(rest);  // kept only for its text; matched as a name below
    return req;
  }
  std::string why;
  req.spec = VersionSpec::parse(rest, &why);
  if (!req.spec) throw fail(why);
  return req;
}

RequirementResult evaluate(const Requirement& req, const Stack& stack) {
  RequirementResult r;
  r.requirement = req.text;
  r.layer = layer_of_key(req.key);
  const StackValue* v = stack.find(req.key);
  std::vector<std::string> values = v ? v->values : std::vector<std::string>{};
  r.actual = fmt::format("{}", fmt::join(values, ", "));
  if (req.key == "kernel_test") {
    r.satisfied = !values.empty() && values.front() == "passed";
    r.message =
        values.empty() ? why_absent(req.key, stack) : fmt::format("the kernel test {}", values.front());
    return r;
  }
  if (values.empty()) {
    r.message = why_absent(req.key, stack);
    return r;
  }
  if (!req.spec) {
    r.satisfied = true;
    r.message = fmt::format("{} {} found", req.key, r.actual);
    return r;
  }
  std::vector<std::string> failing;
  for (const auto& actual : values) {
    bool ok;
    if (req.key == "gpu.name") {
      std::string text = req.spec->text();
      bool equal = text.starts_with("==");
      ok = text_matches(text.substr(2), actual) == equal;
    } else {
      ok = req.spec->matches(actual);
    }
    if (!ok) failing.push_back(actual);
  }
  r.satisfied = failing.empty();
  std::string spec = req.spec->text();
  if (r.satisfied) {
    r.message = fmt::format("{} {} satisfies {}", req.key, r.actual, spec);
  } else if (values.size() == 1) {
    r.message = fmt::format("{} {} does not satisfy {}", req.key, r.actual, spec);
  } else {
    r.message = fmt::format("{} {} (of {}) does not satisfy {}; every one must", req.key,
                            fmt::join(failing, ", "), r.actual, spec);
  }
  return r;
}

std::vector<RequirementResult> evaluate_all(const std::vector<Requirement>& reqs, const Stack& stack) {
  std::vector<RequirementResult> out;
  for (const auto& r : reqs) out.push_back(evaluate(r, stack));
  return out;
}

Json requirements_to_json(const std::vector<RequirementResult>& results) {
  Json out = Json::array();
  for (const auto& r : results) {
    out.push_back({{"requirement", r.requirement},
                   {"layer", r.layer},
                   {"satisfied", r.satisfied},
                   {"actual", r.actual.empty() ? Json(nullptr) : Json(r.actual)},
                   {"message", r.message}});
  }
  return out;
}

}  // namespace cudiag::workflow
