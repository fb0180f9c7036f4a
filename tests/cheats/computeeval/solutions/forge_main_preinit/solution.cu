// CHEAT (forging the main guard's line from code the loader runs first): an entry of the
// program's own .preinit_array runs before the constructor of every library, the preloaded main
// guard's included, while the guard's channel is still named in the environment and its nonce
// still in the channel (the guard empties it in its constructor). It keeps a copy of the channel
// and the nonce; fill() then writes the line the guard writes when main()
// returns, and ends the process with status 0 before the test has checked anything. kjudge reads
// every built test program's ELF tables and refuses one with code ahead of the guard
// (src/eval/start_code_scan.h): this solution is a build_error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fill.h"

static int g_channel = -1;
static char g_nonce[128];

static void early(int, char**, char** envp) {
  const char* fd = nullptr;
  for (char** e = envp; *e; ++e)
    if (std::strncmp(*e, "KJUDGE_MAIN_FD=", 15) == 0) fd = *e + 15;
  if (!fd) return;
  g_channel = dup(std::atoi(fd));  // the guard moves its descriptor away later
  const ssize_t got = pread(g_channel, g_nonce, sizeof g_nonce - 1, 0);
  g_nonce[got > 0 ? got : 0] = '\0';
  if (char* nl = std::strchr(g_nonce, '\n')) *nl = '\0';
}

__attribute__((section(".preinit_array"), used)) static void (*g_entry)(int, char**,
                                                                        char**) = early;

void fill(int*, int) {
  if (g_channel >= 0) dprintf(g_channel, "kjudge-main %s returned 0\n", g_nonce);
  _exit(0);
}
