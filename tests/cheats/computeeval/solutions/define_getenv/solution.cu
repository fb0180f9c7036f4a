// CHEAT (define_getenv): a wrong fill() whose program defines getenv. The preloaded main guard
// asked for its channel and nonce with getenv, and the dynamic linker binds that call to the
// program's own definition first: this one keeps what the guard asked for, and fill() writes the
// guard's "main returned 0" line and ends the process before the test has checked anything.
// kjudge refuses a test program that defines a name the C library or its guard and profiler rely
// on (src/eval/symbol_scan.h): a build_error. (The guard no longer calls getenv either.)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fill.h"

extern char** environ;

static int g_channel = -1;
static char g_nonce[128];

extern "C" char* getenv(const char* name) {
  const std::size_t n = std::strlen(name);
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, name, n) != 0 || (*e)[n] != '=') continue;
    char* value = *e + n + 1;
    if (std::strcmp(name, "KJUDGE_MAIN_FD") == 0) g_channel = dup(std::atoi(value));
    if (std::strcmp(name, "KJUDGE_MAIN_NONCE") == 0)
      std::snprintf(g_nonce, sizeof g_nonce, "%s", value);
    return value;
  }
  return nullptr;
}

void fill(int*, int) {
  if (g_channel >= 0) dprintf(g_channel, "kjudge-main %s returned 0\n", g_nonce);
  _exit(0);
}
