// The explain engine on its own: the signature table's checks, logs with
// several messages, long lines, and the machine-specific lines built from a
// fixture report. Message texts are verbatim from the public reports in
// cases.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "../kb/kb_test_util.h"
#include "core/errors.h"
#include "explain/explain.h"
#include "kb/knowledge_base.h"
#include "signature_load_util.h"

namespace cudiag::explain {
namespace {

using kb::KnowledgeBase;

const KnowledgeBase& builtin() { return KnowledgeBase::builtin(); }

Json fixture_report() {
  std::ifstream in(std::string(CUDIAG_TEST_DIR) + "/unit/explain/report_driver_535.json", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return Json::parse(s.str());
}

bool has_line(const std::vector<std::string>& lines, const std::string& needle) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Breaks one signature of a copy of the knowledge base and returns the load error.
std::string break_signature(const std::string& name, const std::function<void(Json&)>& edit) {
  return testing::signatures_load_error(name, [&](Json& doc) { edit(doc["entries"][0]); });
}

TEST(ExplainSignaturesTest, BuiltinTableLoadsWithAnchorsAndSources) {
  const auto& sigs = signatures(builtin());
  ASSERT_GE(sigs.size(), 25u);
  for (const auto& s : sigs) {
    EXPECT_FALSE(s.anchors.empty()) << s.id;
    EXPECT_FALSE(s.provenance.sources.empty()) << s.id;
    for (const auto& src : s.provenance.sources) EXPECT_EQ(src.url.rfind("https://", 0), 0u) << s.id;
  }
}

TEST(ExplainSignaturesTest, BadEntriesAreRejectedWithFileEntryAndField) {
  auto bad_regex = break_signature("regex", [](Json& e) { e["regex"] = "(unclosed"; });
  EXPECT_NE(bad_regex.find("error_signatures"), std::string::npos) << bad_regex;
  EXPECT_NE(bad_regex.find("regex"), std::string::npos) << bad_regex;

  auto bad_placeholder =
      break_signature("placeholder", [](Json& e) { e["meaning"] = "the {nothing} value"; });
  EXPECT_NE(bad_placeholder.find("{nothing}"), std::string::npos) << bad_placeholder;

  auto bad_groups =
      break_signature("groups", [](Json& e) { e["regex"] = "(CUDA) driver version is insufficient"; });
  EXPECT_NE(bad_groups.find("groups"), std::string::npos) << bad_groups;

  auto bad_error = break_signature("error", [](Json& e) {
    e["errors"] = Json::array({{{"api", "runtime"}, {"code", 4242}}});
  });
  EXPECT_NE(bad_error.find("4242"), std::string::npos) << bad_error;

  auto bad_layer = break_signature("layer", [](Json& e) { e["layer"] = "firmware"; });
  EXPECT_NE(bad_layer.find("firmware"), std::string::npos) << bad_layer;

  auto unnamed_program =
      break_signature("program", [](Json& e) { e["program_cause"] = "Reinstall the package."; });
  EXPECT_NE(unnamed_program.find("program_cause"), std::string::npos) << unnamed_program;

  auto unknown_value = break_signature("value", [](Json& e) {
    e["value_causes"] = Json::array({{{"value", "nothing"}, {"equals", "older"}, {"cause", "Do this."}}});
  });
  EXPECT_NE(unknown_value.find("value_causes: {nothing}"), std::string::npos) << unknown_value;

  auto list_of_nothing = break_signature("of", [](Json& e) {
    e["regex"] = "(sm_\\d+) is not compatible";
    e["captures"] = Json::array({{{"name", "list"}, {"kind", "arch_list"}, {"of", "gpu"}}});
  });
  EXPECT_NE(list_of_nothing.find("of: no arch capture 'gpu'"), std::string::npos) << list_of_nothing;
}

TEST(ExplainEngineTest, TextWithoutAKnownMessageExplainsNothing) {
  EXPECT_TRUE(
      explain_text("Segmentation fault (core dumped)\nerror: 1 warning generated", builtin()).empty());
  EXPECT_TRUE(explain_text("", builtin()).empty());
}

// Forums and word processors turn quotes typographic; the message is the same.
TEST(ExplainEngineTest, TypographicQuotesReadAsTheAsciiOnesMessagesArePrintedWith) {
  auto found = explain_text(
      "docker: Error response from daemon: could not select device driver \u201c\u201d with "
      "capabilities: [[gpu]].",
      builtin());
  ASSERT_EQ(found.size(), 1u);
  auto plain = explain_text(
      "docker: Error response from daemon: could not select device driver \"\" with "
      "capabilities: [[gpu]].",
      builtin());
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(found[0].id, plain[0].id);
  EXPECT_EQ(found[0].layer, "container");
}

TEST(ExplainEngineTest, LogWithSeveralMessagesFindsEachInOrderWithLineNumbers) {
  std::string log =
      "starting job\n"
      "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver "
      "to a newer "
      "version, or use an earlier cuda container\n"
      "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\r\n"
      "ok\n"
      "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your "
      "GPU driver\n"
      "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n";
  auto found = explain_text(log, builtin());
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].id, "container-cuda-requirement");
  EXPECT_EQ(found[0].lines, std::vector<std::size_t>{2});
  EXPECT_EQ(found[1].id, "missing-cuda-library");
  EXPECT_EQ(found[1].lines, (std::vector<std::size_t>{3, 6}));
  EXPECT_EQ(found[1].occurrences, 2u);
  EXPECT_EQ(found[2].id, "torch-driver-too-old");
  EXPECT_EQ(value_of(found[2], "found_cuda"), "11.4");
}

TEST(ExplainEngineTest, ABareNumberCountsInALogOnlyNearCudaWords) {
  // A single message the user typed is explained; the same words in a log need CUDA context.
  ExplainOptions typed;
  typed.require_context = false;
  auto found = explain_text("error code 209", builtin(), typed);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "no-kernel-image");
  EXPECT_EQ(found[0].matched_by, "cuda-error-code");
  EXPECT_TRUE(explain_text("error code 209", builtin()).empty());
  // A number no API defines is not recognised, whatever the context.
  EXPECT_TRUE(explain_text("CUDA error 4321", builtin(), typed).empty());
}

