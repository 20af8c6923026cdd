#include "explain/pasted_prose.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace cudiag::explain {

namespace {

constexpr auto kIcase = std::regex::icase | std::regex::ECMAScript;

bool has(const std::string& hay, const char* needle) { return hay.find(needle) != std::string::npos; }

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

constexpr const char* kNamedGpu = "a GPU named in the text";

// Whether `word` is followed within a few characters by a version ("cuda 12.2", "cuda10.0"): a cheap
// test that spares most log lines ("on cuda:0") the regex.
bool version_after(const std::string& l, const char* word) {
  for (auto at = l.find(word); at != std::string::npos; at = l.find(word, at + 1)) {
    auto end = std::min(l.size(), at + 40);
    for (std::size_t i = at + 1; i + 2 < end; ++i) {
      if (std::isdigit(static_cast<unsigned char>(l[i])) && l[i + 1] == '.' &&
          std::isdigit(static_cast<unsigned char>(l[i + 2])))
        return true;
    }
  }
  return false;
}

// "GTX1080", "rtx 3090 ti", "RTX A6000", "Titan Xp", "Tesla T4", "A100", "H100": the product names
// people write. Datacenter names count only in capitals (a lone "a10" or "l4" in prose is more
// often something else); the knowledge base's lookup (--assume gpu) resolves the name.
void read_gpus(const std::string& s, const std::string& l, std::vector<ProseFact>& out) {
  // Workstation cards share the "RTX" and the digits: "RTX 4000 Ada" is sm_89 where Quadro RTX 4000
  // is sm_75, and "RTX PRO 6000" is Blackwell's (sm_120).
  static const std::regex geforce(
      R"((?:^|[^a-z0-9])(gtx|rtx)\s?-?(?:(pro)\s?)?(\d{3,4}|a\d{4})(?:\s?(ti|super)|\s(ada))?(?![a-z0-9]))",
      kIcase);
  // "GTX TITAN X" is Maxwell's (sm_52), "TITAN X" Pascal's (sm_61); the Kepler GTX TITANs are sm_35.
  static const std::regex titan(R"(\b(gtx\s?)?titan(?:\s?(rtx|xp|v|x|z|black))?\b)", kIcase);
  static const std::regex datacenter(
      R"((?:^|[^A-Za-z0-9_.\-/])(K80|M40|M60|P100|P40|V100S?|T4|A100|A800|A30|A40|A10G|H100|H200|H800|GH200|B200|B300|GB200|L40S?|L4)(?![A-Za-z0-9_\-]))");
  static const std::regex tesla(R"(\btesla\s+(k80|m40|m60|p100|p40|p4|v100s?|t4)\b)", kIcase);
  // The GPU's architecture said outright: "it has compute capability 5.2", deviceQuery's "CUDA
  // Capability Major/Minor version number: 5.0", PyTorch's "... with CUDA capability sm_86 is not
  // compatible". Not a build's list ("supports CUDA capabilities sm_37 sm_50"), -gencode flags or a
  // program's minimum ("needs a CUDA-Enabled GPU (with at least compute capability 2.0)").
  static const std::regex capability(
      R"(\bcompute capability(?:\s+(?:is|of))?\s*[:=]?\s*(\d{1,2}\.\d)\b|capability major/minor version number:\s*(\d{1,2})\.(\d)\b|\bcuda capability (sm_\d{2,3})\b)",
      kIcase);
  std::smatch m;
  static const std::regex minimum(
      R"(\b(?:at least|minimum|min\.?|or (?:higher|newer|above|later)|requires?|required|needs?)\b[^.;]{0,24}\bcompute capability|compute capability\s*(?:>=|of at least)|compute capability\s*\d{1,2}\.\d\s*(?:or (?:higher|newer|above|later)|\+))",
      kIcase);
  if (has(l, "capability") && std::regex_search(l, m, capability) && !std::regex_search(l, minimum)) {
    std::string cc = m[1].matched ? m[1].str() : (m[2].matched ? m[2].str() + "." + m[3].str() : m[4].str());
    out.push_back({"gpu", cc, "a GPU's compute capability in the text"});
    return;  // the same GPU's name on the line adds nothing
  }
  if (has(l, "gtx") || has(l, "rtx")) {
    // "upgraded from a GTX 1060 to an RTX 4060", "replaced my 1080 with a 3090": the GPU now in
    // the machine is the last one the line names.
    bool replaced = has(l, "upgrad") || has(l, "replac") || has(l, "switch") || has(l, " from ");
    std::size_t before = out.size();
    for (auto it = std::sregex_iterator(s.begin(), s.end(), geforce); it != std::sregex_iterator(); ++it) {
      if (replaced && out.size() > before) out.pop_back();
      const auto& g = *it;
      std::string model = upper(g[3]);
      std::string suffix = !g[4].matched ? "" : (upper(g[4]) == "TI" ? " Ti" : " SUPER");
      std::string name = g[2].matched      ? "RTX PRO " + model + " Blackwell"
                         : g[5].matched    ? "RTX " + model + " Ada Generation"
                         : model[0] == 'A' ? "RTX " + model
                                           : "GeForce " + upper(g[1]) + " " + model + suffix;
      out.push_back({"gpu", name, kNamedGpu});
    }
  }
  // "using 4090 GPU", "my 3080 Ti card": a GeForce model number without its GTX/RTX, only when
  // "GPU" or "card" follows it (a bare four-digit number is usually something else).
  static const std::regex bare_geforce(
      R"((?:^|[^a-z0-9.])((?:10|16|20|30|40|50)[5-9]0)(?:\s?(ti|super))?\s+(?:gpus?|graphics cards?|cards?)\b)",
      kIcase);
  if (!has(l, "gtx") && !has(l, "rtx") && (has(l, "gpu") || has(l, "card")) &&
      std::regex_search(s, m, bare_geforce)) {
    std::string model = m[1];
    std::string series = model.rfind("10", 0) == 0 || model.rfind("16", 0) == 0 ? "GTX" : "RTX";
    std::string suffix = !m[2].matched ? "" : (upper(m[2]) == "TI" ? " Ti" : " SUPER");
    out.push_back({"gpu", "GeForce " + series + " " + model + suffix, kNamedGpu});
  }
  if (has(l, "titan") && std::regex_search(s, m, titan) && (m[1].matched || m[2].matched)) {
    std::string variant = upper(m[2]);
    if (variant == "XP") variant = "Xp";
    if (variant == "BLACK") variant = "Black";
    std::string name = m[1].matched ? "GeForce GTX TITAN" : "TITAN";
    out.push_back({"gpu", variant.empty() ? name : name + " " + variant, kNamedGpu});
  }
  // Only lines with a capital followed by a digit can name one: most log lines skip the regex.
  bool capital_digit = false;
  for (std::size_t i = 0; i + 1 < s.size() && !capital_digit; ++i)
    capital_digit = s[i] >= 'A' && s[i] <= 'Z' && s[i + 1] >= '0' && s[i + 1] <= '9';
  if (capital_digit && std::regex_search(s, m, datacenter))
    out.push_back({"gpu", m[1], kNamedGpu});
  else if (has(l, "tesla") && std::regex_search(s, m, tesla))
    out.push_back({"gpu", upper(m[1]), kNamedGpu});
}

// "under WSL2", "Windows 10", "win11", "Ubuntu 22.04". A line that names WSL describes Linux under
// WSL, not native Windows.
void read_platform(const std::string& l, std::vector<ProseFact>& out) {
  static const std::regex wsl(R"(\bwsl\s?-?2\b|\b(?:in|under|via|on|using|inside|from)\s+(?:the\s+)?wsl\b)",
                              kIcase);
  static const std::regex windows(
      R"(\b(?:windows|win)\s?-?(?:7|8|8\.1|10|11|server)\b|\bon (?:native )?windows\b)", kIcase);
  static const std::regex distro(
      R"(\b(ubuntu|debian|centos|rhel|rocky|fedora|almalinux)\s?-?(\d+(?:\.\d+)?)\b)", kIcase);
  std::smatch m;
  bool names_wsl = has(l, "wsl");
  if (names_wsl && std::regex_search(l, wsl)) out.push_back({"wsl", "2", "WSL named in the text"});
  if (!names_wsl && has(l, "win") && std::regex_search(l, windows))
    out.push_back({"os", "windows", "the OS named in the text"});
  bool names_distro = has(l, "ubuntu") || has(l, "debian") || has(l, "centos") || has(l, "rhel") ||
                      has(l, "rocky") || has(l, "fedora") || has(l, "almalinux");
  if (names_distro && std::regex_search(l, m, distro))
    out.push_back({"os", m[1].str() + m[2].str(), "the OS named in the text"});
}

// "tensorflow==2.16", "TF 2.9.1", "pytorch 1.13", "torch version: 2.0.1+cu117", "driver is 570.133.20".
void read_versions(const std::string& l, std::vector<ProseFact>& out) {
  static const std::regex tensorflow(
      R"((?:^|[\s(,;:'"`])(?:tensorflow(?:-gpu)?|tf)(?:\.__version__)?(?:\s+version)?\s*(?:==|=|is|:|as|v)?\s*[`'"]?(\d+\.\d+(?:\.\d+)?)(?!\d|\.\d))",
      kIcase);
  static const std::regex torch(
      R"((?:^|[\s(,;:'"`])(?:pytorch|torch)(?:\.__version__)?(?:\s+version)?\s*(?:={1,3}|is|:|as|v)?\s*[`'"]?(\d+\.\d+(?:\.\d+)?(?:\+(?:cu\d+|cpu|rocm\d+(?:\.\d+)*))?)(?!\d|\.\d))",
      kIcase);
  static const std::regex driver(
      R"(\bdrivers?(?:\s+version)?[\s(-]*(?:is|was|:|=|of|version)?\s*(?:version\s*)?r?([2-9]\d{2}(?:\.\d{2,3}(?:\.\d{1,3})?)?)(?!\d|\.\d|%))",
      kIcase);
  // "with CUDA 12.2", "cuda10.0", "CUDA version is 11.8", "(in server with cuda 11.1)": the toolkit the
  // reporter has. Not nvidia-smi's header (the driver's CUDA), a path (/usr/local/cuda-11.7) or a
  // framework's build ("CUDA used to build PyTorch").
  static const std::regex cuda(
      R"((?:^|[^a-z0-9/_.\-])cuda[\s_-]?(?:toolkit\s?)?(?:version\s*(?:is|:|=)?\s*|v|is\s+)?(\d{1,2}\.\d)(?:\.\d+)*(?!\d|\.\d|\+|/))",
      kIcase);
  std::smatch m;
  if (version_after(l, "cuda") && !has(l, "driver version") && !has(l, "used to build") &&
      !has(l, "version.cuda") && !has(l, "built with") && !has(l, "compiled with") &&
      std::regex_search(l, m, cuda) && std::stoi(m[1].str()) >= 3)
    // "PyTorch with CUDA version 1.9.1" names the framework's version: CUDA 1.x and 2.x are long gone.
    out.push_back({"cuda_runtime", m[1], "a CUDA version in the text"});
  if ((has(l, "tensorflow") || has(l, "tf")) && std::regex_search(l, m, tensorflow))
    out.push_back({"tensorflow", m[1], "a TensorFlow version in the text"});
  if (has(l, "torch") && !has(l, "used to build") && std::regex_search(l, m, torch)) {
    // "conda install pytorch==1.6.0 cudatoolkit=10.1 -c pytorch" (or pytorch-cuda=11.8): the
    // CUDA the command chose is the build's, as "+cu101" would say.
    static const std::regex conda_cuda(R"((?:cudatoolkit|pytorch-cuda)\s*={1,2}\s*(\d{1,2})\.(\d))");
    std::string version = m[1];
    std::smatch c;
    if (version.find('+') == std::string::npos && has(l, "conda") && std::regex_search(l, c, conda_cuda)) {
      out.push_back(
          {"torch", version + "+cu" + c[1].str() + c[2].str(), "a conda command's PyTorch and CUDA"});
    } else {
      out.push_back({"torch", version, "a PyTorch version in the text"});
    }
  }
  // The first driver the line says is there, not one it says is needed ("requires driver version
  // 555.42.02, whereas the script installs driver version 550.90.07"; "needs driver 525 or newer").
  if (has(l, "driver")) {
    static const std::regex needed_before(
        R"((?:requir\w*|needs?|needed|minimum|at least|>=?)\s*(?:an?\s+|the\s+)?(?:nvidia\s+)?$)");
    static const std::regex needed_after(
        R"(^\s*(?:or\s+(?:newer|later|above|higher|greater)|\+|and\s+(?:newer|later|above)))");
    for (auto it = std::sregex_iterator(l.begin(), l.end(), driver); it != std::sregex_iterator(); ++it) {
      const auto& match = *it;
      auto start = static_cast<std::size_t>(match.position(0));
      std::string before = l.substr(start >= 24 ? start - 24 : 0, start >= 24 ? 24 : start);
      std::string after = l.substr(static_cast<std::size_t>(match.position(0) + match.length(0)));
      // "or newer" after the version marks a requirement only beside a word that says so: "(version
      // 470 or later)" alone is the reporter's own driver.
      bool needed = std::regex_search(before, needed_before) ||
                    (std::regex_search(after, needed_after) &&
                     (has(l, "requir") || has(l, "need") || has(l, "minimum")));
      if (needed) continue;
      out.push_back({"driver", match[1], "a driver version in the text"});
      break;
    }
  }
  // A line that is only a driver-shaped version ("410.48" under the OS in an environment list).
  static const std::regex bare_driver(R"(^\s*r?([2-9]\d{2}\.\d{2,3}(?:\.\d{2})?)\s*$)");
  if (l.size() < 24 && std::regex_search(l, m, bare_driver))
    out.push_back({"driver", m[1], "a driver version alone on a line"});
}

}  // namespace

std::vector<ProseFact> read_prose_line(const std::string& line, const std::string& lowered) {
  std::vector<ProseFact> out;
  read_gpus(line, lowered, out);
  read_platform(lowered, out);
  read_versions(lowered, out);
  return out;
}

}  // namespace cudiag::explain
