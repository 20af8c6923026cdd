#pragma once
// Records as JSON, for `cudiag kb --format json` and for findings that embed
// what they cite. Each object ends with "confidence", "note" (when set) and
// "sources": [{"url", "section"}].
#include "core/json.h"
#include "kb/records.h"

namespace cudiag::kb {

Json to_json(const Source& s);
Json sources_json(const std::vector<Source>& sources);
Json to_json(const ErrorCode& e);
Json to_json(const DriverRequirement& r);
Json to_json(const DriverBranch& b, bool exact);
Json to_json(const Arch& a, const ArchVariant* variant = nullptr);
Json to_json(const Gpu& g, const Arch* arch);
Json to_json(const PtxIsa& p);
Json to_json(const MinorVersionCompat& m);

}  // namespace cudiag::kb
