# Every dependency comes from Debian's packages; docs/ARCHITECTURE.md says why each.
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
find_package(Threads REQUIRED)
