// The frameworks layer on a fixture machine (tests/fixtures/frameworks/machine)
// completed with ELF files built by tests/unit/frameworks/CMakeLists.txt: the
// environments found, what each framework records, the loader's choices, and
// the findings the rules draw from them.
#include "frameworks_machine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/answer_cache.h"
#include "core/errors.h"
#include "core/fact.h"
#include "kb/knowledge_base.h"
#include "machine/library_search.h"
#include "machine/machine.h"
#include "probes/frameworks/frameworks_probe.h"
#include "report/assume.h"
#include "report/collect.h"
#include "rules/engine.h"

namespace cudiag {
namespace {

namespace fs = std::filesystem;

using frameworks_test::elf;
using frameworks_test::kCondaSp;
using frameworks_test::kVenvSp;

class FrameworksMachine : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One tree per process: ctest runs each test in its own process, in parallel.
    root_ = new fs::path(fs::path(CUDIAG_FRAMEWORKS_WORK_DIR) / ("machine-" + std::to_string(::getpid())));
    frameworks_test::build_frameworks_machine(*root_);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*root_, ec);
    delete root_;
    root_ = nullptr;
  }

  static Json probe(std::map<std::string, std::string> vars, const std::vector<std::string>& pythons = {}) {
    machine::Machine machine{FsRoot(root_->string()), machine::Environment::from_map(std::move(vars)), {}};
    machine::LibrarySearch search(machine.root, machine.env);
    probes::ProbeContext ctx{machine, search, ""};
    return probes::probe_frameworks(ctx, pythons);
  }

  static std::map<std::string, std::string> user_env() { return frameworks_test::user_env(); }

  static const Json* env_at(const Json& layer, const std::string& prefix) {
    for (const auto& e : layer["environments"])
      if (e["prefix"] == prefix) return &e;
    return nullptr;
  }
  static const Json* framework(const Json& env, const std::string& name) {
    for (const auto& f : env["frameworks"])
      if (f["name"] == name) return &f;
    return nullptr;
  }
  static const Json* load(const Json& fw, const std::string& soname) {
    for (const auto& l : fw["loads"])
      if (l["soname"] == soname) return &l;
    return nullptr;
  }

  static fs::path* root_;
};

fs::path* FrameworksMachine::root_ = nullptr;

TEST_F(FrameworksMachine, FindsEveryEnvironmentWithoutRunningPython) {
  auto layer = probe(user_env());
  const auto* venv = env_at(layer, "/home/u/venv");
  ASSERT_NE(venv, nullptr) << layer.dump(1);
  EXPECT_EQ((*venv)["kind"], "venv");
  EXPECT_EQ((*venv)["python_version"], "3.11");
  EXPECT_EQ((*venv)["site_packages"], Json::array({kVenvSp}));
  // Both VIRTUAL_ENV and PATH's first python3 name the venv: one environment.
  EXPECT_EQ((*venv)["found_via"].size(), 2u);
  const auto* sys = env_at(layer, "/usr");
  ASSERT_NE(sys, nullptr);
  EXPECT_EQ((*sys)["python_version"], "3.11");
  EXPECT_EQ((*sys)["site_packages"], Json::array({"/usr/lib/python3/dist-packages"}));
  const auto* conda = env_at(layer, "/opt/conda/envs/ml");
  ASSERT_NE(conda, nullptr);
  EXPECT_EQ((*conda)["kind"], "conda");
  EXPECT_EQ((*conda)["site_packages"], Json::array({kCondaSp}));
}

TEST_F(FrameworksMachine, PythonOptionMustExist) {
  EXPECT_THROW(probe(user_env(), {"/no/such/python"}), InputError);
  auto layer = probe({}, {"/home/u/venv/bin/python3"});
  const auto* venv = env_at(layer, "/home/u/venv");
  ASSERT_NE(venv, nullptr);
  EXPECT_EQ((*venv)["found_via"][0], "--python /home/u/venv/bin/python3");
}

