# THIRD-PARTY-NOTICES.txt of the portable binary: the licences of what is
# linked into it (zig's libc++, libc++abi, libunwind and compiler-rt; the
# header libraries CLI11, fmt, nlohmann/json, toml++; the lz4 and zstd
# archives). The wheel carries it in its .dist-info/licenses/, the release
# archive (scripts/release-archive.sh) beside the binary.
get_filename_component(_zig_dir "${CUDIAG_ZIG}" DIRECTORY)
set(_notices
  "zig (compiler-rt, glibc start files and stubs)=${_zig_dir}/LICENSE"
  "libc++ (LLVM)=${_zig_dir}/lib/libcxx/LICENSE.TXT"
  "libc++abi (LLVM)=${_zig_dir}/lib/libcxxabi/LICENSE.TXT"
  "libunwind (LLVM)=${_zig_dir}/lib/libunwind/LICENSE.TXT"
  "CLI11 (Debian libcli11-dev)=/usr/share/doc/libcli11-dev/copyright"
  "fmt (Debian libfmt-dev)=/usr/share/doc/libfmt-dev/copyright"
  "nlohmann/json (Debian nlohmann-json3-dev)=/usr/share/doc/nlohmann-json3-dev/copyright"
  "toml++ (Debian libtomlplusplus-dev)=/usr/share/doc/libtomlplusplus-dev/copyright"
  "LZ4 (Debian liblz4-dev)=/usr/share/doc/liblz4-dev/copyright"
  "Zstandard (Debian libzstd-dev)=/usr/share/doc/libzstd-dev/copyright")
set(_text "The cudiag binary contains code from the following projects; their licences follow.\n")
foreach(entry IN LISTS _notices)
  string(FIND "${entry}" "=" _eq)
  string(SUBSTRING "${entry}" 0 ${_eq} _name)
  math(EXPR _eq "${_eq} + 1")
  string(SUBSTRING "${entry}" ${_eq} -1 _file)
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "portable build: the licence of ${_name} is missing (${_file})")
  endif()
  file(READ "${_file}" _body)
  string(APPEND _text "\n==============================================================================\n"
                      "${_name}\n==============================================================================\n\n${_body}")
endforeach()
set(CUDIAG_NOTICES_FILE "${CMAKE_BINARY_DIR}/THIRD-PARTY-NOTICES.txt")
file(WRITE "${CUDIAG_NOTICES_FILE}.tmp" "${_text}")
file(COPY_FILE "${CUDIAG_NOTICES_FILE}.tmp" "${CUDIAG_NOTICES_FILE}" ONLY_IF_DIFFERENT)
file(REMOVE "${CUDIAG_NOTICES_FILE}.tmp")
if(SKBUILD)
  install(FILES "${CUDIAG_NOTICES_FILE}" DESTINATION "${SKBUILD_METADATA_DIR}/licenses")
endif()
