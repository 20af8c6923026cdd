// Collection on machines this one cannot be: fixture trees with built test
// doubles standing in for libcuda, NVML and the CUDA runtime, run through the
// real cudiag binary (`cudiag --root TREE report --format json`), so every
// file read, library search, child process and loader emulation is the
// production path. See tests/doubles/README.md and machine_builder.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "machine_builder.h"
#include "machine_test_support.h"

namespace cudiag::machine_test {
namespace {

// ------------------------------------------------------------------ healthy 8-GPU machine

TEST(CollectMachine, HealthyEightGpuMachineIsSeenByEveryLayer) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  install_driver(m, "550.54.15", 12040, gpus);
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;

  // Host: read from the tree, not from this machine.
  EXPECT_EQ(value(j, "host.os.id"), "ubuntu");
  EXPECT_EQ(value(j, "host.os.version_id"), "22.04");
  EXPECT_EQ(value(j, "host.kernel_release"), "5.15.0-97-generic");
  EXPECT_EQ(value(j, "host.architecture"), "x86_64");
  EXPECT_TRUE(value(j, "host.container.kind").is_null());
  EXPECT_EQ(value(j, "host.wsl.detected"), false);

  // Kernel driver, from /proc, /sys and /dev only.
  EXPECT_EQ(value(j, "kernel_driver.version"), "550.54.15");
  EXPECT_EQ(value(j, "kernel_driver.open_kernel_module"), false);
  EXPECT_EQ(value(j, "kernel_driver.sysfs_version"), "550.54.15");
  for (const char* mod : {"nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia_peermem"}) {
    EXPECT_EQ(value(j, std::string("kernel_driver.modules.") + mod), true) << mod;
  }
  EXPECT_EQ(value(j, "kernel_driver.modules.nouveau"), false);
  EXPECT_EQ(at(j, "kernel_driver.module_files").size(), 5u);
  EXPECT_EQ(at(j, "kernel_driver.module_files.0.kernel"), "5.15.0-97-generic");
  const Json& proc_gpus = at(j, "kernel_driver.gpus");
  ASSERT_EQ(proc_gpus.size(), gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    EXPECT_EQ(proc_gpus[i]["bus_id"], gpus[i].bus_id);
    EXPECT_EQ(value(proc_gpus[i], "uuid"), gpus[i].uuid);
    EXPECT_EQ(value(proc_gpus[i], "model"), "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(value(proc_gpus[i], "device_minor"), std::to_string(i));
  }
  // PCI: 8 GPUs and 4 NVSwitches; the Intel bridge and the BMC's VGA are not NVIDIA.
  const Json& pci = at(j, "kernel_driver.pci_devices");
  ASSERT_EQ(pci.size(), 12u) << pci.dump(1);
  int gpu_count = 0, switch_count = 0;
  for (const auto& d : pci) {
    if (d["kind"] == "gpu") {
      ++gpu_count;
      EXPECT_EQ(value(d, "device_id"), "0x2330");
      EXPECT_EQ(value(d, "bound_driver"), "nvidia");
    } else if (d["kind"] == "nvswitch") {
      ++switch_count;
      EXPECT_EQ(value(d, "bound_driver"), "nvidia-nvswitch");
    }
  }
  EXPECT_EQ(gpu_count, 8);
  EXPECT_EQ(switch_count, 4);
  const Json& nodes = at(j, "kernel_driver.device_nodes");
  for (std::string n :
       {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia0", "/dev/nvidia7"}) {
    EXPECT_EQ(find_by(nodes, "path", n)["exists"], true) << n;
  }
  EXPECT_TRUE(find_by(nodes, "path", "/dev/nvidia8").is_null());

  // Driver API through the libcuda double.
  EXPECT_EQ(value(j, "driver_api.picked"), kLib + "/libcuda.so.550.54.15");
  EXPECT_EQ(value(j, "driver_api.library_version"), "550.54.15");
  EXPECT_EQ(value(j, "driver_api.forward_compat_package"), false);
  EXPECT_EQ(value(j, "driver_api.load"), "loaded");
  EXPECT_EQ(value(j, "driver_api.cuda_driver_version"), "12.4");
  EXPECT_EQ(at(j, "driver_api.cuda_driver_version.raw"), 12040);
  EXPECT_EQ(at(j, "driver_api.cuInit.code"), 0);
  EXPECT_EQ(value(j, "driver_api.cuInit"), "CUDA_SUCCESS");
  EXPECT_EQ(value(j, "driver_api.device_count"), 8);
  EXPECT_EQ(value(j, "driver_api.kernel_module_mismatch"), false);
  // /lib is a link to usr/lib (merged /usr): one candidate, found both ways.
  ASSERT_EQ(at(j, "driver_api.candidates").size(), 1u) << at(j, "driver_api.candidates").dump(1);
  EXPECT_TRUE(contains(at(j, "driver_api.candidates.0.found_via"), "ld.so.cache"));
  EXPECT_TRUE(contains(at(j, "driver_api.candidates.0.found_via"), "default loader path"));
  const Json& cu_devices = at(j, "driver_api.devices");
  ASSERT_EQ(cu_devices.size(), gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    EXPECT_EQ(cu_devices[i]["ordinal"], i);
    EXPECT_EQ(cu_devices[i]["name"], gpus[i].name);
    EXPECT_EQ(cu_devices[i]["compute_capability"], "9.0");
    EXPECT_EQ(cu_devices[i]["memory_bytes"], gpus[i].memory);
    EXPECT_EQ(cu_devices[i]["uuid"], gpus[i].uuid);
    EXPECT_EQ(cu_devices[i]["pci_bus_id"], upper(gpus[i].bus_id));
  }

  // NVML through its double.
  EXPECT_EQ(value(j, "nvml.picked"), kLib + "/libnvidia-ml.so.550.54.15");
  EXPECT_EQ(value(j, "nvml.library_version"), "550.54.15");
  EXPECT_EQ(at(j, "nvml.nvmlInit.code"), 0);
  EXPECT_EQ(value(j, "nvml.nvmlInit"), "NVML_SUCCESS");
  EXPECT_EQ(value(j, "nvml.driver_version"), "550.54.15");
  EXPECT_EQ(value(j, "nvml.cuda_driver_version"), "12.4");
  EXPECT_EQ(value(j, "nvml.nvml_version"), "12.550.54.15");
  EXPECT_EQ(value(j, "nvml.device_count"), 8);
  const Json& nvml_gpus = at(j, "nvml.gpus");
  ASSERT_EQ(nvml_gpus.size(), gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    EXPECT_EQ(nvml_gpus[i]["uuid"], gpus[i].uuid);
    EXPECT_EQ(nvml_gpus[i]["pci_bus_id"], upper("0000" + gpus[i].bus_id));
    EXPECT_EQ(nvml_gpus[i]["pci_device_id"], 0x2330);
    EXPECT_EQ(nvml_gpus[i]["compute_capability"], "9.0");
    EXPECT_EQ(nvml_gpus[i]["memory_bytes"], gpus[i].memory);
    EXPECT_EQ(nvml_gpus[i]["mig_mode"], "disabled");
    EXPECT_EQ(nvml_gpus[i]["persistence_mode"], "enabled");
  }

  // The three views of the GPUs agree.
  auto proc_uuids = strings_of(proc_gpus, "uuid.value");
  EXPECT_EQ(strings_of(cu_devices, "uuid"), proc_uuids);
  EXPECT_EQ(strings_of(nvml_gpus, "uuid"), proc_uuids);

  // Loader cache as written by the test.
  EXPECT_EQ(at(j, "search.ld_so_cache.format"), "new");
  EXPECT_EQ(at(j, "search.ld_so_cache.entries"), m.cache_entries().size());
  EXPECT_FALSE(at(j, "search.ld_so_cache").contains("error"));
}

// ------------------------------------------------------------------ MIG

TEST(CollectMachine, MigModeOfEachGpuIsReported) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  for (std::size_t i = 0; i < 4; ++i) gpus[i].mig = "enabled";
  // GPU 4 has MIG switched on but not yet applied (needs a GPU reset).
  std::string nvml_extra = "device.4.mig=disabled\ndevice.4.mig_pending=enabled\n";
  install_driver(m, "550.54.15", 12040, gpus, "", nvml_extra);
  auto r = m.report();
  expect_sane(r);
  const Json& nvml_gpus = at(r.report, "nvml.gpus");
  ASSERT_EQ(nvml_gpus.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(nvml_gpus[i]["mig_mode"], i < 4 ? "enabled" : "disabled") << i;
    EXPECT_EQ(nvml_gpus[i]["mig_mode_pending"], i < 5 ? "enabled" : "disabled") << i;
  }
}

TEST(CollectMachine, MigUnsupportedGpuSaysSo) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  gpus.resize(1);
  gpus[0].mig = "unsupported";
  install_driver(m, "550.54.15", 12040, gpus);
  auto r = m.report();
  expect_sane(r);
  EXPECT_FALSE(at(r.report, "nvml.gpus.0").contains("mig_mode"));
  EXPECT_EQ(at(r.report, "nvml.gpus.0.mig_mode_result"), 3);  // NVML_ERROR_NOT_SUPPORTED
}

// ------------------------------------------------------------------ WSL2

// WSL2's driver: the Windows driver's libraries in /usr/lib/wsl/lib, real
// files (not links), listed in ld.so.cache through /etc/ld.so.conf.d/ld.wsl.conf.
void install_wsl_driver(Machine& m, bool in_cache) {
  Gpu g;
  g.bus_id = "0000:01:00.0";
  g.uuid = "GPU-4b3c2d1e-0f9a-4b8c-8d7e-6f5a4b3c2d1e";
  g.name = "NVIDIA GeForce RTX 4090";
  g.cc = "8.9";
  g.memory = 25756696576ULL;
  g.mig = "unsupported";
  auto cuda = libcuda_scenario(12040, {g});
  m.library("fake_libcuda", "/usr/lib/wsl/lib/libcuda.so.1.1", {}, cuda, false);
  m.library("fake_libcuda", "/usr/lib/wsl/lib/libcuda.so.1", {}, cuda, in_cache);
  m.library("fake_libnvidia_ml", "/usr/lib/wsl/lib/libnvidia-ml.so.1", {},
            nvml_scenario("551.61", 12040, {g}), in_cache);
  m.write_ld_cache();
}

TEST(CollectMachine, Wsl2IsDetectedAndItsDriverLibrariesFound) {
  Machine m("wsl2");
  install_wsl_driver(m, true);
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  EXPECT_EQ(value(j, "host.wsl.detected"), true);
  EXPECT_EQ(at(j, "host.wsl.evidence").size(), 3u) << at(j, "host.wsl.evidence").dump();
  EXPECT_EQ(value(j, "host.wsl.driver_lib_dir"), "/usr/lib/wsl/lib");
  const Json& dxg = find_by(at(j, "kernel_driver.device_nodes"), "path", "/dev/dxg");
  EXPECT_EQ(dxg["exists"], true);
  // No Linux kernel module in WSL2: the GPU is behind /dev/dxg.
  EXPECT_TRUE(value(j, "kernel_driver.version").is_null());
  EXPECT_EQ(value(j, "kernel_driver.modules.nvidia"), false);
  EXPECT_EQ(at(j, "kernel_driver.pci_devices").size(), 0u);

  EXPECT_EQ(value(j, "driver_api.picked"), "/usr/lib/wsl/lib/libcuda.so.1");
  EXPECT_EQ(at(j, "driver_api.cuInit.code"), 0);
  EXPECT_EQ(value(j, "driver_api.device_count"), 1);
  EXPECT_EQ(at(j, "driver_api.devices.0.name"), "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(at(j, "driver_api.devices.0.compute_capability"), "8.9");
  EXPECT_EQ(at(j, "driver_api.candidates").size(), 2u);  // libcuda.so.1 and libcuda.so.1.1, two files
  for (const auto& c : at(j, "driver_api.candidates")) {
    EXPECT_TRUE(contains(c["found_via"], "WSL driver libraries")) << c.dump();
  }
  EXPECT_EQ(value(j, "nvml.picked"), "/usr/lib/wsl/lib/libnvidia-ml.so.1");
  EXPECT_EQ(value(j, "nvml.driver_version"), "551.61");
}

// "libcuda.so.1" is a soname, not a driver release: a library named only by
// its soname has no version in its file name.
TEST(CollectMachine, Wsl2SonameIsNotReportedAsTheDriverVersion) {
  Machine m("wsl2");
  install_wsl_driver(m, true);
  auto r = m.report();
  expect_sane(r);
  const Json& v = value(r.report, "driver_api.library_version");
  EXPECT_NE(v, "1") << at(r.report, "driver_api.library_version").dump();
  EXPECT_NE(value(r.report, "nvml.library_version"), "1") << at(r.report, "nvml.library_version").dump();
}

// Without the cache entry (ldconfig not run since WSL updated the driver) the
// loader finds nothing, and the report must say so, while still listing the files.
TEST(CollectMachine, Wsl2WithoutLdCacheEntryListsButDoesNotPick) {
  Machine m("wsl2");
  install_wsl_driver(m, false);
  auto r = m.report();
  expect_sane(r);
  EXPECT_TRUE(value(r.report, "driver_api.picked").is_null());
  EXPECT_EQ(at(r.report, "driver_api.candidates").size(), 2u);
  EXPECT_EQ(at(r.report, "driver_api.candidates.0.picked_by_loader"), false);
  // Every candidate is still asked, so the report shows it would work.
  EXPECT_EQ(at(r.report, "driver_api.candidates.0.probe.cuInit.code"), 0);
}

// ------------------------------------------------------------------ containers

TEST(CollectMachine, DockerWithNvidiaRuntime) {
  Machine m("docker-nvidia");
  auto gpus = dgx_h100_gpus();
  gpus.resize(2);
  m.env({{"PATH",
          "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/"
          "sbin:/bin"},
         {"NVIDIA_VISIBLE_DEVICES",
          "GPU-6a2bb6b3-1e7c-2a8f-3d5e-1f0a9b8c7d01,GPU-5c0f2a41-8d3e-4b7a-9e21-3a4b5c6d7e02"},
         {"NVIDIA_DRIVER_CAPABILITIES", "compute,utility"},
         {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4 brand=tesla,driver>=470,driver<471"},
         {"HF_TOKEN", "hf_secret_value_must_not_appear"}});
  install_driver(m, "550.54.15", 12040, gpus);
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  EXPECT_EQ(value(j, "host.container.kind"), "docker");
  EXPECT_TRUE(contains(at(j, "host.container.evidence"), "file /.dockerenv exists"));
  EXPECT_TRUE(contains(at(j, "host.container.evidence"), "/proc/1/cgroup mentions docker"));
  EXPECT_EQ(value(j, "host.container.nvidia_runtime"), true);
  const Json& mounts = at(j, "host.container.nvidia_runtime_mounts");
  EXPECT_TRUE(contains(mounts, kLib + "/libcuda.so.550.54.15")) << mounts.dump();
  EXPECT_TRUE(contains(mounts, kLib + "/libnvidia-ml.so.550.54.15")) << mounts.dump();
  EXPECT_TRUE(contains(mounts, "/dev/nvidia0")) << mounts.dump();
  EXPECT_TRUE(contains(mounts, "/proc/driver/nvidia")) << mounts.dump();
  EXPECT_FALSE(contains(mounts, "/etc/resolv.conf"));
  EXPECT_EQ(value(j, "host.environment.NVIDIA_VISIBLE_DEVICES"),
            "GPU-6a2bb6b3-1e7c-2a8f-3d5e-1f0a9b8c7d01,GPU-5c0f2a41-8d3e-4b7a-9e21-3a4b5c6d7e02");
  EXPECT_EQ(value(j, "host.environment.NVIDIA_DRIVER_CAPABILITIES"), "compute,utility");
  EXPECT_EQ(value(j, "host.environment.NVIDIA_REQUIRE_CUDA"),
            "cuda>=12.4 brand=tesla,driver>=470,driver<471");
  // Variables off the allowlist never appear, not even their values.
  EXPECT_EQ(r.out.find("hf_secret_value_must_not_appear"), std::string::npos);
  EXPECT_FALSE(at(j, "host.environment").contains("HF_TOKEN"));
  // The host's kernel module is visible through the mounted /proc/driver/nvidia.
  EXPECT_EQ(value(j, "kernel_driver.version"), "550.54.15");
  EXPECT_EQ(value(j, "driver_api.device_count"), 2);
  EXPECT_EQ(value(j, "nvml.device_count"), 2);
  const Json& nodes = at(j, "kernel_driver.device_nodes");
  EXPECT_EQ(find_by(nodes, "path", "/dev/nvidia0")["exists"], true);
  EXPECT_EQ(find_by(nodes, "path", "/dev/nvidia1")["exists"], true);
  EXPECT_TRUE(find_by(nodes, "path", "/dev/nvidia2").is_null());
}

TEST(CollectMachine, DockerWithoutGpuAccess) {
  Machine m("docker-no-gpu");
  m.env({{"PATH", "/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
         {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"}});
  install_toolkit_runtime(m, "/usr/local/cuda-12.4", "12.4.131", 12040);
  m.symlink("/usr/local/cuda", "cuda-12.4");
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  EXPECT_EQ(value(j, "host.container.kind"), "docker");
  EXPECT_EQ(value(j, "host.container.nvidia_runtime"), false);
  EXPECT_EQ(at(j, "host.container.nvidia_runtime_mounts").size(), 0u);
  const Json& nodes = at(j, "kernel_driver.device_nodes");
  EXPECT_EQ(find_by(nodes, "path", "/dev/nvidiactl")["exists"], false);
  EXPECT_EQ(find_by(nodes, "path", "/dev/nvidia-uvm")["exists"], false);
  for (const auto& n : nodes) {
    EXPECT_NE(n["path"], "/dev/nvidia0");
    EXPECT_EQ(n["accessible"], false) << n.dump();
  }
  EXPECT_TRUE(value(j, "kernel_driver.version").is_null());
  EXPECT_TRUE(value(j, "driver_api.picked").is_null());
  EXPECT_EQ(at(j, "driver_api.candidates").size(), 0u);
  EXPECT_TRUE(value(j, "nvml.picked").is_null());
  // The image's runtime is there, and says there is no driver.
  ASSERT_EQ(at(j, "cuda_runtime.runtimes").size(), 1u) << at(j, "cuda_runtime").dump(1);
  EXPECT_EQ(value(j, "cuda_runtime.runtimes.0.runtime_version"), "12.4");
  EXPECT_EQ(at(j, "cuda_runtime.runtimes.0.driver_version.raw"), 0);
  EXPECT_EQ(at(j, "cuda_runtime.runtimes.0.cudaGetDeviceCount.code"), 35);
  EXPECT_EQ(value(j, "cuda_runtime.runtimes.0.cudaGetDeviceCount"), "cudaErrorInsufficientDriver");
}

// ------------------------------------------------------------------ broken drivers

TEST(CollectMachine, KernelModuleAndLibraryVersionMismatch) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  // The packages were upgraded to 550.67 but the 550.54.15 module is still loaded.
  install_driver(m, "550.67", 12040, gpus, "cuInit.result=803\n", "nvmlInit.result=18\n");
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  EXPECT_EQ(value(j, "kernel_driver.version"), "550.54.15");
  EXPECT_EQ(value(j, "driver_api.library_version"), "550.67");
  EXPECT_EQ(value(j, "driver_api.kernel_module_mismatch"), true);
  EXPECT_EQ(at(j, "driver_api.kernel_module_mismatch.kernel_module"), "550.54.15");
  EXPECT_EQ(at(j, "driver_api.kernel_module_mismatch.user_space"), "550.67");
  EXPECT_EQ(at(j, "driver_api.cuInit.code"), 803);
  EXPECT_EQ(value(j, "driver_api.cuInit"), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
  EXPECT_TRUE(value(j, "driver_api.device_count").is_null());
  EXPECT_EQ(at(j, "driver_api.devices").size(), 0u);
  EXPECT_EQ(value(j, "nvml.library_version"), "550.67");
  EXPECT_EQ(at(j, "nvml.nvmlInit.code"), 18);
  EXPECT_EQ(value(j, "nvml.nvmlInit"), "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
  EXPECT_TRUE(value(j, "nvml.driver_version").is_null());
}

TEST(CollectMachine, UvmDeviceNodeMissing) {
  Machine m("dgx-h100");
  m.remove("/dev/nvidia-uvm").remove("/dev/nvidia-uvm-tools");
  auto gpus = dgx_h100_gpus();
  install_driver(m, "550.54.15", 12040, gpus, "cuInit.result=999\n");
  auto r = m.report();
  expect_sane(r);
  const Json& nodes = at(r.report, "kernel_driver.device_nodes");
  EXPECT_EQ(find_by(nodes, "path", "/dev/nvidia-uvm")["exists"], false);
  EXPECT_EQ(find_by(nodes, "path", "/dev/nvidia-uvm")["accessible"], false);
  EXPECT_EQ(find_by(nodes, "path", "/dev/nvidia-uvm-tools")["exists"], false);
  EXPECT_EQ(find_by(nodes, "path", "/dev/nvidiactl")["exists"], true);
  EXPECT_EQ(find_by(nodes, "path", "/dev/nvidia0")["exists"], true);
  EXPECT_EQ(value(r.report, "kernel_driver.modules.nvidia_uvm"), true);
  EXPECT_EQ(at(r.report, "driver_api.cuInit.code"), 999);
  EXPECT_EQ(value(r.report, "driver_api.cuInit"), "CUDA_ERROR_UNKNOWN");
  EXPECT_EQ(value(r.report, "nvml.device_count"), 8);  // NVML does not need UVM
}

TEST(CollectMachine, NouveauLoadedInsteadOfNvidia) {
  Machine m("dgx-h100");
  m.write("/proc/modules",
          "nouveau 2433024 0 - Live 0x0000000000000000\n"
          "mxm_wmi 16384 1 nouveau, Live 0x0000000000000000\n"
          "drm_ttm_helper 16384 1 nouveau, Live 0x0000000000000000\n"
          "ttm 86016 2 nouveau,drm_ttm_helper, Live 0x0000000000000000\n");
  m.remove("/proc/driver/nvidia").remove("/sys/module/nvidia");
  auto gpus = dgx_h100_gpus();
  for (const auto& g : gpus) {
    m.remove("/dev/nvidia" + std::to_string(&g - gpus.data()));
    m.symlink("/sys/bus/pci/devices/" + g.bus_id + "/driver", "../../../../bus/pci/drivers/nouveau");
  }
  m.remove("/dev/nvidiactl")
      .remove("/dev/nvidia-uvm")
      .remove("/dev/nvidia-uvm-tools")
      .remove("/dev/nvidia-modeset");
  install_driver(m, "550.54.15", 12040, gpus, "cuInit.result=100\n", "nvmlInit.result=9\n");
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  EXPECT_EQ(value(j, "kernel_driver.modules.nouveau"), true);
  EXPECT_EQ(value(j, "kernel_driver.modules.nvidia"), false);
  EXPECT_TRUE(value(j, "kernel_driver.version").is_null());
  EXPECT_EQ(at(j, "kernel_driver.gpus").size(), 0u);
  int gpus_on_nouveau = 0;
  for (const auto& d : at(j, "kernel_driver.pci_devices")) {
    if (d["kind"] == "gpu" && value(d, "bound_driver") == "nouveau") ++gpus_on_nouveau;
  }
  EXPECT_EQ(gpus_on_nouveau, 8);  // the GPUs are still seen, on PCI
  EXPECT_EQ(at(j, "driver_api.cuInit.code"), 100);
  EXPECT_EQ(value(j, "driver_api.cuInit"), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(at(j, "nvml.nvmlInit.code"), 9);
  EXPECT_EQ(value(j, "nvml.nvmlInit"), "NVML_ERROR_DRIVER_NOT_LOADED");
  EXPECT_FALSE(at(j, "driver_api").contains("kernel_module_mismatch"));  // nothing to compare with
}

// ------------------------------------------------------------------ forward compatibility

TEST(CollectMachine, ForwardCompatLibcudaFirstOnLdLibraryPath) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  install_driver(m, "550.54.15", 12040, gpus);
  const std::string compat = "/usr/local/cuda-12.8/compat";
  m.library("fake_libcuda", compat + "/libcuda.so.570.124.06", {"libcuda.so.1"},
            libcuda_scenario(12080, gpus), false);
  install_toolkit_runtime(m, "/usr/local/cuda-12.8", "12.8.90", 12080);
  m.set_env("LD_LIBRARY_PATH", compat + ":/usr/local/cuda-12.8/lib64");
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  EXPECT_EQ(value(j, "driver_api.picked"), compat + "/libcuda.so.570.124.06");
  EXPECT_EQ(value(j, "driver_api.library_version"), "570.124.06");
  EXPECT_EQ(value(j, "driver_api.forward_compat_package"), true);
  EXPECT_EQ(value(j, "driver_api.cuda_driver_version"), "12.8");
  EXPECT_EQ(value(j, "driver_api.kernel_module_mismatch"), true);
  const Json& cands = at(j, "driver_api.candidates");
  ASSERT_EQ(cands.size(), 2u) << cands.dump(1);
  // Loader order: LD_LIBRARY_PATH first.
  EXPECT_EQ(cands[0]["real_path"], compat + "/libcuda.so.570.124.06");
  EXPECT_EQ(cands[0]["picked_by_loader"], true);
  EXPECT_EQ(cands[0]["forward_compat_package"], true);
  EXPECT_TRUE(contains(cands[0]["found_via"], "LD_LIBRARY_PATH"));
  EXPECT_EQ(cands[1]["real_path"], kLib + "/libcuda.so.550.54.15");
  EXPECT_EQ(cands[1]["picked_by_loader"], false);
  EXPECT_EQ(value(cands[1], "probe.cuda_driver_version"), "12.4");  // asked too, in its own child
  // The runtime is run against the loader's pick: it sees the compat driver.
  ASSERT_EQ(at(j, "cuda_runtime.runtimes").size(), 1u);
  EXPECT_EQ(value(j, "cuda_runtime.runtimes.0.driver_version"), "12.8");
  EXPECT_EQ(at(j, "cuda_runtime.runtimes.0.cudaGetDeviceCount.code"), 0);
}

// ------------------------------------------------------------------ a hanging or crashing driver

TEST(CollectMachine, TwoCudaRuntimeVersionsAreBothReported) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  install_driver(m, "550.54.15", 12040, gpus);
  install_toolkit_runtime(m, "/usr/local/cuda-12.4", "12.4.131", 12040);
  install_toolkit_runtime(m, "/usr/local/cuda-12.8", "12.8.90", 12080);
  m.symlink("/usr/local/cuda", "cuda-12.8");
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  const Json& runtimes = at(j, "cuda_runtime.runtimes");
  ASSERT_EQ(runtimes.size(), 2u) << runtimes.dump(1);
  std::set<std::string> seen;
  for (const auto& rt : runtimes) {
    const std::string real = rt["real_path"].get<std::string>();
    const std::string v = value(rt, "runtime_version").get<std::string>();
    seen.insert(v);
    EXPECT_EQ(real, v == "12.4" ? "/usr/local/cuda-12.4/lib64/libcudart.so.12.4.131"
                                : "/usr/local/cuda-12.8/lib64/libcudart.so.12.8.90");
    EXPECT_EQ(rt["file_version"], v == "12.4" ? "12.4.131" : "12.8.90");
    // Each runtime met the machine's driver, and minor version compatibility holds.
    EXPECT_EQ(value(rt, "driver_version"), "12.4") << rt.dump();
    EXPECT_EQ(at(rt, "cudaGetDeviceCount.code"), 0) << rt.dump();
    EXPECT_EQ(rt["device_count"], 8);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"12.4", "12.8"}));
  EXPECT_EQ(at(j, "cuda_runtime.distinct_versions"), Json({"12.4", "12.8"}));
  const Json& toolkits = at(j, "cuda_runtime.toolkits");
  std::set<std::string> tk_versions;
  for (const auto& t : toolkits) tk_versions.insert(value(t, "version").get<std::string>());
  EXPECT_EQ(tk_versions, (std::set<std::string>{"12.4.131", "12.8.90"}));
  EXPECT_TRUE(contains(at(j, "cuda_runtime.conflicts"),
                       "several CUDA toolkits with different versions are installed"));
}

// A runtime newer than the driver's CUDA major: the runtime says so.
TEST(CollectMachine, RuntimeNewerThanDriverIsInsufficientDriver) {
  Machine m("dgx-h100");
  auto gpus = dgx_h100_gpus();
  install_driver(m, "550.54.15", 12040, gpus);
  install_toolkit_runtime(m, "/usr/local/cuda-13.0", "13.0.96", 13000);
  auto r = m.report();
  expect_sane(r);
  EXPECT_EQ(value(r.report, "cuda_runtime.runtimes.0.runtime_version"), "13.0");
  EXPECT_EQ(value(r.report, "cuda_runtime.runtimes.0.driver_version"), "12.4");
  EXPECT_EQ(value(r.report, "cuda_runtime.runtimes.0.cudaGetDeviceCount"), "cudaErrorInsufficientDriver");
}

// ------------------------------------------------------------------ tree fidelity

// Captured machines hold absolute symlinks (/etc/os-release -> /usr/lib/os-release):
// they must be followed inside the tree, never into the machine running the test.
TEST(CollectMachine, AbsoluteSymlinksStayInsideTheTree) {
  Machine m("dgx-h100");
  m.symlink("/etc/os-release", "/usr/lib/os-release");
  m.write("/usr/lib/nvidia-version-550",
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n");
  m.symlink("/proc/driver/nvidia/version", "/usr/lib/nvidia-version-550");
  auto r = m.report();
  expect_sane(r);
  EXPECT_EQ(value(r.report, "host.os.id"), "ubuntu") << at(r.report, "host.os").dump();
  EXPECT_EQ(value(r.report, "host.os.version_id"), "22.04");
  EXPECT_EQ(value(r.report, "kernel_driver.version"), "550.54.15")
      << at(r.report, "kernel_driver.version").dump();
}

}  // namespace
}  // namespace cudiag::machine_test