TEST(ExplainEngineTest, ARuntimeNumberOfCuda10AndOlderIsReadInTheOldNumbering) {
  // Caffe's CHECK quotes the runtime's number; CUDA 10.1 renumbered the errors (unknown 30 -> 999).
  auto unknown =
      explain_text("F0119 common.cpp:152] Check failed: error == cudaSuccess (30 vs. 0)", builtin());
  ASSERT_FALSE(unknown.empty());
  EXPECT_EQ(unknown[0].id, "cuda-unknown-error");
  EXPECT_TRUE(std::any_of(unknown[0].notes.begin(), unknown[0].notes.end(), [](const std::string& n) {
    return n.find("CUDA 10.0 and older") != std::string::npos;
  }));
  // 8 today is a profiler error deprecated since CUDA 5.0: in a log it is the old invalid device function.
  auto eight = explain_text("Check failed: error == cudaSuccess (8 vs. 0)", builtin());
  ASSERT_FALSE(eight.empty());
  EXPECT_EQ(eight[0].layer, "binaries");
  // A number today's numbering defines keeps today's meaning (35: the driver is too old).
  auto current = explain_text("Check failed: error == cudaSuccess (35 vs. 0)", builtin());
  ASSERT_FALSE(current.empty());
  EXPECT_EQ(current[0].layer, "driver_api");
}

TEST(ExplainEngineTest, SpecificMatchWinsOverTheGenericOnesOnItsLine) {
  auto found = explain_text(
      " CUDA error: 35 (0x23) cudaErrorInsufficientDriver : CUDA driver version is insufficient for CUDA "
      "runtime version",
      builtin());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].matched_by, "runtime-insufficient-driver");
  ASSERT_FALSE(found[0].errors.empty());
  EXPECT_EQ(found[0].errors[0].name, "cudaErrorInsufficientDriver");
}

