#pragma once
// The compatibility knowledge base: the data files in data/kb/*.json, compiled
// into the binary, parsed and validated once, and queried by the rules and by
// `cudiag kb`. Every record carries its sources (records.h). The rules are pure
// functions of (report, knowledge base), so this is their whole view of NVIDIA's
// compatibility facts.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/version.h"
#include "kb/records.h"

namespace cudiag {
struct GlobalOptions;
}

namespace cudiag::kb {

// A data file to load: a name for messages ("data/kb/gpus.json" or a path) and its text.
struct KbFile {
  std::string path;
  std::string text;
};

class KnowledgeBase {
 public:
  // Parsed once from the embedded data; an invalid embedded table is an internal error.
  static const KnowledgeBase& builtin();
  // Every *.json in `dir` (--kb DIR). All tables must be present. Throws
  // InputError("<file>: <what>") on unreadable, malformed or invalid data.
  static KnowledgeBase load_dir(const std::string& dir);
  // The same validation for files already in memory (tests, the builtin).
  static KnowledgeBase load_files(const std::vector<KbFile>& files, const std::string& origin);

  KnowledgeBase(KnowledgeBase&&) noexcept;
  KnowledgeBase& operator=(KnowledgeBase&&) noexcept;
  ~KnowledgeBase();

  // --- error codes: api is "driver", "runtime" or "nvml".
  const ErrorCode* error(std::string_view api, long code) const;
  const ErrorCode* error_named(std::string_view name) const;        // exact name, case-insensitive
  std::vector<const ErrorCode*> errors_with_code(long code) const;  // every api that defines it
  // The runtime error CUDA 10.0 and older numbered `code` (before CUDA 10.1's renumbering), if any.
  const ErrorCode* runtime_error_with_legacy_code(long code) const;
  // The errors whose recorded message is the longest one `text` starts with (case-insensitive, and
  // ending at a word boundary), one per API that prints it; empty when none does.
  std::vector<const ErrorCode*> errors_with_message(std::string_view text) const;
  const std::vector<ErrorCode>& errors() const;

  // --- toolkit -> driver. `cuda` may be "12.4" (the GA row of 12.4, what
  // cudaRuntimeGetVersion gives) or a full toolkit version "12.4.1"; os is
  // "linux" or "windows". nullopt for a release not in the table.
  std::optional<DriverRequirement> driver_for_cuda(const Version& cuda, std::string_view os = "linux") const;
  const std::vector<ToolkitRelease>& toolkit_releases() const;
  // The listed releases just below and just above a version the KB lacks.
  std::vector<const ToolkitRelease*> nearest_toolkit_releases(const Version& cuda) const;
  const MinorVersionCompat* mvc_for_major(long cuda_major) const;  // nullptr: no MVC (<= 10.x)
  const std::vector<MinorVersionCompat>& mvc() const;

  // --- driver -> CUDA version it reports. For a branch not in the table, the
  // nearest older listed branch (a lower bound: see branch_for_driver().exact).
  std::optional<Version> cuda_for_driver(const Version& driver) const;
  std::optional<BranchMatch> branch_for_driver(const Version& driver) const;
  const std::vector<DriverBranch>& driver_branches() const;

  // --- PTX ISA. ptx_isa_for_cuda matches major.minor ("12.4.1" -> 8.4);
  // cuda_for_ptx_isa gives the first CUDA version whose ISA is at least `isa`.
  std::optional<Version> ptx_isa_for_cuda(const Version& cuda) const;
  std::optional<Version> cuda_for_ptx_isa(const Version& isa) const;
  const std::vector<PtxIsa>& ptx_isas() const;

  // --- Host compilers nvcc accepts. host_compilers_for: the row in force for
  // `cuda` (nullptr before the first); first_cuda_for_gcc: the first release
  // whose nvcc accepts GCC `gcc_major` (nullopt: none known yet).
  const HostCompilers* host_compilers_for(const Version& cuda) const;
  std::optional<Version> first_cuda_for_gcc(long gcc_major) const;
  const std::vector<HostCompilers>& host_compilers() const;

  // --- architectures: "sm_120", "12.0", "120", "sm_90a", "compute_90", "sm_100f".
  const Arch* arch(std::string_view sm_or_cc) const;
  std::optional<ArchMatch> arch_match(std::string_view sm_or_cc) const;
  const Arch* arch_for_cc(const Version& cc) const;
  const std::vector<Arch>& archs() const;

  // --- GPUs. Case-insensitive token match: every word of `name` ("NVIDIA",
  // "GeForce" and "Tesla" are optional) is a word of the product name; best
  // matches first ("RTX 4090" gives the RTX 4090, then the RTX 4090 D). When no
  // product has every word, the products with the most model words in common.
  std::vector<const Gpu*> gpus_matching(std::string_view name) const;
  const Gpu* gpu_by_pci_id(unsigned device_id) const;
  // A GeForce GTX/RTX model the product list lacks ("GTX 750 Ti", "RTX 3050 Ti Laptop"), by the
  // series the architectures' examples name ("GeForce GTX 10xx", "GeForce GTX 900", "GeForce
  // GTX 600/700", "GeForce GTX 750"): an exact model first; nullptr when none or several archs fit.
  const Arch* arch_for_geforce_series(std::string_view name) const;
  const std::vector<Gpu>& gpus() const;

  // --- forward compatibility (cuda-compat) and minor-version compatibility.
  const ForwardCompat& forward_compat() const;

  // --- libraries.
  const Library* library(std::string_view name, long cuda_major) const;  // case-insensitive name
  std::vector<const Library*> libraries_named(std::string_view name) const;
  const std::vector<Library>& libraries() const;
  // decode_version("cudnn", 90100) -> 9.1.0; nullopt for an unknown library or code.
  std::optional<Version> decode_version(std::string_view library, long code) const;
  const VersionEncoding* encoding_for(std::string_view library, long code) const;
  const std::vector<VersionEncoding>& encodings() const;

  // --- tables as parsed, for `cudiag kb dump` and JSON output. Throws
  // InputError for an unknown table name.
  const Json& raw(std::string_view table) const;
  std::vector<TableInfo> tables() const;
  const std::string& origin() const;  // "built-in" or the --kb directory

  struct Data;  // defined in kb/data.h; public so the table builders can fill it

 private:
  explicit KnowledgeBase(std::unique_ptr<Data> data);
  std::unique_ptr<Data> d_;
};

// builtin() or load_dir(global.kb_dir), each loaded once per process.
const KnowledgeBase& active_kb(const GlobalOptions& global);

// The names of the tables every knowledge base must have, in display order.
const std::vector<std::string>& required_tables();

}  // namespace cudiag::kb
