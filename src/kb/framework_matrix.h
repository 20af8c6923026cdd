#pragma once
// Rows of the knowledge base's framework_matrix table, as the frameworks rules,
// `--assume` and the torch wheel advice look them up.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/version.h"
#include "kb/knowledge_base.h"

namespace cudiag::kb {

// The first row of `framework` whose release is a prefix of `version` ("2.1" for "2.1.2+cu121"; a
// row without a release fits any) and, when `cuda_major` is given, whose cuda_major (if any) is it.
// An empty `version` fits only rows without a release. nullptr when none.
const Json* framework_matrix_row(const KnowledgeBase& kb, const std::string& framework,
                                 const std::string& version, std::optional<long> cuda_major = std::nullopt);

// A row's cuda_variants as versions, in the table's order; entries that are not versions are skipped.
std::vector<Version> framework_cuda_variants(const Json& row);

}  // namespace cudiag::kb