TEST(ExplainEngineTest, OutOfMemorySaysItIsNotAnEnvironmentProblem) {
  auto found = explain_text(
      "RuntimeError: CUDA out of memory. Tried to allocate 92.00 MiB (GPU 0; 1.96 GiB total capacity",
      builtin());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].environment);
  EXPECT_NE(found[0].meaning.find("Not an environment problem"), std::string::npos);
}

TEST(ExplainEngineTest, LongLinesAreScannedWithoutBlowingUp) {
  // Megabyte-long lines full of anchor words: each regex only sees bounded
  // windows, so this neither overflows libstdc++'s recursive regex executor
  // nor backtracks for ever (a hang would hit the test timeout).
  std::string junk;
  while (junk.size() < 200000)
    junk += "cuda error cannot open shared object file unknown error libcudart.so.";
  std::string words(200000, 'a');
  std::string digits(200000, '9');
  std::string message =
      "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory";
  auto found = explain_text(junk + words + digits + " " + message, builtin());
  auto it = std::find_if(found.begin(), found.end(),
                         [](const Explanation& e) { return e.id == "missing-cuda-library"; });
  ASSERT_NE(it, found.end());
  EXPECT_EQ(value_of(*it, "lib"), "libcudart.so.11.0");
  EXPECT_TRUE(explain_text(std::string(2000000, '('), builtin()).empty());
}

// Per signature: thousands of its anchors with the characters its classes
// accept in between, the shape that makes a backtracking regex explode. The
// signatures are split in four parts, each its own test: one 60 KB line per
// signature takes seconds, and under ASan the whole list (348 signatures)
// outgrew the per-test timeout that still catches a regex that explodes.
constexpr std::size_t kSignatureParts = 4;
class EverySignatureSurvives : public ::testing::TestWithParam<std::size_t> {};

TEST_P(EverySignatureSurvives, ALineOfItsOwnAnchorsAndNearMisses) {
  const auto& sigs = signatures(builtin());
  for (std::size_t i = GetParam(); i < sigs.size(); i += kSignatureParts) {
    const auto& sig = sigs[i];
    std::string line;
    while (line.size() < 60000)
      line += sig.anchors.front() + " lib" + std::string(70, 'a') + ".so.1 (999) cuda ";
    EXPECT_NO_THROW(explain_text(line, builtin())) << sig.id;
  }
}

INSTANTIATE_TEST_SUITE_P(ExplainEngineTest, EverySignatureSurvives,
                         ::testing::Range<std::size_t>(0, kSignatureParts));

TEST(ExplainMachineTest, InsufficientDriverNamesTheDriverAndTheRuntimeThatNeedsMore) {
  auto found = explain_text(
      "ERROR: cudaGetDeviceCount CUDA driver version is insufficient for CUDA runtime version", builtin());
  ASSERT_EQ(found.size(), 1u);
  add_machine_lines(found, fixture_report(), builtin());
  const auto& m = found[0].machine;
  EXPECT_TRUE(has_line(m, "Your driver 535.104.05 supports CUDA up to 12.2 (cuDriverGetVersion 12020)"))
      << joined(m);
  auto req = builtin().driver_for_cuda(*Version::parse("13.0"));
  ASSERT_TRUE(req && req->full_min);
  EXPECT_TRUE(
      has_line(m, "libcudart.so.13 is CUDA runtime 13.0, newer than your driver's 12.2 -> install driver " +
                      req->full_min->text()))
      << joined(m);
  EXPECT_TRUE(has_line(m, "cudaErrorInsufficientDriver")) << joined(m);
}

TEST(ExplainMachineTest, ContainerRequirementComparesWithThisDriver) {
  auto found = explain_text(
      "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your "
      "driver to a newer version, or use an earlier cuda container",
      builtin());
  ASSERT_EQ(found.size(), 1u);
  add_machine_lines(found, fixture_report(), builtin());
  auto req = builtin().driver_for_cuda(*Version::parse("12.8"));
  ASSERT_TRUE(req && req->full_min);
  EXPECT_TRUE(has_line(found[0].machine,
                       "needs a driver that supports CUDA 12.8; yours supports 12.2 -> install driver " +
                           req->full_min->text()))
      << joined(found[0].machine);
  EXPECT_TRUE(has_line(found[0].notes, req->full_min->text())) << joined(found[0].notes);
}

