#pragma once
// Reading a saved report (`verify --report`, `diff A B`, `plan --report`):
// a file or "-" for stdin. Bad input is an InputError naming the file.
#include <string>

#include "core/json.h"

namespace cudiag::workflow {

// Throws InputError("<path>: <what>") when the file is missing, unreadable,
// not JSON, or not a cudiag report.
Json load_report(const std::string& path);

// After a reader met a field of the wrong type in a saved report: the first
// saved report read whose fields disagree with the schema's types, as
// "<name>: field <pointer>: expected <type>, found <type>"; "" when the
// schema finds nothing (the field is one it leaves untyped, a fact's value).
std::string wrong_field_in_saved_reports();
// The file's text ("-": stdin); InputError when it cannot be read.
std::string read_input_text(const std::string& path);

}  // namespace cudiag::workflow
