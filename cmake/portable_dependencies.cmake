# Dependencies of the portable build (cmake/zig-toolchain.cmake), from the same
# Debian packages as the normal build, defined under the same target names so
# src/CMakeLists.txt does not change:
# - headers are staged (symlinked) into one directory: adding /usr/include
#   itself would put glibc 2.36's headers in front of zig's glibc 2.28 ones;
# - fmt is header-only: Debian's libfmt.so is built against libstdc++, and the
#   binary uses libc++ (std::string differs), and has no static libfmt.a;
# - lz4 and zstd are C libraries: their static archives are linked in, so the
#   binary NEEDs nothing of them (tests/portable checks NEEDED);
# - libzip stays dlopened, as in the normal build.
set(CUDIAG_DEP_INCLUDE_ROOT "/usr/include" CACHE PATH "Where the dependencies' headers are (portable build)")
set(CUDIAG_DEP_LIB_DIR "/usr/lib/x86_64-linux-gnu" CACHE PATH "Where liblz4.a and libzstd.a are (portable build)")
set(_stage "${CMAKE_BINARY_DIR}/portable-include")
file(MAKE_DIRECTORY "${_stage}")
foreach(h IN ITEMS CLI fmt nlohmann toml++ zip.h zipconf.h lz4.h lz4frame.h lz4hc.h zstd.h zstd_errors.h)
  if(NOT EXISTS "${CUDIAG_DEP_INCLUDE_ROOT}/${h}")
    message(FATAL_ERROR "portable build: ${CUDIAG_DEP_INCLUDE_ROOT}/${h} is missing (scripts/install-deps.sh installs it)")
  endif()
  file(CREATE_LINK "${CUDIAG_DEP_INCLUDE_ROOT}/${h}" "${_stage}/${h}" SYMBOLIC)
endforeach()

function(_cudiag_header_target name)
  add_library(${name} INTERFACE IMPORTED)
  set_target_properties(${name} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_stage}")
endfunction()
_cudiag_header_target(CLI11::CLI11)
_cudiag_header_target(nlohmann_json::nlohmann_json)
_cudiag_header_target(tomlplusplus::tomlplusplus)
_cudiag_header_target(fmt::fmt)
set_property(TARGET fmt::fmt PROPERTY INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)

foreach(lib IN ITEMS LZ4:lz4 ZSTD:zstd)
  string(REPLACE ":" ";" lib "${lib}")
  list(GET lib 0 var)
  list(GET lib 1 file)
  set(archive "${CUDIAG_DEP_LIB_DIR}/lib${file}.a")
  if(NOT EXISTS "${archive}")
    message(FATAL_ERROR "portable build: ${archive} is missing (Debian's lib${file}-dev ships it)")
  endif()
  add_library(PkgConfig::${var} STATIC IMPORTED)
  set_target_properties(PkgConfig::${var} PROPERTIES IMPORTED_LOCATION "${archive}"
                                                     INTERFACE_INCLUDE_DIRECTORIES "${_stage}")
endforeach()

set(LIBZIP_INCLUDE_DIRS "${_stage}")
# Debian 12 and Ubuntu 22.04+ ship libzip.so.4; src/inspect/zip_api.cpp tries
# the others' sonames after it.
set(CUDIAG_LIBZIP_SONAME "libzip.so.4")
find_package(Threads REQUIRED)
# zig's libc++ comes with ~120 MB of DWARF; the release binary keeps its symbol
# table (readable backtraces) and drops the debug sections (~3 MB left).
string(APPEND CMAKE_EXE_LINKER_FLAGS " -Wl,--strip-debug")
include(${CMAKE_CURRENT_LIST_DIR}/portable_notices.cmake)
