#pragma once
// The storage behind KnowledgeBase, shared by the loader, the table builders
// and the queries. Not part of the API: include kb/knowledge_base.h instead.
#include <map>
#include <string>
#include <vector>

#include "kb/knowledge_base.h"

namespace cudiag::kb {

struct KnowledgeBase::Data {
  std::string origin;
  std::map<std::string, Json, std::less<>> raw;           // table name -> parsed file
  std::map<std::string, std::string, std::less<>> files;  // table name -> file it came from
  std::vector<ErrorCode> errors;
  std::vector<ToolkitRelease> toolkits;
  std::vector<MinorVersionCompat> mvc;
  std::vector<DriverBranch> branches;
  std::vector<Arch> archs;
  std::vector<PtxIsa> ptx;
  std::vector<HostCompilers> host_compilers;
  std::vector<Gpu> gpus;
  ForwardCompat fwd;
  std::vector<Library> libraries;
  std::vector<VersionEncoding> encodings;
};

}  // namespace cudiag::kb
