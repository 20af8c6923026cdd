/* Shared by the test doubles (tests/doubles/fake_*.c): how a double finds and
 * reads its scenario. Header only, so each double stays one self-contained
 * .so. See tests/doubles/README.md for the format and the lookup order. */
#ifndef CUDIAG_DOUBLE_SCENARIO_H
#define CUDIAG_DOUBLE_SCENARIO_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCENARIO_MAX_ENTRIES 512
#define SCENARIO_MAX_LINE 512

struct scenario_entry {
  char key[128];
  char value[SCENARIO_MAX_LINE];
};

static struct scenario_entry scenario_entries[SCENARIO_MAX_ENTRIES];
static int scenario_count = -1; /* -1: not loaded yet */

static inline void scenario_trim(char* s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
}

static inline void scenario_parse_file(FILE* f) {
  char line[SCENARIO_MAX_LINE + 160];
  while (fgets(line, sizeof line, f) != NULL && scenario_count < SCENARIO_MAX_ENTRIES) {
    scenario_trim(line);
    char* start = line;
    while (*start == ' ' || *start == '\t') ++start;
    if (*start == '\0' || *start == '#') continue;
    char* eq = strchr(start, '=');
    if (eq == NULL || eq == start || (size_t)(eq - start) >= sizeof scenario_entries[0].key) continue;
    struct scenario_entry* e = &scenario_entries[scenario_count++];
    memcpy(e->key, start, (size_t)(eq - start));
    e->key[eq - start] = '\0';
    snprintf(e->value, sizeof e->value, "%s", eq + 1);
  }
}

/* The scenario of the double this header is compiled into: the file
 * "<dir>/.<file name>.scenario" beside the loaded .so (so each copy in a
 * fixture tree has its own), else the file named by $CUDIAG_DOUBLE_SCENARIO,
 * else none (every answer is the default). */
static inline void scenario_load(void) {
  if (scenario_count >= 0) return;
  scenario_count = 0;
  char path[4096] = "";
  Dl_info info;
  if (dladdr(&scenario_count, &info) != 0 && info.dli_fname != NULL) {
    const char* slash = strrchr(info.dli_fname, '/');
    if (slash != NULL) {
      snprintf(path, sizeof path, "%.*s/.%s.scenario", (int)(slash - info.dli_fname), info.dli_fname, slash + 1);
    }
  }
  FILE* f = path[0] != '\0' ? fopen(path, "r") : NULL;
  if (f == NULL) {
    const char* env = getenv("CUDIAG_DOUBLE_SCENARIO");
    if (env != NULL && env[0] != '\0') f = fopen(env, "r");
  }
  if (f == NULL) return;
  scenario_parse_file(f);
  fclose(f);
}

static inline const char* scenario_get(const char* key) {
  for (int i = scenario_count - 1; i >= 0; --i) { /* the last assignment wins */
    if (strcmp(scenario_entries[i].key, key) == 0) return scenario_entries[i].value;
  }
  return NULL;
}

static inline const char* scenario_str(const char* key, const char* fallback) {
  const char* v = scenario_get(key);
  return v != NULL ? v : fallback;
}

static inline long long scenario_int(const char* key, long long fallback) {
  const char* v = scenario_get(key);
  if (v == NULL || *v == '\0') return fallback;
  char* end = NULL;
  long long n = strtoll(v, &end, 0);
  return (end != NULL && *end == '\0') ? n : fallback;
}

/* "device.<i>.<field>", falling back to "device.<field>" (every device). */
static inline const char* scenario_device_str(int index, const char* field, const char* fallback) {
  char key[128];
  snprintf(key, sizeof key, "device.%d.%s", index, field);
  const char* v = scenario_get(key);
  if (v != NULL) return v;
  snprintf(key, sizeof key, "device.%s", field);
  return scenario_str(key, fallback);
}

static inline long long scenario_device_int(int index, const char* field, long long fallback) {
  const char* v = scenario_device_str(index, field, NULL);
  if (v == NULL || *v == '\0') return fallback;
  char* end = NULL;
  long long n = strtoll(v, &end, 0);
  return (end != NULL && *end == '\0') ? n : fallback;
}

/* "<call>.behaviour": "hang" sleeps forever (the parent must kill it),
 * "escape" leaves a setsid()'d grandchild behind ("escape-hang": and hangs),
 * "segfault" dies of SIGSEGV. The handler is reset first so the process
 * really dies of the signal even where a sanitizer runtime has installed its
 * own SIGSEGV handler. */
static inline void scenario_behave(const char* call) {
  char key[128];
  snprintf(key, sizeof key, "%s.behaviour", call);
  const char* b = scenario_get(key);
  if (b == NULL) return;
  if (strcmp(b, "hang") == 0) {
    for (;;) pause();
  }
  /* "escape": a grandchild setsid()s out of the child's process group and
   * sleeps, as a library's helper daemon would; the call itself returns. */
  if (strcmp(b, "escape") == 0 || strcmp(b, "escape-hang") == 0) {
    pid_t pid = fork();
    if (pid == 0) {
      setsid();
      if (fork() == 0) {
        for (;;) pause();
      }
      _exit(0);
    }
    if (strcmp(b, "escape") == 0) return;
    for (;;) pause(); /* "escape-hang": and the call never returns */
  }
  if (strcmp(b, "segfault") == 0) {
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
}

/* Copies `text` into out[len] like the NVIDIA string getters; 0 when it fits. */
static inline int scenario_copy(char* out, unsigned long len, const char* text) {
  if (out == NULL) return -1;
  if (strlen(text) + 1 > len) return 1;
  memcpy(out, text, strlen(text) + 1);
  return 0;
}

#endif
