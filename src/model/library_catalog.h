#pragma once
// The CUDA libraries cudiag looks for, how their files are named and which of
// their own functions tell their version. One table serves both the search
// (parent) and the version calls (child), so the two cannot drift apart.
#include <span>
#include <string>
#include <string_view>

#include "core/json.h"

namespace cudiag::model {

enum class VersionCallKind {
  kProperty,   // status fn(libraryPropertyType, int*) for MAJOR=0, MINOR=1, PATCH_LEVEL=2
  kSizeNoArg,  // size_t fn()
  kIntOut,     // status fn(int*)
  kTwoIntOut,  // status fn(int* major, int* minor)
  kUint32Out,  // status fn(uint32_t*)
  kIntNoArg,   // int fn()
};

struct VersionCall {
  const char* symbol;
  VersionCallKind kind;
};

struct LibraryKind {
  const char* key;          // "cudnn"; the report's key under "libraries"
  const char* display;      // "cuDNN"
  const char* file_prefix;  // "libcudnn.so"
  std::span<const VersionCall> calls;
  // How many leading components of the NVIDIA wheel's version the version
  // function reports: cuBLAS 13.1.0 from nvidia-cublas 13.1.0.3 (3), NVRTC
  // 13.0 from nvidia-cuda-nvrtc 13.0.88 (2). 0: the function reports something
  // a wheel's version does not say (CUPTI's API number), so it must be asked.
  // tests/unit/collect/wheel_versions_test.cpp checks each against the real
  // libraries' own answers.
  int wheel_version_components = 0;
};

std::span<const LibraryKind> library_catalog();
const LibraryKind* find_library_kind(std::string_view key);

// The version a child's answers add up to, e.g. cudnnGetVersion 90100 -> "9.1.0";
// "" when the library answered nothing usable. `how` names the call used.
std::string decode_library_version(std::string_view key, const Json& calls, std::string* how);

}  // namespace cudiag::model
