/* Test double for libnvrtc, the CUDA run-time compiler, for what the real one
 * cannot show on this machine (a compile error, a hang, an old NVRTC without
 * nvrtcGetCUBIN is not emulated). Scenario keys: "version" (e.g. "12.4"),
 * "archs" (comma-separated SM numbers), "<call>.result" and
 * "<call>.behaviour" (hang, segfault) for nvrtcCompileProgram,
 * "nvrtcCompileProgram.log". A successful compile gives PTX or an ELF
 * "cubin" naming the kernel cudiag_axpy, which fake_libcuda accepts: the
 * double checks that the source it was given defines that kernel. */
#include <stddef.h>

#include "double_scenario.h"

typedef int nvrtcResult;

enum {
  NVRTC_SUCCESS = 0,
  NVRTC_ERROR_INVALID_INPUT = 3,
  NVRTC_ERROR_INVALID_PROGRAM = 4,
  NVRTC_ERROR_COMPILATION = 6,
};

struct program {
  char* source;
  char arch[64];
  int compiled;
  int cubin;
};

static void load(void) { scenario_load(); }

const char* nvrtcGetErrorString(nvrtcResult r) {
  switch (r) {
    case NVRTC_SUCCESS: return "NVRTC_SUCCESS";
    case NVRTC_ERROR_INVALID_INPUT: return "NVRTC_ERROR_INVALID_INPUT";
    case NVRTC_ERROR_INVALID_PROGRAM: return "NVRTC_ERROR_INVALID_PROGRAM";
    case NVRTC_ERROR_COMPILATION: return "NVRTC_ERROR_COMPILATION";
    default: return "NVRTC_ERROR_INTERNAL_ERROR";
  }
}

nvrtcResult nvrtcVersion(int* major, int* minor) {
  load();
  if (major == NULL || minor == NULL) return NVRTC_ERROR_INVALID_INPUT;
  if (sscanf(scenario_str("version", "12.4"), "%d.%d", major, minor) != 2) return NVRTC_ERROR_INVALID_INPUT;
  return NVRTC_SUCCESS;
}

static int parse_archs(int* out) {
  load();
  const char* text = scenario_str("archs", "75,80,86,89,90");
  int n = 0;
  while (*text != '\0' && n < 64) {
    int v = (int)strtol(text, (char**)&text, 10);
    if (out != NULL) out[n] = v;
    ++n;
    while (*text == ',' || *text == ' ') ++text;
  }
  return n;
}

nvrtcResult nvrtcGetNumSupportedArchs(int* n) {
  if (n == NULL) return NVRTC_ERROR_INVALID_INPUT;
  *n = parse_archs(NULL);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetSupportedArchs(int* archs) {
  if (archs == NULL) return NVRTC_ERROR_INVALID_INPUT;
  parse_archs(archs);
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCreateProgram(void** prog, const char* src, const char* name, int num_headers,
                               const char* const* headers, const char* const* include_names) {
  (void)name, (void)num_headers, (void)headers, (void)include_names;
  if (prog == NULL || src == NULL) return NVRTC_ERROR_INVALID_INPUT;
  struct program* p = calloc(1, sizeof *p);
  if (p == NULL) return NVRTC_ERROR_INVALID_INPUT;
  p->source = strdup(src);
  *prog = p;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcDestroyProgram(void** prog) {
  if (prog == NULL || *prog == NULL) return NVRTC_ERROR_INVALID_PROGRAM;
  struct program* p = *prog;
  free(p->source);
  free(p);
  *prog = NULL;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcCompileProgram(void* prog, int num_options, const char* const* options) {
  load();
  struct program* p = prog;
  if (p == NULL) return NVRTC_ERROR_INVALID_PROGRAM;
  scenario_behave("nvrtcCompileProgram");
  nvrtcResult r = (nvrtcResult)scenario_int("nvrtcCompileProgram.result", NVRTC_SUCCESS);
  if (r != NVRTC_SUCCESS) return r;
  for (int i = 0; i < num_options; ++i) {
    const char* prefix = "--gpu-architecture=";
    if (strncmp(options[i], prefix, strlen(prefix)) == 0) {
      snprintf(p->arch, sizeof p->arch, "%s", options[i] + strlen(prefix));
    }
  }
  if (p->arch[0] == '\0' || strstr(p->source, "__global__ void cudiag_axpy(") == NULL) return NVRTC_ERROR_COMPILATION;
  p->compiled = 1;
  p->cubin = strncmp(p->arch, "sm_", 3) == 0;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLogSize(void* prog, size_t* size) {
  if (prog == NULL || size == NULL) return NVRTC_ERROR_INVALID_INPUT;
  *size = strlen(scenario_str("nvrtcCompileProgram.log", "")) + 1;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetProgramLog(void* prog, char* log) {
  if (prog == NULL || log == NULL) return NVRTC_ERROR_INVALID_INPUT;
  strcpy(log, scenario_str("nvrtcCompileProgram.log", ""));
  return NVRTC_SUCCESS;
}

static void ptx_text(const struct program* p, char* out, size_t len) {
  snprintf(out, len,
           ".version %s\n.target %s\n.address_size 64\n.visible .entry cudiag_axpy(\n.param .u64 p0\n)\n{\nret;\n}\n",
           scenario_str("ptx_version", "8.4"), p->arch);
}

nvrtcResult nvrtcGetPTXSize(void* prog, size_t* size) {
  struct program* p = prog;
  if (p == NULL || size == NULL || !p->compiled || p->cubin) return NVRTC_ERROR_INVALID_INPUT;
  char buf[512];
  ptx_text(p, buf, sizeof buf);
  *size = strlen(buf) + 1;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetPTX(void* prog, char* ptx) {
  struct program* p = prog;
  if (p == NULL || ptx == NULL || !p->compiled || p->cubin) return NVRTC_ERROR_INVALID_INPUT;
  ptx_text(p, ptx, 512);
  return NVRTC_SUCCESS;
}

/* A minimal ELF64 image: header, the kernel's name, and an empty section header table. */
#define FAKE_CUBIN_SIZE 256
static void cubin_bytes(unsigned char* out) {
  memset(out, 0, FAKE_CUBIN_SIZE);
  memcpy(out, "\x7f" "ELF\x02\x01\x01", 7);
  unsigned long long shoff = 192;
  unsigned short shentsize = 64, shnum = 1;
  memcpy(out + 0x28, &shoff, sizeof shoff);
  memcpy(out + 0x3a, &shentsize, sizeof shentsize);
  memcpy(out + 0x3c, &shnum, sizeof shnum);
  memcpy(out + 64, "cudiag_axpy", 12);
}

nvrtcResult nvrtcGetCUBINSize(void* prog, size_t* size) {
  struct program* p = prog;
  if (p == NULL || size == NULL || !p->compiled || !p->cubin) return NVRTC_ERROR_INVALID_INPUT;
  *size = FAKE_CUBIN_SIZE;
  return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetCUBIN(void* prog, char* cubin) {
  struct program* p = prog;
  if (p == NULL || cubin == NULL || !p->compiled || !p->cubin) return NVRTC_ERROR_INVALID_INPUT;
  cubin_bytes((unsigned char*)cubin);
  return NVRTC_SUCCESS;
}
