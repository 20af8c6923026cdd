#include "inspect/zip_api.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

#ifndef CUDIAG_LIBZIP_SONAME
#define CUDIAG_LIBZIP_SONAME "libzip.so.4"
#endif

namespace cudiag::inspect {

namespace {

struct Loaded {
  ZipApi api;
  std::string error;
};

template <typename Fn>
bool bind(void* handle, Fn& fn, const char* name, std::string& error) {
  fn = reinterpret_cast<Fn>(::dlsym(handle, name));
  if (fn == nullptr && error.empty()) error = fmt::format("{}: no symbol {}", CUDIAG_LIBZIP_SONAME, name);
  return fn != nullptr;
}

Loaded load() {
  Loaded l;
  void* handle = ::dlopen(CUDIAG_LIBZIP_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = ::dlerror();
    l.error = e ? e : CUDIAG_LIBZIP_SONAME ": cannot be loaded";
    // The portable binary meets older distributions too: libzip 1.5 and 1.6
    // (Ubuntu 20.04, RHEL 8) are libzip.so.5, with the same functions used here.
    handle = ::dlopen("libzip.so.5", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return l;  // the error names the soname this build expects
    l.error.clear();
  }
  auto& a = l.api;
  bind(handle, a.open, "zip_open", l.error);
  bind(handle, a.discard, "zip_discard", l.error);
  bind(handle, a.get_num_entries, "zip_get_num_entries", l.error);
  bind(handle, a.stat_index, "zip_stat_index", l.error);
  bind(handle, a.fopen_index, "zip_fopen_index", l.error);
  bind(handle, a.fread, "zip_fread", l.error);
  bind(handle, a.fclose, "zip_fclose", l.error);
  bind(handle, a.error_init_with_code, "zip_error_init_with_code", l.error);
  bind(handle, a.error_strerror, "zip_error_strerror", l.error);
  bind(handle, a.error_fini, "zip_error_fini", l.error);
  return l;
}

}  // namespace

const ZipApi* zip_api(std::string& why) {
  static const Loaded loaded = load();  // once, thread-safe
  if (!loaded.error.empty()) {
    why = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace cudiag::inspect
