#pragma once
// `cudiag check --require EXPR`: a CI gate on the stack. Grammar:
//   EXPR := KEY | KEY OP VERSION[,OP VERSION...] | KEY==MAJOR.MINOR.*
//   OP   := == | != | >= | <= | > | <
// KEY is one of the stack keys (workflow/stack.h; `kernel-test` = `kernel_test`).
// A key with several values (two CUDA runtimes, eight GPUs) is satisfied only
// when every value satisfies the constraint — a gate should not pass on the
// one good copy. A key alone asks that the thing is there: `cudnn` = some cuDNN
// was found, `kernel-test` = the kernel test ran and passed.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "workflow/stack.h"
#include "workflow/version_spec.h"

namespace cudiag::workflow {

struct Requirement {
  std::string text;                 // as written
  std::string key;                  // normalised: "kernel_test", "torch.cuda"
  std::optional<VersionSpec> spec;  // nullopt: the key alone
};

// Throws InputError("--require '<text>': <what is wrong>").
Requirement parse_requirement(std::string_view text);

struct RequirementResult {
  std::string requirement;
  std::string layer;  // the layer its key belongs to (layer_of_key); an unsatisfied one is its finding
  bool satisfied = false;
  std::string actual;  // the values found, comma separated; "" when none
  std::string message;
};

RequirementResult evaluate(const Requirement& req, const Stack& stack);
std::vector<RequirementResult> evaluate_all(const std::vector<Requirement>& reqs, const Stack& stack);

// The report's `requirements` array.
Json requirements_to_json(const std::vector<RequirementResult>& results);

// The keys a requirement may name besides library keys and framework names.
const std::vector<std::string>& fixed_requirement_keys();

}  // namespace cudiag::workflow
