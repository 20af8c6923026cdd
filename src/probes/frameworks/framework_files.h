#pragma once
// Parsers for the small Python files frameworks write at build time to record
// how they were built, read as text (never imported):
//   torch/version.py                          __version__ = '2.4.0+cu124'; cuda: Optional[str] = '12.4'; hip
//   = None tensorflow/python/platform/build_info.py  build_info = collections.OrderedDict([('cuda_version',
//   '12.5.1'), ...]) onnxruntime/capi/build_and_package_info.py  cuda_version = "12.2"
// Values are Python literals: strings, None, True/False, numbers and lists of strings.
#include <map>
#include <string>
#include <string_view>

#include "core/json.h"

namespace cudiag::probes {

// Module-level `name = literal` and `name: Type = literal` assignments.
std::map<std::string, Json> parse_python_assignments(std::string_view text);

// Every ('key', literal) pair and 'key': literal entry, wherever it appears
// (build_info's OrderedDict and the dict literals older releases wrote),
// plus module-level assignments.
std::map<std::string, Json> parse_python_key_values(std::string_view text);

}  // namespace cudiag::probes