TEST_F(FrameworksMachine, TorchBuildAndWheels) {
  auto layer = probe(user_env());
  const auto& venv = *env_at(layer, "/home/u/venv");
  const auto* torch = framework(venv, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ((*torch)["version"]["value"], "2.4.0+cu124");
  EXPECT_EQ((*torch)["build"]["cuda"]["value"], "12.4");
  EXPECT_EQ((*torch)["build"]["cpu_only"]["value"], false);
  EXPECT_EQ((*torch)["build"]["local_tag"]["value"], "cu124");
  EXPECT_EQ((*torch)["build"]["git_version"]["value"], "e4ee3be4063b7c430974252fdf7db42273388d86");
  // The long description after METADATA's headers is not parsed.
  EXPECT_EQ((*torch)["requires"].size(), 4u);
  EXPECT_EQ(venv["nvidia_wheels"].size(), 4u);
  for (const auto& w : venv["nvidia_wheels"]) EXPECT_EQ(w["cuda_major"], 12) << w.dump();
}

TEST_F(FrameworksMachine, LoaderOrderRpathLdLibraryPathRunpath) {
  auto layer = probe(user_env());
  const auto& torch = *framework(*env_at(layer, "/home/u/venv"), "torch");
  const auto* cudnn = load(torch, "libcudnn.so.9");
  ASSERT_NE(cudnn, nullptr) << torch["loads"].dump(1);
  EXPECT_EQ((*cudnn)["via"], "RPATH $ORIGIN/../../nvidia/cudnn/lib");
  EXPECT_EQ((*cudnn)["wheel"], "nvidia-cudnn-cu12");
  EXPECT_EQ((*cudnn)["version"]["value"], "9.1.0.70");
  // No nccl wheel: the system copy through the default path, versioned by its file name.
  const auto* nccl = load(torch, "libnccl.so.2");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ((*nccl)["path"], "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
  EXPECT_EQ((*nccl)["version"]["value"], "2.18.3");
  // libcusparse's RUNPATH comes after LD_LIBRARY_PATH: the old toolkit's nvJitLink wins.
  const auto* jit = load(torch, "libnvJitLink.so.12");
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ((*jit)["via"], "LD_LIBRARY_PATH");
  EXPECT_EQ((*jit)["needed_by"], kVenvSp + "/nvidia/cusparse/lib/libcusparse.so.12");
  EXPECT_EQ((*jit)["version"]["value"], "12.1.105");
  // Without LD_LIBRARY_PATH the RUNPATH finds the wheel's.
  auto vars = user_env();
  vars.erase("LD_LIBRARY_PATH");
  auto clean = probe(vars);
  const auto* jit2 = load(*framework(*env_at(clean, "/home/u/venv"), "torch"), "libnvJitLink.so.12");
  ASSERT_NE(jit2, nullptr);
  EXPECT_EQ((*jit2)["via"], "RUNPATH $ORIGIN/../../nvjitlink/lib");
  EXPECT_EQ((*jit2)["version"]["value"], "12.4.127");
}

TEST_F(FrameworksMachine, TorchArchitecturesFromFatbinHeaders) {
  if (!fs::exists(elf("libtorch_cuda.so")))
    GTEST_SKIP() << "nvcc was not found at build time: no libtorch_cuda.so with device code";
  auto layer = probe(user_env());
  const auto& torch = *framework(*env_at(layer, "/home/u/venv"), "torch");
  const Json* archs = nullptr;
  for (const auto& b : torch["binaries"])
    if (b.contains("architectures")) archs = &b["architectures"];
  ASSERT_NE(archs, nullptr) << torch["binaries"].dump(1);
  EXPECT_EQ((*archs)["sass"], Json::array({"sm_75", "sm_80", "sm_86"}));
  ASSERT_EQ((*archs)["ptx"].size(), 1u);
  EXPECT_EQ((*archs)["ptx"][0]["arch"], "compute_86");
}

// A 1 GB libtorch_cuda.so costs ~10 ms of fatbin headers: what an unchanged
// file said comes from the answer cache, and a changed file is read again.
TEST_F(FrameworksMachine, ArchitecturesAreRememberedPerFileIdentity) {
  if (!fs::exists(elf("libtorch_cuda.so"))) GTEST_SKIP() << "nvcc was not found at build time";
  auto cache_dir = *root_ / "answer-cache";
  auto probe_with = [&](AnswerCache& answers) {
    machine::Machine machine{FsRoot(root_->string()), machine::Environment::from_map(user_env()), {}};
    machine::LibrarySearch search(machine.root, machine.env);
    probes::ProbeContext ctx{machine, search, "", &answers};
    auto layer = probes::probe_frameworks(ctx, {});
    answers.save();
    return (*framework(*env_at(layer, "/home/u/venv"), "torch"))["binaries"];
  };
  AnswerCache first(cache_dir.string());
  auto read = probe_with(first);
  EXPECT_EQ(first.status()["hits"], 0);
  EXPECT_GE(first.status()["misses"], 1);
  AnswerCache second(cache_dir.string());
  auto remembered = probe_with(second);
  EXPECT_GE(second.status()["hits"], 1);
  EXPECT_EQ(remembered, read);
  // Rewriting the file (new mtime/ctime) makes it a different file.
  auto lib = *root_ / kVenvSp.substr(1) / "torch/lib/libtorch_cuda.so";
  fs::copy_file(elf("libtorch_global_deps.so"), lib, fs::copy_options::overwrite_existing);
  AnswerCache third(cache_dir.string());
  auto changed = probe_with(third);
  EXPECT_EQ(third.status()["hits"], 0);
  bool has_archs = false;
  for (const auto& b : changed) has_archs = has_archs || b.contains("architectures");
  EXPECT_TRUE(has_archs);  // read again: a plain ELF now, with no device code
  for (const auto& b : changed) {
    if (!b.contains("architectures")) continue;
    EXPECT_TRUE(b["architectures"]["sass"].empty()) << b.dump();
  }
  fs::copy_file(elf("libtorch_cuda.so"), lib, fs::copy_options::overwrite_existing);
}

TEST_F(FrameworksMachine, OtherFrameworks) {
  auto layer = probe(user_env());
  const auto& ml = *env_at(layer, "/opt/conda/envs/ml");
  const auto* tf = framework(ml, "tensorflow");
  ASSERT_NE(tf, nullptr);
  EXPECT_EQ((*tf)["build"]["cuda"]["value"], "12.2");
  EXPECT_EQ((*tf)["build"]["cudnn"]["value"], "8");
  EXPECT_EQ((*tf)["build"]["cpu_only"]["value"], false);
  EXPECT_EQ((*tf)["build"]["cuda_compute_capabilities"]["value"].size(), 5u);
  EXPECT_EQ((*tf)["requires"][0]["extra"], "and-cuda");
  const auto* jax = framework(ml, "jax");
  ASSERT_NE(jax, nullptr);
  EXPECT_EQ((*jax)["version"]["value"], "0.7.1");
  EXPECT_EQ((*jax)["build"]["cuda_major"]["value"], 13);
  EXPECT_EQ((*jax)["plugins"].size(), 2u);
  const auto* ort = framework(ml, "onnxruntime");
  ASSERT_NE(ort, nullptr);
  EXPECT_EQ((*ort)["package"], "onnxruntime-gpu");
  EXPECT_EQ((*ort)["build"]["cudnn_major"]["value"], 8);
  const auto* cudnn8 = load(*ort, "libcudnn.so.8");
  ASSERT_NE(cudnn8, nullptr);
  EXPECT_TRUE((*cudnn8)["path"].is_null());
  const auto* cupy = framework(ml, "cupy");
  ASSERT_NE(cupy, nullptr);
  EXPECT_EQ((*cupy)["build"]["cuda_major"]["value"], 12);
  const auto& sys_torch = *framework(*env_at(layer, "/usr"), "torch");
  EXPECT_TRUE(sys_torch["build"]["cuda"]["value"].is_null());
  EXPECT_EQ(sys_torch["build"]["cpu_only"]["value"], true);
  EXPECT_EQ(sys_torch["version"]["value"], "1.13.0a0+gitunknown");
}

// A report around the probed layer: driver 535 (CUDA 12.2) and one GPU of compute capability `cc`.
Json report_with_gpu(const Json& frameworks, const std::string& cc) {
  Json r = Json::object();
  r["kernel_driver"] = Json::object();
  r["kernel_driver"]["version"] = fact("535.104.05", "file:/proc/driver/nvidia/version");
  Json dev = Json::object();
  dev["bus_id"] = "0000:01:00.0";
  dev["kind"] = "gpu";
  dev["compute_capability"] = fact(cc, "test");
  r["kernel_driver"]["pci_devices"] = Json::array({dev});
  r["frameworks"] = frameworks;
  return r;
}

std::vector<rules::Finding> findings(const Json& report, const std::string& id) {
  auto d = rules::diagnose(report, kb::KnowledgeBase::builtin());
  std::vector<rules::Finding> out;
  for (auto& f : d.findings)
    if (f.id == id) out.push_back(f);
  return out;
}

TEST_F(FrameworksMachine, RulesOnTheFixtureMachine) {
  auto report = report_with_gpu(probe(user_env()), "8.9");
  auto cpu = findings(report, "frameworks.cpu_only_build_with_gpu");
  ASSERT_EQ(cpu.size(), 1u);
  EXPECT_NE(cpu[0].message.find("torch 1.13.0a0+gitunknown in /usr"), std::string::npos) << cpu[0].message;

  // torch cu124 on a 12.2 driver: minor-version compatibility (warning); JAX's CUDA 13 plugin: error.
  auto drv = findings(report, "frameworks.cuda_build_needs_newer_driver");
  ASSERT_EQ(drv.size(), 2u);
  const rules::Finding* torch_drv = nullptr;
  const rules::Finding* jax_drv = nullptr;
  for (const auto& f : drv) (f.message.find("jax") != std::string::npos ? jax_drv : torch_drv) = &f;
  ASSERT_TRUE(torch_drv && jax_drv);
  EXPECT_EQ(torch_drv->severity, rules::Severity::kWarning);
  EXPECT_NE(torch_drv->message.find("CUDA 12.4"), std::string::npos) << torch_drv->message;
  EXPECT_EQ(jax_drv->severity, rules::Severity::kError);

  auto shadowed = findings(report, "frameworks.library_shadowed");
  ASSERT_EQ(shadowed.size(), 1u);
  EXPECT_EQ(shadowed[0].severity, rules::Severity::kError);
  EXPECT_NE(shadowed[0].message.find("libnvJitLink.so.12 12.1.105"), std::string::npos)
      << shadowed[0].message;
  EXPECT_NE(shadowed[0].remediation.find("/usr/local/cuda-12.1/lib64"), std::string::npos);

  auto mismatch = findings(report, "frameworks.library_version_mismatch");
  ASSERT_EQ(mismatch.size(), 1u);
  EXPECT_EQ(mismatch[0].severity, rules::Severity::kWarning);
  EXPECT_NE(mismatch[0].message.find("nvidia-nccl-cu12==2.20.5"), std::string::npos) << mismatch[0].message;

  // ONNX Runtime's provider needs libcudnn.so.8 (DT_NEEDED: error); JAX's CUDA 13
  // plugin would dlopen libraries that exist nowhere (warnings: it falls back to the CPU).
  auto missing = findings(report, "frameworks.library_not_found");
  std::vector<rules::Finding> missing_errors;
  for (const auto& f : missing)
    if (f.severity == rules::Severity::kError) missing_errors.push_back(f);
  ASSERT_EQ(missing_errors.size(), 1u);
  EXPECT_NE(missing_errors[0].message.find("libcudnn.so.8"), std::string::npos);
  EXPECT_EQ(missing.size(), 4u);

  EXPECT_EQ(findings(report, "frameworks.mixed_cuda_majors").size(), 1u);
  // sm_86 SASS runs on 8.9 and TensorFlow has sm_80: nothing to say about architectures.
  EXPECT_TRUE(findings(report, "frameworks.ptx_jit_needed").empty());
  EXPECT_TRUE(findings(report, "frameworks.no_kernel_for_gpu").empty());
}

TEST_F(FrameworksMachine, ArchitectureRules) {
  if (!fs::exists(elf("libtorch_cuda.so"))) GTEST_SKIP() << "nvcc was not found at build time";
  auto layer = probe(user_env());
  // Hopper: no sm_9x SASS; the compute_86 PTX nvcc 13 wrote needs a newer JIT than driver 535's.
  auto hopper = findings(report_with_gpu(layer, "9.0"), "frameworks.no_kernel_for_gpu");
  ASSERT_FALSE(hopper.empty());
  EXPECT_NE(hopper[0].message.find("torch 2.4.0+cu124"), std::string::npos) << hopper[0].message;
  // Volta: older than every architecture the build carries.
  auto volta = findings(report_with_gpu(layer, "7.0"), "frameworks.gpu_older_than_build");
  ASSERT_FALSE(volta.empty());
  EXPECT_NE(volta[0].message.find("torch"), std::string::npos);
}

TEST_F(FrameworksMachine, NoGpuNoGpuFindings) {
  Json report = Json::object();
  report["kernel_driver"] = Json::object();
  report["kernel_driver"]["pci_devices"] = Json::array();
  report["frameworks"] = probe(user_env());
  EXPECT_TRUE(findings(report, "frameworks.cpu_only_build_with_gpu").empty());
  EXPECT_TRUE(findings(report, "frameworks.gpu_older_than_build").empty());
}

}  // namespace
}  // namespace cudiag

