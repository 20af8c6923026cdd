#pragma once
// Loads the signature table of a copy of the built-in knowledge base after
// `edit` changed it, for the tests of what the loader rejects.
#include <functional>
#include <string>

#include "../kb/kb_test_util.h"
#include "core/errors.h"
#include "explain/signatures.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain::testing {

// The load error, or "" when the edited table loads.
inline std::string signatures_load_error(const std::string& name,
                                         const std::function<void(Json& doc)>& edit) {
  kb::testing::KbCopy copy(name);
  Json doc = copy.read("error_signatures");
  edit(doc);
  copy.write("error_signatures", doc);
  auto kb = kb::KnowledgeBase::load_dir(copy.dir());
  try {
    load_signatures(kb);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace cudiag::explain::testing
