// `cudiag inspect PATH...`: which GPUs can run these binaries, read straight
// from their fatbins without cuobjdump and without loading them.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "core/errors.h"
#include "core/json.h"
#include "core/subprocess.h"
#include "core/version.h"
#include "inspect/driver_ptx.h"
#include "inspect/gpu_arch.h"
#include "inspect/inspect.h"
#include "inspect/listing.h"
#include "inspect/scan.h"
#include "inspect/verdict.h"
#include "render/output.h"

namespace cudiag::cli {
namespace {

using namespace inspect;

struct InspectArgs {
  std::vector<std::string> paths;
  std::vector<std::string> pythons;
  std::vector<std::string> gpus;
  std::string driver;
  std::string format = "text";
  bool deep = false;
};

// Asks an interpreter where its packages live. It runs in a child with the
// global timeout: a broken or hanging Python costs an error, not the command.
std::vector<std::string> site_packages(const std::string& python, const GlobalOptions& global) {
  ChildSpec spec;
  spec.argv = {python, "-I", "-c",
               "import site,sys\n"
               "dirs=list(site.getsitepackages())\n"
               "u=site.getusersitepackages()\n"
               "dirs+= [u] if isinstance(u,str) else list(u)\n"
               "print('\\n'.join(dirs))"};
  auto timeout = std::chrono::milliseconds(static_cast<long>(global.timeout_s * 1000));
  auto outcome = run_children({spec}, timeout).at(0);
  if (outcome.status != ChildOutcome::Status::kExited || outcome.exit_code != 0)
    throw InputError(
        fmt::format("{}: cannot ask for its site-packages: {}", python, describe_outcome(outcome, timeout)));
  std::vector<std::string> dirs;
  std::string_view out = outcome.out;
  while (!out.empty()) {
    auto nl = out.find('\n');
    std::string line(out.substr(0, nl));
    if (!line.empty()) dirs.push_back(line);
    if (nl == std::string_view::npos) break;
    out.remove_prefix(nl + 1);
  }
  return dirs;
}

std::string verdict_text(const Verdict& v) {
  switch (v.kind) {
    case VerdictKind::kNative:
      return fmt::format("runs natively ({})", v.image);
    case VerdictKind::kJit:
      return fmt::format("runs through PTX JIT: {}", v.reason);
    case VerdictKind::kCannotRun:
      return fmt::format("cannot run: {}", v.reason);
    case VerdictKind::kNoDeviceCode:
      break;
  }
  return "no CUDA device code";
}

// `text` with every line after the first indented by `by` spaces, to nest
// it inside a document printed piece by piece.
std::string indent_lines(std::string_view text, int by) {
  std::string pad = "\n" + std::string(static_cast<std::size_t>(by), ' ');
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    if (c == '\n')
      out += pad;
    else
      out += c;
  }
  return out;
}

// `json` as the writer shows it (redacted), pretty-printed and nested.
std::string nested_json(const Json& json, int by) {
  std::string text = render::prepare_output(json_text(json), render::OutputKind::kJson, {});
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return indent_lines(text, by);
}

int run_inspect(const InspectArgs& args, const GlobalOptions& global) {
  std::vector<GpuArch> gpus;
  for (const auto& g : args.gpus) {
    auto arch = parse_gpu_arch(g);
    if (!arch) throw InputError(fmt::format("--gpu {}: not a GPU architecture (try sm_90 or 9.0)", g));
    gpus.push_back(GpuArch{arch->major, arch->minor});
  }
  std::optional<DriverPtxSupport> driver;
  if (!args.driver.empty()) {
    auto v = Version::parse(args.driver);
    if (!v) throw InputError(fmt::format("--driver {}: not a driver version (like 550.54.15)", args.driver));
    driver = driver_ptx_support(*v);
    if (!driver)
      throw InputError(fmt::format("--driver {}: older than any driver cudiag knows (R384)", args.driver));
  }
  std::optional<PtxIsa> max_isa;
  if (driver) max_isa = driver->max_isa;

  std::vector<std::string> paths = args.paths;
  for (const auto& py : args.pythons)
    for (auto& d : site_packages(py, global)) paths.push_back(std::move(d));
  if (paths.empty()) throw InputError("inspect: give a file or directory, or --python");

  InspectOptions options;
  options.read_payload_heads = args.deep;
  // --python dirs that do not exist (user site) are skipped quietly.
  std::vector<InspectResult> results;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    bool from_python = i >= args.paths.size();
    std::error_code ec;
    if (from_python && !std::filesystem::exists(paths[i], ec)) continue;
    for (auto& r : inspect_paths({paths[i]}, options)) results.push_back(std::move(r));
  }

