#pragma once
// Members of a System V / GNU `ar` archive (static libraries such as
// libcudadevrt.a), found without copying them out.
// Layout: "!<arch>\n", then per member a 60-byte header
//   name[16] date[12] uid[6] gid[6] mode[8] size[10] "`\n"
// and `size` bytes of data padded to an even offset. GNU names: "name/",
// "/123" = offset into the "//" long-name member, "/" and "/SYM64/" are
// symbol tables. BSD names: "#1/<len>", the name prefixing the data.
#include <cstdint>
#include <string>
#include <vector>

#include "inspect/byte_view.h"

namespace cudiag::inspect {

struct ArchiveMember {
  std::string name;
  std::uint64_t offset = 0;  // of the member's data, relative to the archive view
  std::uint64_t size = 0;
};

bool looks_like_archive(ByteView file);

// The archive's regular members (symbol tables and the long-name table
// left out). Throws FormatError for a header that is malformed or does not fit.
std::vector<ArchiveMember> list_archive_members(ByteView file);

}  // namespace cudiag::inspect
