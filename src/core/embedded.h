#pragma once
// Data files compiled into the binary by cmake/embed.cmake.
#include <string_view>
#include <vector>

namespace cudiag {

struct EmbeddedFile {
  std::string_view path;  // relative to the source tree, e.g. "data/kb/toolkit_drivers.json"
  std::string_view bytes;
};

const std::vector<EmbeddedFile>& embedded_files();

// The embedded file with this relative path, or nullptr.
const EmbeddedFile* find_embedded(std::string_view path);

}  // namespace cudiag
