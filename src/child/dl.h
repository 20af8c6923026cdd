#pragma once
// dlopen/dlsym helpers for child probes only. The main process never calls
// these: see child/child_probe.h.
#include <dlfcn.h>

#include <chrono>
#include <string>

#include "core/json.h"

namespace cudiag::child {

class Library {
 public:
  explicit Library(const std::string& path, bool global = false);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  // Libraries stay loaded until exit: unloading CUDA libraries runs their
  // destructors, which is where some of them crash.
  ~Library() = default;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  // The path the loader actually opened (after its own search, for a soname).
  std::string loaded_path() const;

  template <typename Fn>
  Fn symbol(const char* name) const {
    if (handle_ == nullptr) return nullptr;
    return reinterpret_cast<Fn>(::dlsym(handle_, name));
  }

 private:
  void* handle_ = nullptr;
  std::string error_;
};

// Times one call in milliseconds, for the report's per-call timings.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// {"result": code, "ms": t} plus any extra fields.
Json call_record(long result, double ms);
Json missing_symbol(const char* name);

}  // namespace cudiag::child
