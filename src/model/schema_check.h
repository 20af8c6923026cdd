#pragma once
// Where a saved report disagrees with the report schema's types. Used only
// after a reader met a field of the wrong type (nlohmann's type_error names
// no field), to tell the report's author which field is wrong: "/host/os:
// expected object, found string". The schema (schema/report.schema.json) is
// compiled in.
#include <string>

#include "core/json.h"

namespace cudiag::model {

// The first node of `doc`, in document order, whose JSON type the schema
// does not allow, as "<JSON pointer>: expected <types>, found <type>"; ""
// when every typed node agrees (a fact's value is untyped, so a wrong value
// type is not found here). Only present nodes are checked: a missing field
// is an older report, not a wrong one.
std::string first_schema_type_mismatch(const Json& doc);

}  // namespace cudiag::model