TEST(ExplainMachineTest, DriverTooOldFromAnotherDriverIsSaidSo) {
  auto found = explain_text(
      "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).", builtin());
  ASSERT_EQ(found.size(), 1u);
  add_machine_lines(found, fixture_report(), builtin());
  EXPECT_TRUE(has_line(found[0].machine, "reported CUDA 11.4 but this machine's supports 12.2"))
      << joined(found[0].machine);
}

TEST(ExplainMachineTest, LibraryMessagesListWhatThisMachineHas) {
  auto found = explain_text(
      "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
      "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 3, 2) but linked "
      "against (8, 0, 3)",
      builtin());
  ASSERT_EQ(found.size(), 2u);
  add_machine_lines(found, fixture_report(), builtin());
  EXPECT_TRUE(has_line(found[0].machine, "libcudart.so.11.0 is not among the libraries cudiag found"))
      << joined(found[0].machine);
  EXPECT_TRUE(has_line(found[0].machine, "Other versions of libcudart here: libcudart.so.13"))
      << joined(found[0].machine);
  EXPECT_TRUE(has_line(found[1].machine, "cuDNN 8.9.7 at /usr/local/cuda-12.1/lib64/libcudnn.so.8"))
      << joined(found[1].machine);
  EXPECT_TRUE(has_line(found[1].machine, "LD_LIBRARY_PATH=/usr/local/cuda-12.1/lib64"))
      << joined(found[1].machine);
}

TEST(ExplainMachineTest, UnknownErrorShowsTheMissingUvmNode) {
  auto found = explain_text(
      "RuntimeError: cuda runtime error (999) : unknown error at /opt/conda/conda-bld/pytorch_1573049306803/"
      "work/aten/src/THC/THCGeneral.cpp:50",
      builtin());
  ASSERT_EQ(found.size(), 1u);
  add_machine_lines(found, fixture_report(), builtin());
  EXPECT_TRUE(has_line(found[0].machine, "The nvidia_uvm kernel module is not loaded."))
      << joined(found[0].machine);
  EXPECT_TRUE(has_line(found[0].machine, "Missing device nodes: /dev/nvidia-uvm."))
      << joined(found[0].machine);
  EXPECT_TRUE(has_line(found[0].machine, "cuInit on this machine returns CUDA_ERROR_UNKNOWN (999)"))
      << joined(found[0].machine);
}

// pynvml names each exception class after an NVML_ERROR_ name
// (NVMLError_LibRmVersionMismatch for NVML_ERROR_LIB_RM_VERSION_MISMATCH): every NVML error of the
// table is found from its class name, and a class pynvml does not define is no error.
TEST(ExplainEngineTest, PynvmlExceptionClassesAreTheirNvmlErrors) {
  int checked = 0;
  for (const auto& e : builtin().errors()) {
    if (e.api != "nvml" || e.name.rfind("NVML_ERROR_", 0) != 0) continue;
    std::string cls;
    bool start = true;
    for (char c : e.name.substr(11)) {
      if (c == '_') {
        start = true;
        continue;
      }
      cls += start ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      start = false;
    }
    auto found = explain_text("pynvml.NVMLError_" + cls + ": " + e.message, builtin());
    ASSERT_FALSE(found.empty()) << cls;
    bool named = std::any_of(found.front().errors.begin(), found.front().errors.end(),
                             [&](const ResolvedError& r) { return r.api == "nvml" && r.code == e.code; });
    // A specific signature may own the line (FunctionNotFound: the binding mismatch; OperatingSystem: its
    // message); otherwise the generic entry must have resolved the class.
    EXPECT_TRUE(named || found.front().matched_by != "pynvml-exception") << cls << " -> " << found.front().id;
    ++checked;
  }
  EXPECT_GE(checked, 20);
  EXPECT_TRUE(explain_text("pynvml.NVMLError_NoSuchThing: whatever", builtin()).empty());
}

