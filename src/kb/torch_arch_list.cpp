#include "kb/torch_arch_list.h"

#include <string>

namespace cudiag::kb {

std::vector<TorchArch> parse_torch_arch_list(std::string_view list) {
  std::vector<TorchArch> out;
  std::size_t start = 0;
  while (start < list.size()) {
    auto end = list.find(';', start);
    std::string item(
        list.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    bool ptx = item.ends_with("+PTX");
    if (ptx) item.resize(item.size() - 4);
    if (auto v = Version::parse(item)) out.push_back({*v, ptx});
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace cudiag::kb
