#pragma once
// libzip, loaded on first use. Linking it made every cudiag process — each
// report and each of its child probes — pay ~2 ms of start-up for libzip and
// the libcrypto, libbz2 and libz it pulls in, while only `cudiag inspect` on a
// wheel needs it. zip.h gives the types; the functions come from dlopen.
#include <zip.h>

#include <string>

namespace cudiag::inspect {

struct ZipApi {
  decltype(&::zip_open) open = nullptr;
  decltype(&::zip_discard) discard = nullptr;
  decltype(&::zip_get_num_entries) get_num_entries = nullptr;
  decltype(&::zip_stat_index) stat_index = nullptr;
  decltype(&::zip_fopen_index) fopen_index = nullptr;
  decltype(&::zip_fread) fread = nullptr;
  decltype(&::zip_fclose) fclose = nullptr;
  decltype(&::zip_error_init_with_code) error_init_with_code = nullptr;
  decltype(&::zip_error_strerror) error_strerror = nullptr;
  decltype(&::zip_error_fini) error_fini = nullptr;
};

// The loaded API, or nullptr with `why` set ("libzip.so.4: cannot open ...").
const ZipApi* zip_api(std::string& why);

}  // namespace cudiag::inspect