// A CUDA version in a message gives the tag of the wheels built for it (PyTorch's index names).
TEST(ExplainEngineTest, CudaVersionsInAMessageGiveTheirWheelTags) {
  auto found = explain_text(
      "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. "
      "PyTorch has CUDA Version=12.1 and torchvision has CUDA Version=11.8.",
      builtin());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].layer, "frameworks");
  EXPECT_TRUE(has_line(found[0].notes, "cu121"));
  EXPECT_TRUE(has_line(found[0].notes, "https://download.pytorch.org/whl/cu118"));
}

}  // namespace
TEST(ExplainEngineTest, NvccHostCompilerLimitNamesTheToolkitThatAcceptsTheNextGcc) {
  auto found = explain_text(
      "/usr/local/cuda-10.0/include/crt/host_config.h:129:2: error: #error -- unsupported GNU version! gcc "
      "versions later than 7 are not supported!",
      builtin());
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].id, "nvcc-unsupported-host-compiler");
  EXPECT_EQ(value_of(found[0], "max_next_cuda"), "10.1");
  EXPECT_TRUE(has_line(found[0].notes, "the limit of nvcc in CUDA 9.2 to 10.0")) << joined(found[0].notes);
  EXPECT_NE(joined(found[0].causes).find("install CUDA 10.1 or newer"), std::string::npos)
      << joined(found[0].causes);
}

TEST(ExplainEngineTest, AnExtensionsUndefinedTorchSymbolNamesItsPipPackage) {
  auto found = explain_text(
      "ImportError: /opt/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: "
      "undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationE",
      builtin());
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].id, "torch-extension-abi-mismatch");
  EXPECT_EQ(value_of(found[0], "lib_module"), "flash_attn_2_cuda");
  EXPECT_EQ(value_of(found[0], "lib_package"), "flash-attn");
  // A module in a package directory is that package; an unknown one is its own name.
  auto tv = explain_text(
      "ImportError: /env/lib/python3.10/site-packages/torchvision/_C.so: undefined symbol: "
      "_ZN3c106detail19maybe_wrap_dim_slowEllb",
      builtin());
  ASSERT_FALSE(tv.empty());
  EXPECT_EQ(value_of(tv[0], "lib_package"), "torchvision");
  auto own = explain_text(
      "ImportError: ./sgutilslib.cpython-38-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi",
      builtin());
  ASSERT_FALSE(own.empty());
  EXPECT_EQ(value_of(own[0], "lib_package"), "sgutilslib");
}

TEST(ExplainEngineTest, ALibraryImportErrorAfterTorchsOwnFrameIsTheFrameworkInstall) {
  const std::string error =
      "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory";
  auto bare = explain_text(error, builtin());
  ASSERT_FALSE(bare.empty());
  EXPECT_EQ(bare[0].id, "missing-cuda-library");
  EXPECT_EQ(bare[0].layer, "libraries");
  auto traceback = explain_text(
      "  File \"/env/lib/python3.8/site-packages/torch/__init__.py\", line 229, in <module>\n"
      "    from torch._C import *  # noqa: F403\n" +
          error,
      builtin());
  ASSERT_FALSE(traceback.empty());
  EXPECT_EQ(traceback[0].id, "torch-import-library-failed");
  EXPECT_EQ(traceback[0].layer, "frameworks");
  // The frame must be among the few lines before the error, not anywhere in a long log.
  std::string far = "  File \"/env/lib/python3.8/site-packages/torch/__init__.py\", line 229\n";
  for (int i = 0; i < 20; ++i) far += "INFO step " + std::to_string(i) + "\n";
  auto distant = explain_text(far + error, builtin());
  ASSERT_FALSE(distant.empty());
  EXPECT_EQ(distant[0].id, "missing-cuda-library");
}