namespace cudiag {
namespace {

// onnxruntime beside onnxruntime-gpu: the probe says so and the rule warns, from a collected
// environment (a second dist-info added to the fixture's copy) and from stated packages alike.
TEST_F(FrameworksMachine, OnnxruntimeCpuAndGpuPackagesInstalledTogether) {
  auto meta = *root_ / (kCondaSp.substr(1) + "/onnxruntime-1.18.0.dist-info/METADATA");
  fs::create_directories(meta.parent_path());
  std::ofstream(meta) << "Metadata-Version: 2.1\nName: onnxruntime\nVersion: 1.18.0\n";
  auto layer = probe(user_env());
  fs::remove_all(meta.parent_path());
  const auto* ort = framework(*env_at(layer, "/opt/conda/envs/ml"), "onnxruntime");
  ASSERT_NE(ort, nullptr);
  EXPECT_EQ((*ort)["package"], "onnxruntime-gpu");
  ASSERT_TRUE(ort->contains("conflicting_packages"));
  EXPECT_EQ(findings(report_with_gpu(layer, "8.6"), "frameworks.onnxruntime_cpu_and_gpu_installed").size(),
            1u);
  EXPECT_TRUE(
      findings(report_with_gpu(probe(user_env()), "8.6"), "frameworks.onnxruntime_cpu_and_gpu_installed")
          .empty());

  Json stated = report::new_report();
  report::apply_assumptions(stated, {"onnxruntime=1.2.0", "onnxruntime-gpu=1.2.0"},
                            kb::KnowledgeBase::builtin());
  auto d = rules::diagnose(stated, kb::KnowledgeBase::builtin());
  EXPECT_TRUE(std::any_of(d.findings.begin(), d.findings.end(), [](const rules::Finding& f) {
    return f.id == "frameworks.onnxruntime_cpu_and_gpu_installed";
  }));
}

}  // namespace
}  // namespace cudiag

