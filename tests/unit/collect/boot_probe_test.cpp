// The boot probe (probes/boot_probe.cpp) over fixture trees, through the real
// binary: Secure Boot from the EFI variable's bytes, the lockdown mode, and
// only the module switches of the kernel command line.
#include <gtest/gtest.h>

#include <string>

#include "machine_builder.h"
#include "machine_test_support.h"

namespace cudiag::machine_test {
namespace {

const std::string kSecureBootVar =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e344c5e0ce4f";

// efivarfs: 4 attribute bytes (NV|BS|RT = 0x06), then the one-byte value.
std::string efi_bool(bool on) { return std::string("\x06\x00\x00\x00", 4) + (on ? '\x01' : '\x00'); }

TEST(BootProbe, SecureBootOnWithLockdownAndNouveauBlacklisted) {
  Machine m("dgx-h100");
  m.write(kSecureBootVar, efi_bool(true));
  m.write("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
  m.write("/proc/cmdline",
          "BOOT_IMAGE=/vmlinuz-6.8.0 root=UUID=0b1c-7e2f ro quiet splash modprobe.blacklist=nouveau "
          "nouveau.modeset=0 nvidia-drm.modeset=1 cryptdevice=UUID=9f3a:cryptroot\n");
  auto r = m.report();
  expect_sane(r);
  EXPECT_EQ(value(r.report, "boot.secure_boot"), "enabled");
  EXPECT_EQ(at(r.report, "boot.secure_boot.source"), "file:" + kSecureBootVar);
  EXPECT_EQ(value(r.report, "boot.lockdown"), "integrity");
  EXPECT_EQ(value(r.report, "boot.module_switches"),
            Json::array({"modprobe.blacklist=nouveau", "nouveau.modeset=0", "nvidia-drm.modeset=1"}));
  // The rest of the command line is the machine's own: never in the report.
  EXPECT_EQ(r.out.find("0b1c-7e2f"), std::string::npos);
  EXPECT_EQ(r.out.find("cryptroot"), std::string::npos);
}

TEST(BootProbe, SecureBootOffAndNoSwitches) {
  Machine m("dgx-h100");
  m.write(kSecureBootVar, efi_bool(false));
  m.write("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
  m.write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro\n");
  auto r = m.report();
  expect_sane(r);
  EXPECT_EQ(value(r.report, "boot.secure_boot"), "disabled");
  EXPECT_EQ(value(r.report, "boot.lockdown"), "none");
  EXPECT_EQ(value(r.report, "boot.module_switches"), Json::array());
}

TEST(BootProbe, FirmwareWithoutEfiIsALegacyBoot) {
  Machine m("dgx-h100");
  m.write("/sys/firmware/acpi/tables/DSDT", "x");
  auto r = m.report();
  expect_sane(r);
  EXPECT_EQ(value(r.report, "boot.secure_boot"), "not_efi");
}

TEST(BootProbe, MaskedFirmwareIsUnknownNotLegacy) {
  // Docker mounts an empty tmpfs over /sys/firmware: that says nothing about the boot.
  Machine m("docker-nvidia");
  m.mkdir("/sys/firmware");
  auto r = m.report();
  expect_sane(r);
  EXPECT_TRUE(value(r.report, "boot.secure_boot").is_null());
  EXPECT_NE(at(r.report, "boot.secure_boot.error").get<std::string>().find("masked"), std::string::npos);
}

TEST(BootProbe, ShortEfiVariableIsUnknownWithTheReason) {
  Machine m("dgx-h100");
  m.write(kSecureBootVar, std::string("\x06\x00\x00", 3));
  auto r = m.report();
  expect_sane(r);
  EXPECT_TRUE(value(r.report, "boot.secure_boot").is_null());
  EXPECT_EQ(at(r.report, "boot.secure_boot.error"), "3 bytes, expected 5");
}

}  // namespace
}  // namespace cudiag::machine_test