TEST(ExplainEngineTest, AWindowsDllNamesItsCudaRelease) {
  auto found = explain_text(
      "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found", builtin());
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].id, "tensorflow-dso-load-failed");
  EXPECT_EQ(found[0].layer, "cuda_runtime");  // cudart, whatever the platform's naming
  EXPECT_TRUE(has_line(found[0].notes, "cudart64_110.dll: the Windows DLL of cudart from CUDA 11.x"))
      << joined(found[0].notes);
}

// PyTorch prints its build's list on the next line: a GPU below the whole list needs an older PyTorch, not
// the newer CUDA that a GPU above it needs. Texts from https://github.com/pytorch/pytorch/issues/150733's
// family: a GTX 1080 (sm_61) under a cu128 wheel, a K80 (sm_37) under cu121, an RTX 5090 under cu124.
TEST(ExplainEngineTest, ABuildsArchitectureListOrdersOlderAndNewerGpuRemedies) {
  auto first_cause = [](const std::string& text) {
    auto found = explain_text(text, builtin());
    EXPECT_FALSE(found.empty()) << text;
    if (found.empty() || found[0].causes.empty()) return std::string();
    EXPECT_EQ(found[0].id, "torch-arch-not-supported");
    return found[0].causes[0];
  };
  auto older = first_cause(
      "NVIDIA GeForce GTX 1080 with CUDA capability sm_61 is not compatible with the current PyTorch installation.\n"
      "The current PyTorch install supports CUDA capabilities sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120.");
  EXPECT_NE(older.find("older than every architecture this PyTorch build targets (sm_70 to sm_120)"),
            std::string::npos)
      << older;
  EXPECT_NE(older.find("cu126"), std::string::npos) << older;  // the newest wheels with sm_50..sm_90
  EXPECT_EQ(older.find("cu80"), std::string::npos) << older;
  auto kepler = first_cause(
      "Tesla K80 with CUDA capability sm_37 is not compatible with the current PyTorch installation.\n"
      "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.");
  EXPECT_NE(kepler.find("older than every architecture"), std::string::npos) << kepler;
  EXPECT_NE(kepler.find("cu11"), std::string::npos) << kepler;  // Kepler's last wheels were CUDA 11
  auto newer = first_cause(
      "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
      "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 "
      "sm_90.");
  EXPECT_NE(newer.find("cu128"), std::string::npos) << newer;
  EXPECT_EQ(newer.find("older than every"), std::string::npos) << newer;
  // Without the list, the first cause stays the newer CUDA build.
  auto alone = first_cause(
      "NVIDIA GeForce GTX 1080 with CUDA capability sm_61 is not compatible with the current PyTorch installation.");
  EXPECT_EQ(alone.find("older than every"), std::string::npos) << alone;
}

TEST(ExplainMachineTest, StatedFactsDoNotClaimAVariableTheyDoNotNameIsUnset) {
  auto found = explain_text("Call to cuInit results in CUDA_ERROR_NO_DEVICE", builtin());
  ASSERT_FALSE(found.empty());
  Json stated = Json::object();
  stated["collected"] = false;
  stated["host"]["environment"]["CUDA_VISIBLE_DEVICES"] = {{"value", "-1"}, {"source", "assume:env"}};
  add_machine_lines(found, stated, builtin());
  EXPECT_TRUE(has_line(found[0].machine, "CUDA_VISIBLE_DEVICES=-1")) << joined(found[0].machine);
  EXPECT_FALSE(has_line(found[0].machine, "LD_LIBRARY_PATH is not set")) << joined(found[0].machine);
  // A collected report's environment is the whole allowlisted environment: what it lacks is unset.
  found = explain_text("Call to cuInit results in CUDA_ERROR_NO_DEVICE", builtin());
  Json collected = stated;
  collected["collected"] = true;
  add_machine_lines(found, collected, builtin());
  EXPECT_TRUE(has_line(found[0].machine, "LD_LIBRARY_PATH is not set here.")) << joined(found[0].machine);
}

}  // namespace cudiag::explain
