#include "child/dl.h"

#include <link.h>

namespace cudiag::child {

Library::Library(const std::string& path, bool global) {
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
  if (handle_ == nullptr) {
    const char* e = ::dlerror();
    error_ = e ? e : "dlopen failed";
  }
}

std::string Library::loaded_path() const {
  if (handle_ == nullptr) return "";
  link_map* map = nullptr;
  if (::dlinfo(handle_, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) return "";
  return map->l_name;
}

Json call_record(long result, double ms) {
  Json j = Json::object();
  j["result"] = result;
  j["ms"] = ms;
  return j;
}

Json missing_symbol(const char* name) {
  Json j = Json::object();
  j["missing_symbol"] = name;
  return j;
}

}  // namespace cudiag::child
