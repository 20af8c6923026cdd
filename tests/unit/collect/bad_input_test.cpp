// Collection on machines whose files are broken: every bad input gives a fact
// or a one-line error, never a crash, a hang or an invalid report. Each test
// starts from the healthy dgx-h100 fixture with working driver doubles and
// breaks one thing, so what still works is checked as well.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <random>
#include <string>

#include "machine_builder.h"

namespace cudiag::machine_test {
namespace {

const std::string kLib = "/usr/lib/x86_64-linux-gnu";

void expect_sane(const RunResult& r, double max_wall_s = 20) {
  ASSERT_FALSE(r.killed_by_test) << describe(r);
  ASSERT_EQ(r.signal, 0) << describe(r);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << describe(r);
  ASSERT_TRUE(r.json_ok()) << describe(r);
  EXPECT_LT(r.wall_s, max_wall_s);
  for (const char* layer : {"host", "kernel_driver", "nvml", "driver_api", "cuda_runtime", "libraries"}) {
    EXPECT_TRUE(r.report.contains(layer)) << "missing layer " << layer;
  }
}

// A healthy machine to break.
void install_driver(Machine& m) {
  auto gpus = dgx_h100_gpus();
  m.library("fake_libcuda", kLib + "/libcuda.so.550.54.15", {"libcuda.so.1"}, libcuda_scenario(12040, gpus));
  m.library("fake_libnvidia_ml", kLib + "/libnvidia-ml.so.550.54.15", {"libnvidia-ml.so.1"},
            nvml_scenario("550.54.15", 12040, gpus));
  m.write_ld_cache();
}

// Deterministic garbage: every byte value, NULs and newlines included.
std::string garbage(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

// A sparse file of `size` bytes (zeros), made with ftruncate.
void sparse_file(const fs::path& p, off_t size) {
  fs::remove(p);
  int fd = ::open(p.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, size), 0);
  ::close(fd);
}

bool printable_ascii(const std::string& s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

// Tests run as root in CI, where chmod 000 does not stop a read; a directory
// where the file should be makes open+read fail for everyone.
TEST(CollectBadInput, ProcEntryThatIsADirectory) {
  Machine m("dgx-h100");
  install_driver(m);
  m.remove("/proc/driver/nvidia/version").mkdir("/proc/driver/nvidia/version");
  auto r = m.report();
  expect_sane(r);
  EXPECT_TRUE(value(r.report, "kernel_driver.version").is_null());
  EXPECT_EQ(at(r.report, "kernel_driver.version.error"), "is a directory");
  EXPECT_EQ(at(r.report, "kernel_driver.version.source"), "file:/proc/driver/nvidia/version");
  EXPECT_FALSE(at(r.report, "driver_api").contains("kernel_module_mismatch"));  // unknown, not "no mismatch"
  EXPECT_EQ(value(r.report, "driver_api.device_count"), 8);
}

// A FIFO with no writer: a blocking open would hang for ever.
TEST(CollectBadInput, ProcEntryThatIsAFifo) {
  Machine m("dgx-h100");
  install_driver(m);
  m.remove("/proc/driver/nvidia/version");
  ASSERT_EQ(::mkfifo(m.host("/proc/driver/nvidia/version").c_str(), 0644), 0);
  m.remove("/proc/modules");
  ASSERT_EQ(::mkfifo(m.host("/proc/modules").c_str(), 0644), 0);
  auto r = m.report();
  expect_sane(r, 10);
  EXPECT_EQ(at(r.report, "kernel_driver.version.error"), "not a regular file");
  EXPECT_TRUE(value(r.report, "kernel_driver.modules.nvidia").is_null());
  EXPECT_EQ(at(r.report, "kernel_driver.modules.nvidia.error"), "not a regular file");
}

TEST(CollectBadInput, TruncatedLdSoCache) {
  Machine m("dgx-h100");
  install_driver(m);
  auto full = ld_so_cache_bytes(m.cache_entries());
  ASSERT_GT(full.size(), 60u);
  m.write("/etc/ld.so.cache", full.substr(0, 60));  // header + half an entry
  auto r = m.report();
  expect_sane(r);
  const std::string err = at(r.report, "search.ld_so_cache.error").get<std::string>();
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
  EXPECT_EQ(at(r.report, "search.ld_so_cache.entries"), 0);
  // The default directories still find the driver.
  EXPECT_EQ(value(r.report, "driver_api.picked"), kLib + "/libcuda.so.550.54.15");
  EXPECT_EQ(value(r.report, "driver_api.device_count"), 8);
}

TEST(CollectBadInput, LdSoCacheWhoseStringsAreCutOff) {
  Machine m("dgx-h100");
  install_driver(m);
  auto full = ld_so_cache_bytes(m.cache_entries());
  // Keep the whole entry table but only part of the strings after it.
  std::size_t table_end = 48 + 24 * m.cache_entries().size();
  m.write("/etc/ld.so.cache", full.substr(0, table_end + 10));
  auto r = m.report();
  expect_sane(r);
  const std::string err = at(r.report, "search.ld_so_cache.error").get<std::string>();
  EXPECT_NE(err.find("points outside the file"), std::string::npos) << err;
  EXPECT_EQ(value(r.report, "driver_api.picked"), kLib + "/libcuda.so.550.54.15");
}

TEST(CollectBadInput, LdSoCacheOfGarbage) {
  Machine m("dgx-h100");
  install_driver(m);
  m.write("/etc/ld.so.cache", garbage(4096, 7));
  auto r = m.report();
  expect_sane(r);
  EXPECT_EQ(at(r.report, "search.ld_so_cache.error"), "not an ld.so.cache file (unknown magic)");
  EXPECT_EQ(value(r.report, "nvml.device_count"), 8);
}

TEST(CollectBadInput, GarbageFileNamedLibcuda) {
  Machine m("dgx-h100");
  install_driver(m);
  m.remove(kLib + "/libcuda.so.1").remove(kLib + "/libcuda.so.550.54.15");
  m.write(kLib + "/libcuda.so.1", garbage(64 * 1024, 11));
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  EXPECT_EQ(value(j, "driver_api.picked"), kLib + "/libcuda.so.1");
  ASSERT_EQ(at(j, "driver_api.candidates").size(), 1u);
  const Json& load = at(j, "driver_api.load");
  EXPECT_TRUE(load["value"].is_null()) << load.dump();
  const std::string err = load.value("error", "");
  EXPECT_EQ(err.rfind("could not be loaded: ", 0), 0u) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << "one line: " << err;
  EXPECT_EQ(value(j, "nvml.device_count"), 8);  // NVML is a different library
}

TEST(CollectBadInput, SymlinkLoopsInLibraryDirectories) {
  Machine m("dgx-h100");
  install_driver(m);
  m.symlink(kLib + "/libcudart.so.12", "libcudart.so.12.loop")
      .symlink(kLib + "/libcudart.so.12.loop", "libcudart.so.12");
  m.symlink(kLib + "/libnccl.so.2", "libnccl.so.2");         // points at itself
  m.symlink(kLib + "/nvidia/current", "../nvidia/current");  // a directory that is a loop
  m.symlink("/usr/local/cuda", "/usr/local/cuda");           // the toolkit link, absolute, to itself
  auto r = m.report();
  expect_sane(r, 10);
  const Json& runtimes = at(r.report, "cuda_runtime.runtimes");
  ASSERT_FALSE(runtimes.empty()) << at(r.report, "cuda_runtime").dump(1);
  for (const auto& rt : runtimes) {
    EXPECT_NE(rt.value("error", "").find("too many levels of symbolic links"), std::string::npos)
        << rt.dump();
  }
  const Json& nccl = at(r.report, "libraries.nccl.instances");
  ASSERT_EQ(nccl.size(), 1u) << nccl.dump();
  EXPECT_NE(nccl[0].value("error", "").find("too many levels of symbolic links"), std::string::npos);
  EXPECT_EQ(value(r.report, "driver_api.device_count"), 8);
}

// 1 GB (sparse) where a small file is expected: read up to the cap, then a one-line error.
TEST(CollectBadInput, HugeFilesWhereSmallOnesAreExpected) {
  Machine m("dgx-h100");
  install_driver(m);
  constexpr off_t kGiB = off_t{1} << 30;
  sparse_file(m.host("/proc/driver/nvidia/version"), kGiB);
  sparse_file(m.host("/proc/self/mountinfo"), kGiB);
  sparse_file(m.host("/usr/lib/os-release"), kGiB);
  sparse_file(m.host("/proc/driver/nvidia/gpus/0000:1b:00.0/information"), kGiB);
  auto r = m.report();
  expect_sane(r, 10);
  EXPECT_EQ(at(r.report, "kernel_driver.version.error"), "larger than 1 MiB, not read");
  EXPECT_EQ(at(r.report, "kernel_driver.gpus.0.error.error"), "larger than 1 MiB, not read");
  EXPECT_EQ(at(r.report, "kernel_driver.gpus").size(), 8u);
  EXPECT_TRUE(value(r.report, "host.os.pretty_name").is_null());
  EXPECT_EQ(value(r.report, "driver_api.device_count"), 8);
}

TEST(CollectBadInput, HugeLdSoCache) {
  Machine m("dgx-h100");
  install_driver(m);
  sparse_file(m.host("/etc/ld.so.cache"), off_t{1} << 30);
  auto r = m.report();
  expect_sane(r, 10);
  EXPECT_EQ(at(r.report, "search.ld_so_cache.error"), "larger than 64 MiB, not read");
  EXPECT_EQ(value(r.report, "driver_api.picked"), kLib + "/libcuda.so.550.54.15");
}

TEST(CollectBadInput, GarbageInProcModulesAndOsRelease) {
  Machine m("dgx-h100");
  install_driver(m);
  m.write("/proc/modules", garbage(8192, 1) + "\nnvidia 54259712 3 - Live 0x0\n" + garbage(100, 2));
  m.remove("/etc/os-release");
  m.write(
      "/etc/os-release",
      garbage(2048, 3) + "\nID=\xff\xfeubuntu\x01\nPRETTY_NAME=\"\xc3\x28 bad utf-8\"\n" + garbage(512, 4));
  m.write("/proc/version", garbage(300, 5));
  m.write("/proc/driver/nvidia/gpus/0000:1b:00.0/information",
          "Model: \xe2\x82 H100\nGPU UUID: " + garbage(40, 6) + "\n");
  auto r = m.report();
  expect_sane(r);
  const Json& j = r.report;
  EXPECT_EQ(value(j, "kernel_driver.modules.nvidia"), true);  // the one good line still counts
  EXPECT_EQ(value(j, "kernel_driver.modules.nouveau"), false);
  const Json& id = value(j, "host.os.id");
  ASSERT_TRUE(id.is_string()) << at(j, "host.os").dump();
  EXPECT_TRUE(printable_ascii(id.get<std::string>())) << id;
  EXPECT_NE(id.get<std::string>().find("ubuntu"), std::string::npos);
  ASSERT_TRUE(value(j, "host.os.pretty_name").is_string());
  EXPECT_TRUE(printable_ascii(value(j, "host.os.pretty_name").get<std::string>()));
  const Json& kv = value(j, "host.kernel_version");
  if (kv.is_string()) {
    EXPECT_TRUE(printable_ascii(kv.get<std::string>()));
  }
  ASSERT_TRUE(value(j, "kernel_driver.gpus.0.model").is_string());
  EXPECT_TRUE(printable_ascii(value(j, "kernel_driver.gpus.0.model").get<std::string>()));
}

TEST(CollectBadInput, GarbageEnvironment) {
  Machine m("dgx-h100");
  install_driver(m);
  m.write("/proc/self/environ", garbage(4096, 9) +
                                    std::string("\0LD_LIBRARY_PATH=\xff\xfe:/nonexistent\0", 34) +
                                    std::string("CUDA_HOME=\x80\x81\0", 13) + "=novalue");
  auto r = m.report();
  expect_sane(r);
  const Json& env = at(r.report, "host.environment");
  for (const auto& [name, fact] : env.items()) {
    EXPECT_TRUE(printable_ascii(name)) << name;
    if (fact["value"].is_string()) {
      EXPECT_TRUE(printable_ascii(fact["value"].get<std::string>()));
    }
  }
  EXPECT_EQ(value(r.report, "driver_api.device_count"), 8);
}

// File and directory names are bytes, not UTF-8: a report must stay valid JSON
// whatever a library directory holds.
TEST(CollectBadInput, NonUtf8FileNamesInLibraryDirectories) {
  Machine m("dgx-h100");
  install_driver(m);
  m.write(kLib + "/libcudart.so.12\xff\xfe", "not a library");
  m.library("fake_libcudart", kLib + "/libcudnn.so.9\xc3\x28", {}, "", false);
  m.mkdir("/proc/driver/nvidia/gpus/0000:\xff\xff:00.0");
  auto r = m.report();
  expect_sane(r);
  EXPECT_EQ(value(r.report, "driver_api.device_count"), 8);
}

}  // namespace
}  // namespace cudiag::machine_test
