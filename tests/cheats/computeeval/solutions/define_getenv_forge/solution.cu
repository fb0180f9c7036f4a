// CHEAT (taking the main guard's channel through getenv): the solution defines getenv. The main
// guard, preloaded into the test program, took its channel (KJUDGE_MAIN_FD) and nonce
// (KJUDGE_MAIN_NONCE) with getenv before main, so it called this one (issue 31): the channel is
// kept, and the nonce with it (or read out of the channel before the guard empties it). fill()
// then does no work, writes the guard's line "returned 0" and exits 0 before the test checks
// anything. The guard now reads its environment from the block the loader hands its constructor
// and its nonce from the channel, on raw system calls: this getenv never sees them, and the test
// fails (tests/hostile/define_getenv is the same attack on the CPU).
// Before any of that, kjudge refuses a test program that defines a name libc or its guard and
// profiler rely on (src/eval/symbol_scan.h): a build_error, the layer this one sits behind.
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "fill.h"

extern char** environ;
static int g_channel = -1;
static char g_nonce[128];

static void keep_nonce(const char* text) {
  size_t k = 0;
  while (text[k] && text[k] != '\n' && k + 1 < sizeof g_nonce) g_nonce[k] = text[k], ++k;
  g_nonce[k] = 0;
}

extern "C" char* getenv(const char* name) noexcept {
  const size_t len = std::strlen(name);
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, name, len) != 0 || (*e)[len] != '=') continue;
    char* value = *e + len + 1;
    if (std::strcmp(name, "KJUDGE_MAIN_NONCE") == 0) keep_nonce(value);
    if (std::strcmp(name, "KJUDGE_MAIN_FD") == 0) {
      int fd = 0;
      for (const char* p = value; *p >= '0' && *p <= '9'; ++p) fd = fd * 10 + (*p - '0');
      g_channel = dup(fd);
      char buf[128] = {};
      if (pread(fd, buf, sizeof buf - 1, 0) > 0) keep_nonce(buf);
    }
    return value;
  }
  return nullptr;
}

void fill(int*, int) {
  if (g_channel >= 0 && g_nonce[0]) {
    char line[256];
    const int n = std::snprintf(line, sizeof line, "kjudge-main %s returned 0\n", g_nonce);
    if (ftruncate(g_channel, 0) == 0 && pwrite(g_channel, line, n, 0) == n) _exit(0);
  }
}