namespace cudiag {
namespace {

// torchvision/torchaudio/torchcodec beside torch: the probe reads their dist-info, and the rule
// names a pair the knowledge base does not list, from a collected environment and from stated
// packages (a pasted pip list) alike.
TEST_F(FrameworksMachine, TorchCompanionBuiltForAnotherTorch) {
  auto add = [&](const std::string& name, const std::string& version) {
    auto meta = *root_ / (kVenvSp.substr(1) + "/" + name + "-" + version + ".dist-info/METADATA");
    fs::create_directories(meta.parent_path());
    std::ofstream(meta) << "Metadata-Version: 2.1\nName: " << name << "\nVersion: " << version << "\n";
    return meta.parent_path();
  };
  auto mismatched = [](const Json& report) {
    std::vector<rules::Finding> out;
    for (auto& f : rules::diagnose(report, kb::KnowledgeBase::builtin()).findings)
      if (f.id == "frameworks.torch_companion_mismatch") out.push_back(f);
    return out;
  };
  auto wrap = [](const Json& layer) {
    Json report = report::new_report();
    report["frameworks"] = layer;
    return report;
  };
  // torch 2.4 with torchvision 0.19 (its pair) and torchaudio 2.5 (torch 2.5's).
  auto vision = add("torchvision", "0.19.0+cu124");
  auto audio = add("torchaudio", "2.5.1+cu124");
  auto layer = probe(user_env());
  fs::remove_all(vision);
  fs::remove_all(audio);
  const auto& venv = *env_at(layer, "/home/u/venv");
  ASSERT_TRUE(venv.contains("torch_companions")) << venv.dump(1);
  EXPECT_EQ(venv["torch_companions"]["torchvision"]["value"], "0.19.0+cu124");
  auto found = mismatched(wrap(layer));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("torchaudio 2.5.1+cu124 is built for torch 2.5"), std::string::npos)
      << found[0].message;
  EXPECT_NE(found[0].remediation.find("torchaudio==2.4.*"), std::string::npos) << found[0].remediation;
  EXPECT_TRUE(found[0].independent);    // it fails whatever the driver below it does
  ASSERT_EQ(found[0].docs.size(), 1u);  // torchaudio's own table
  EXPECT_NE(found[0].docs[0].url.find("pytorch.org/audio"), std::string::npos);
  // Without the companions, no key and no finding.
  EXPECT_FALSE(env_at(probe(user_env()), "/home/u/venv")->contains("torch_companions"));

  // Stated: torchcodec 0.1 pairs with torch 2.5, not 2.4 (torchcodec's README table).
  Json stated = report::new_report();
  report::apply_assumptions(stated, {"torch=2.4.0+cu124", "torchcodec=0.1.1+cu124"},
                            kb::KnowledgeBase::builtin());
  found = mismatched(stated);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].remediation.find("install torch 2.5 to match torchcodec 0.1.1"), std::string::npos)
      << found[0].remediation;
  // A pair the table lists, and a torch newer than the table's companions: no verdict.
  Json fine = report::new_report();
  report::apply_assumptions(fine, {"torch=2.7.1", "torchcodec=0.4.0", "torchvision=0.22.1"},
                            kb::KnowledgeBase::builtin());
  EXPECT_TRUE(mismatched(fine).empty());
  Json newer = report::new_report();
  report::apply_assumptions(newer, {"torch=2.12.0", "torchvision=0.19.0"}, kb::KnowledgeBase::builtin());
  EXPECT_TRUE(mismatched(newer).empty());
  EXPECT_THROW(report::apply_assumptions(stated, {"torchvision=new"}, kb::KnowledgeBase::builtin()),
               InputError);
}

}  // namespace
}  // namespace cudiag
