# Every dependency comes from Debian's packages; docs/ARCHITECTURE.md says why each.
if(CUDIAG_PORTABLE)
  # cmake/zig-toolchain.cmake: the same packages, used so that nothing of the
  # build machine's glibc or libstdc++ reaches the binary.
  include(${CMAKE_CURRENT_LIST_DIR}/portable_dependencies.cmake)
  return()
endif()
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(tomlplusplus 3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
# libzip is dlopen'ed on first use (src/inspect/zip_api.h): its soname, read
# from the library the build would have linked, is what gets opened.
find_library(CUDIAG_LIBZIP_PATH NAMES zip HINTS ${LIBZIP_LIBRARY_DIRS})
set(CUDIAG_LIBZIP_SONAME "libzip.so.4")
if(CUDIAG_LIBZIP_PATH)
  execute_process(COMMAND objdump -p ${CUDIAG_LIBZIP_PATH} OUTPUT_VARIABLE _zip_dyn ERROR_QUIET)
  string(REGEX MATCH "SONAME +([^ \n]+)" _zip_soname "${_zip_dyn}")
  if(CMAKE_MATCH_1)
    set(CUDIAG_LIBZIP_SONAME "${CMAKE_MATCH_1}")
  endif()
endif()
find_package(Threads REQUIRED)
# `cudiag fleet`: simdjson parses thousands of saved reports a second; zlib reads .json.gz ones.
find_package(simdjson REQUIRED)
find_package(ZLIB REQUIRED)
