#pragma once
// The error signatures of `cudiag explain`: the knowledge-base table
// data/kb/error_signatures.json, parsed, checked and with its regexes compiled.
// Knowledge is data: adding a message users paste is one entry in that file.
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "explain/lazy_regex.h"
#include "kb/knowledge_base.h"
#include "kb/records.h"

namespace cudiag::explain {

// What a capture group holds, which decides the values derived from it. A
// capture named "x" always gives {x}; the kinds add:
//   text                 -
//   driver_cuda_int      {x_cuda}      11040 -> "11.4" (what cudaDriverGetVersion returned)
//   required_cuda        {x_driver}    "12.8" -> the minimum driver from the knowledge base
//   soname               {x_stem} {x_base} {x_version}   "libcudart.so.11.0" -> "libcudart", "cudart", "11.0"
//                        (a Windows DLL "cudart64_110.dll" -> "cudart64_110", "cudart", "11.x")
//   error_code           {x_name} {x_meaning} {x_note}   resolved in error_codes
//   error_name           {x_code} {x_meaning} {x_note}   resolved in error_codes
//   error_message        {x_name} {x_code} {x_meaning} {x_note}   the text an API's string function prints
//                        (the longest recorded message the capture starts with), resolved in error_codes
//   arch                 {x_name} {x_first_cuda} {x_first_tag}   "sm_120" -> "Blackwell (GeForce RTX 50xx
//                        ...)", "12.8" (the first CUDA whose compilers target it), "cu128" (its wheels' tag)
//   cudnn_version        {x_version}   "(8, 5, 0)", "7102" -> "8.5.0", "7.1.2"
//   underscore_version   {x_version}   "12_1" -> "12.1"
//   ptx_isa              {x_cuda}      "8.5" -> "12.5", the first CUDA whose tools write that PTX ISA
//   cuda_version         {x_tag}       "11.7" -> "cu117", the tag of the wheels built for it (PyTorch's
//   index) nvml_exception       {x_name} {x_code} {x_meaning} {x_note}   pynvml's exception class suffix
//                        ("DriverNotLoaded" -> NVML_ERROR_DRIVER_NOT_LOADED), resolved in error_codes
//   extension            {x_module} {x_package}   a compiled Python extension's path
//                        (".../site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so") -> its
//                        top-level module ("flash_attn_2_cuda") and the pip package that ships it
//                        ("flash-attn", from the table's "extension_packages"; else the module's name)
//   gcc_max              {x_next_gcc} {x_next_cuda}   "7" (nvcc's "gcc versions later than 7") -> "8", and
//                        "10.1", the first CUDA whose nvcc accepts GCC 8 (the host_compilers table)
enum class CaptureKind {
  kText,
  kDriverCudaInt,
  kRequiredCuda,
  kSoname,
  kErrorCode,
  kErrorName,
  kErrorMessage,
  kArch,
  kCudnnVersion,
  kUnderscoreVersion,
  kPtxIsa,
  kCudaVersion,
  kNvmlException,
  kExtension,
  kGccMax,
  // A build's architecture list ("sm_70 sm_75 sm_80"), compared with the GPU's architecture that the
  // capture named by `of` holds: whether the GPU is older, newer or between, and what to install.
  kArchList
};

struct CaptureDef {
  std::string name;  // several groups may share a name (alternatives): the first that matched wins
  CaptureKind kind = CaptureKind::kText;
  std::string of;  // kArchList: the name of the capture holding the GPU's architecture
};

// A cause put first when a capture resolved to a given value: a build's list says the GPU is older
// than every architecture it targets, so the older PyTorch comes before the newer CUDA.
struct ValueCause {
  std::string value;   // a placeholder name a capture provides
  std::string equals;  // the text it must have
  std::string cause;
};

// Where the whole text shows a setting (a container, WSL) the message means
// another layer's failure: "libcuda.so.1: cannot open" in a `docker run` is
// the container started without the GPU, on a bare host a missing driver.
struct ContextLayer {
  std::vector<std::string> words;      // lowercase; any of them anywhere in the text
  std::vector<std::string> libraries;  // soname bases the match must name ("cuda"); empty: any
  std::string layer;
  std::string cause;          // put first among the causes (may use the signature's placeholders)
  std::string program_cause;  // instead of `cause` when the text names a program ({program})
};

struct Signature {
  std::string id;
  std::vector<std::string> anchors;  // lowercase literals; the regex runs only near one of them
  std::vector<std::string> context;  // lowercase; when given, the line must contain one (generic entries)
  // Lowercase; when given, one must appear on the line or the few lines before it: the frame of a
  // traceback that says whose import failed ("from torch._c import" before "ImportError: libcudnn...").
  std::vector<std::string> preceded_by;
  std::string pattern;
  // The pattern with its letters lowercased (not those of escapes such as \S or \D), matched
  // case-sensitively against the lowercased line, which is the same as matching the pattern
  // case-insensitively: libstdc++'s icase matching looks up the locale's ctype facet for every
  // character compared, which made it most of explain's time.
  LazyRegex regex;
  std::string layer;
  std::map<std::string, std::string> layer_for_library;  // soname base -> layer ("cuda" -> driver_api)
  std::vector<ContextLayer> context_layers;              // the first whose words the text has wins
  std::string title;
  std::string meaning;
  std::vector<std::string> causes;
  // With {program}: put first (after a context's cause) when the text names a program the table knows
  // (program_mentions.h), so the remedy says whose build to change.
  std::string program_cause;
  std::vector<ValueCause> value_causes;  // the first that holds is put first (after a context's cause)
  std::vector<std::string> checks;
  std::vector<CaptureDef> captures;  // one per regex group, in order
  std::vector<kb::ErrorRef> errors;  // the API errors this message stands for
  std::vector<std::string> machine;  // machine-specific checks to run against a report
  // Warning findings this message shows to have happened: with the message pasted they are errors.
  std::vector<std::string> confirms;
  // Another wording of the message another entry explains ("libcudnn.so.8 dont load" for "cannot open
  // shared object file"): this entry gives only anchors, regex and captures (the same as the other's),
  // and the other's id, layer, texts and machine checks explain it.
  std::string explained_by;
  int priority = 50;        // the higher wins when two matches overlap on a line
  bool generic = false;     // a bare error name or number: only on lines nothing specific matched
  bool environment = true;  // false: not an environment problem (out of memory)
  // A symptom several layers cause ("no CUDA-capable device"): its layer is the likeliest cause, and
  // a failing fact of the same report (missing /dev/nvidia*) answers before it whatever its layer.
  bool symptom = false;
  // CUDA failed before any kernel was launched (initialisation, no device): a stated build without
  // kernels for the GPU fails only at a launch, so it does not explain this symptom.
  bool before_kernels = false;
  // Says only that a deeper failure happened, whose own message usually follows (NCCL's "unhandled
  // system error … run with NCCL_DEBUG=INFO"), or a symptom in the reporter's words: any other
  // recognised message in the text answers first.
  bool defers = false;
  // Its match starts at one of its anchors (loose wordings anchored on common words): the regex is
  // tried once per anchor occurrence, not at every position around it.
  bool anchored = false;
  // The message itself spans two lines (PyTorch's "...used to compile\nPyTorch (11.8)"): its optional
  // tail is read across a line break even though the first line matches alone (wrapped_lines.h).
  bool continued = false;
  kb::Provenance provenance;
};

// The layers an explanation can point at: the report's layers and "container".
const std::vector<std::string>& explain_layers();
// The machine-specific checks a signature may ask for: the names of the checks machine_lines.cpp
// runs (defined there, from its table of checks, so the list the loader validates against is that table).
const std::vector<std::string>& machine_check_names();

// ASCII letters of a regex lowercased except the one after a backslash (\S, \D, \W, \B keep
// their meaning): matched against a lowercased line, it matches as the pattern case-insensitively.
std::string lowercase_pattern(const std::string& pattern);

// Parses and checks the table of `kb`. The regexes of the built-in table compile when first used
// (a test compiles each); those of a table from --kb compile here, so a bad one is named at once.
// Throws InputError
// "<file>: entries[i] (id): <what>" for a bad entry: a regex that does not
// compile, a capture count that differs from the regex's groups, an unknown
// layer, kind or machine check, a {placeholder} no capture provides, an
// error the error_codes table does not define.
std::vector<Signature> load_signatures(const kb::KnowledgeBase& kb);

// load_signatures(kb), once per knowledge base for the life of the process.
const std::vector<Signature>& signatures(const kb::KnowledgeBase& kb);

}  // namespace cudiag::explain
