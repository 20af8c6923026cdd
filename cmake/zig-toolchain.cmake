# The portable build: `zig c++` (PyPI `ziglang`, clang + libc++) against the
# glibc 2.28 symbol set zig ships, so the binary runs on any x86_64 Linux with
# glibc >= 2.28 (RHEL 8, Ubuntu 20.04+, Debian 10+) although it is built on
# Debian 12 (glibc 2.36). docs/ARCHITECTURE.md ("Portable binary") says why zig
# rather than g++ 12 against an old sysroot.
#
#   cmake -S . -B build-portable -G Ninja --toolchain cmake/zig-toolchain.cmake
#
# zig is found from CUDIAG_ZIG (cache or environment), else from the `ziglang`
# module of CUDIAG_PYTHON / Python_EXECUTABLE (scikit-build-core passes the
# build environment's interpreter) / python3 on PATH.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CUDIAG_GLIBC_FLOOR 2.28 CACHE STRING "Oldest glibc the portable binary runs on (zig -target x86_64-linux-gnu.<this>)")
set(CUDIAG_PORTABLE ON CACHE BOOL "Portable build: static libc++, header-only fmt, static lz4/zstd" FORCE)

# The zig of this run, not only the cached one: pip's isolated build
# environment (and its ziglang) is a new temporary directory every time, so a
# cached path from an earlier `pip wheel .` may be gone.
set(_zig "")
if(DEFINED ENV{CUDIAG_ZIG})
  set(_zig "$ENV{CUDIAG_ZIG}")
else()
  # The module, not `python -m ziglang`: in pip's isolated build environment
  # only the interpreter pip started sees it, so the wrappers need the path.
  foreach(py IN ITEMS "${CUDIAG_PYTHON}" "${Python_EXECUTABLE}" "${Python3_EXECUTABLE}" python3)
    if(py STREQUAL "")
      continue()
    endif()
    execute_process(
      COMMAND "${py}" -c "import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), 'zig'))"
      OUTPUT_VARIABLE _found OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
    if(_rc EQUAL 0 AND EXISTS "${_found}")
      set(_zig "${_found}")
      break()
    endif()
  endforeach()
endif()
if(_zig STREQUAL "" AND CUDIAG_ZIG AND EXISTS "${CUDIAG_ZIG}")
  set(_zig "${CUDIAG_ZIG}")
endif()
set(CUDIAG_ZIG "${_zig}")
if(NOT CUDIAG_ZIG)
  message(FATAL_ERROR "zig-toolchain: no zig found; `pip install ziglang==0.17.1` or set CUDIAG_ZIG=/path/to/zig")
endif()
set(CUDIAG_ZIG "${CUDIAG_ZIG}" CACHE FILEPATH "The zig executable of the portable build" FORCE)
# Try-compiles read this file again without the cache: hand them the answer.
set(ENV{CUDIAG_ZIG} "${CUDIAG_ZIG}")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CUDIAG_GLIBC_FLOOR)

# CMake wants one executable per compiler; these wrappers add the target. They
# are rewritten only when their text changes, so ninja and ccache see a stable
# compiler. Try-compiles read this file again from their own binary dirs, so
# the wrappers live in one directory per zig path and target under /tmp.
set(_target "x86_64-linux-gnu.${CUDIAG_GLIBC_FLOOR}")
string(MD5 _key "${CUDIAG_ZIG}|${_target}")
set(_dir "/tmp/cudiag-zig-${_key}")
foreach(tool IN ITEMS cc c++)
  set(_text "#!/bin/sh\nexec \"${CUDIAG_ZIG}\" ${tool} -target ${_target} \"$@\"\n")
  set(_file "${_dir}/zig-${tool}")
  set(_old "")
  if(EXISTS "${_file}")
    file(READ "${_file}" _old)
  endif()
  if(NOT _old STREQUAL _text)
    file(WRITE "${_file}.tmp" "${_text}")
    file(CHMOD "${_file}.tmp" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                          WORLD_READ WORLD_EXECUTE)
    file(RENAME "${_file}.tmp" "${_file}")
  endif()
endforeach()
set(CMAKE_C_COMPILER "${_dir}/zig-cc")
set(CMAKE_CXX_COMPILER "${_dir}/zig-c++")
# zig ships no glibc headers of the build machine: only its own (2.28) and the
# dependencies' headers staged by cmake/dependencies.cmake are seen.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# ccache, when present, as in the normal build. It cannot tell two zig
# versions apart by the wrapper script, so the zig version is its compiler key.
find_program(CUDIAG_CCACHE ccache)
if(CUDIAG_CCACHE AND NOT DEFINED CMAKE_CXX_COMPILER_LAUNCHER)
  execute_process(COMMAND "${CUDIAG_ZIG}" version OUTPUT_VARIABLE _zig_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(_launcher "${CMAKE_COMMAND};-E;env;CCACHE_COMPILERCHECK=string:zig-${_zig_version}-${_target};${CUDIAG_CCACHE}")
  set(CMAKE_C_COMPILER_LAUNCHER "${_launcher}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${_launcher}")
endif()
