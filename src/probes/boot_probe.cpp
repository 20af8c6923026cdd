// The boot facts that decide whether the kernel will load the NVIDIA module:
// Secure Boot (an unsigned nvidia.ko is refused; "Key was rejected by
// service" in dmesg), the kernel lockdown mode it implies, and the module
// switches on the kernel command line (nouveau blacklisted or not, nvidia
// options). Only the NVIDIA- and nouveau-related command-line words are kept:
// the rest (root=UUID=…, a crypt device) is the machine's, not ours to show.
#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>

#include "core/fact.h"
#include "machine/text_util.h"
#include "probes/probe_registry.h"

namespace cudiag::probes {

namespace {

// The EFI global variable's GUID (UEFI spec, "Globally Defined Variables").
constexpr std::string_view kSecureBootVar =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e344c5e0ce4f";

Json probe_secure_boot(const FsRoot& root) {
  if (!root.exists("/sys/firmware/efi")) {
    // An empty or missing /sys/firmware says nothing: containers mask it (Docker mounts an empty
    // tmpfs there). Firmware entries without efi/ are a legacy BIOS boot, which has no Secure Boot.
    if (root.list_dir("/sys/firmware").empty())
      return unknown_fact(file_source("/sys/firmware"), "empty or missing (masked, as in a container)");
    return fact("not_efi", file_source("/sys/firmware/efi"));
  }
  auto data = root.read_file(kSecureBootVar, 64);
  auto src = file_source(kSecureBootVar);
  if (!data) return unknown_fact(src, data.error);
  // efivarfs: 4 bytes of attributes, then the variable: one byte, 1 = on.
  const std::string& bytes = *data.data;
  if (bytes.size() < 5) return unknown_fact(src, fmt::format("{} bytes, expected 5", bytes.size()));
  return fact(bytes[4] == 1 ? "enabled" : "disabled", src);
}

Json probe_lockdown(const FsRoot& root) {
  constexpr std::string_view path = "/sys/kernel/security/lockdown";
  auto data = root.read_file(path, 256);
  if (!data) return unknown_fact(file_source(path), data.error);
  // "none [integrity] confidentiality": the bracketed word is the mode.
  std::string_view text = *data.data;
  auto open = text.find('['), close = text.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return unknown_fact(file_source(path), "no [mode] in the file");
  return fact(std::string(text.substr(open + 1, close - open - 1)), file_source(path));
}

bool module_switch(std::string_view word) {
  static constexpr std::array<std::string_view, 7> kPrefixes = {"nouveau.",
                                                                "nvidia.",
                                                                "nvidia-drm.",
                                                                "nvidia_drm.",
                                                                "modprobe.blacklist=",
                                                                "rd.driver.blacklist=",
                                                                "module_blacklist="};
  for (auto p : kPrefixes)
    if (word.starts_with(p)) return true;
  return word == "nomodeset";
}

Json probe_cmdline(const FsRoot& root) {
  constexpr std::string_view path = "/proc/cmdline";
  auto data = root.read_file(path, 8192);
  if (!data) return unknown_fact(file_source(path), data.error);
  Json words = Json::array();
  std::string_view rest = *data.data;
  while (!rest.empty()) {
    auto start = rest.find_first_not_of(" \t\n");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    auto end = rest.find_first_of(" \t\n");
    auto word = rest.substr(0, end);
    if (module_switch(word) && words.size() < 32) words.push_back(machine::sanitize(word, 256));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end);
  }
  return fact(words, file_source(path));
}

Json probe_boot(const ProbeContext& ctx) {
  Json boot = Json::object();
  boot["secure_boot"] = probe_secure_boot(ctx.machine.root);
  boot["lockdown"] = probe_lockdown(ctx.machine.root);
  boot["module_switches"] = probe_cmdline(ctx.machine.root);
  return boot;
}

const RegisterProbe kBootProbe{
    {"boot", ProbeStage::kEarly, 3, nullptr,
     [](const ProbeContext& ctx, const CollectOptions&, const Json&) { return probe_boot(ctx); }, false}};

}  // namespace

}  // namespace cudiag::probes