  bool any_error = false, any_cannot_run = false;
  // JSON goes out file by file, as the same document json_text would print, so
  // a directory of big libraries never sits in memory as one JSON tree.
  bool json = args.format == "json";
  std::size_t files_printed = 0;
  std::string text;  // one file's JSON, reused
  if (json) {
    std::cout << "{\n";
    if (driver) {
      Json d = {{"version", args.driver},
                {"cuda", driver->cuda.text()},
                {"max_ptx_isa", driver->max_isa.text()},
                {"newer_than_table", driver->newer_than_table}};
      std::cout << "  \"driver\": " << nested_json(d, 2) << ",\n";
    }
    std::cout << "  \"files\": [";
  }
  for (const auto& r : results) {
    if (!r.ok()) {
      any_error = true;
      render::write_message("cudiag: error: " + r.error);
    }
    std::vector<std::pair<GpuArch, Verdict>> verdicts;
    for (const auto& g : gpus) {
      Verdict v = file_verdict(r, g, max_isa);
      if (v.kind == VerdictKind::kCannotRun) any_cannot_run = true;
      verdicts.emplace_back(g, v);
    }
    if (json) {
      Json jv = Json::array();
      for (const auto& [g, v] : verdicts)
        jv.push_back({{"gpu", sm_name(g)},
                      {"verdict", verdict_kind_name(v.kind)},
                      {"image", v.image},
                      {"reason", v.reason}});
      Json extra = Json::object();
      extra["verdicts"] = std::move(jv);
      text.clear();
      append_json(r, text, 4, extra);
      // Each file's JSON passes the writer's redaction on its own: a path or a
      // wheel member's name may carry a token or a home directory.
      std::string shown = render::prepare_output(text, render::OutputKind::kJson, {});
      while (!shown.empty() && shown.back() == '\n') shown.pop_back();
      std::cout << (files_printed++ == 0 ? "\n    " : ",\n    ") << indent_lines(shown, 4);
      continue;
    }
    if (!r.ok() && r.entries.empty()) continue;
    // Through the writer: a wheel member's name or a path may carry secrets or terminal escapes.
    std::string lines = r.path + ": " + summary_line(r) + "\n";
    for (const auto& w : r.warnings) lines += "  warning: " + w + "\n";
    if (r.has_device_code())
      for (const auto& [g, v] : verdicts) lines += "  " + sm_name(g) + ": " + verdict_text(v) + "\n";
    render::write_output(lines, render::OutputKind::kText, {});
  }
  if (json) {
    std::cout << (files_printed == 0 ? "]\n}\n" : "\n  ]\n}\n");
  } else if (driver) {
    std::cout << fmt::format("driver {}: CUDA {}, JIT accepts PTX ISA up to {}{}\n", args.driver,
                             driver->cuda.text(), driver->max_isa.text(),
                             driver->newer_than_table ? " (at least; newer than cudiag's table)" : "");
  }
  if (any_error) return kExitBadInput;
  return any_cannot_run ? kExitErrorFinding : kExitOk;
}

const RegisterCommand kInspect{
    {"inspect", "List the CUDA device code in binaries and say which GPUs can run them", 30,
     [](CLI::App& sub, const GlobalOptions& global) -> CommandRun {
       auto args = std::make_shared<InspectArgs>();
       sub.add_option(
           "paths", args->paths,
           "Files (executables, .so, .o, .a, .cubin, .fatbin, .whl) or directories, searched recursively");
       // One value per --python/--gpu: `--gpu sm_120 FILE` must not take FILE as a second GPU.
       sub.add_option("--python", args->pythons,
                      "Also inspect this Python interpreter's site-packages; repeatable")
           ->allow_extra_args(false);
       sub.add_option("--gpu", args->gpus,
                      "Say whether a GPU of this architecture can run each file (sm_120, 9.0); repeatable")
           ->allow_extra_args(false);
       sub.add_option("--driver", args->driver, "Judge PTX JIT against this driver version (550.54.15)");
       sub.add_option("--format", args->format, "text (one line per file) or json (every entry)")
           ->check(CLI::IsMember({"text", "json"}));
       sub.add_flag(
           "--deep", args->deep,
           "Also decompress each entry's start to read the cubin ELF header and the PTX .version/.target");
       sub.footer(
           "Exit status: 0 fine; 1 a --gpu cannot run some inspected file; 2 bad input (missing file, not a "
           "binary,\n"
           "truncated or corrupt fatbin). The files are only read, never executed or loaded.");
       return [args, &global] { return run_inspect(*args, global); };
     }}};

}  // namespace
}  // namespace cudiag::cli
