#pragma once
// nfd-master's rules for feature names and label values (node-feature-discovery
// pkg/apis/nfd/validate/validate.go and Kubernetes' qualified names), shared by
// the nfd renderer and its tests.
#include <optional>
#include <string>
#include <string_view>

namespace cudiag::render {

inline constexpr std::string_view kNfdNamespace = "cudiag.dev";

// `prefix/name`: prefix a DNS subdomain (≤ 253), not kubernetes.io or a
// subdomain of it; name ≤ 63 of [A-Za-z0-9-_.], alphanumeric at both ends.
bool is_nfd_feature_name(std::string_view key);
// A label value: ≤ 63 of [A-Za-z0-9-_.], alphanumeric at both ends, or empty;
// never starting with '@' (NFD's reference syntax).
bool is_nfd_label_value(std::string_view value);
// `raw` made into a valid label value: other characters become '-', the ends
// are trimmed to alphanumerics, then it is cut to 63; nullopt when nothing is left.
std::optional<std::string> nfd_label_value(std::string_view raw);

}  // namespace cudiag::render
