/* A shell's /dev/tcp, the way a build script would reach a service of the host. */
#include <stdlib.h>

int solve(void) {
  int rc = system("bash -c 'echo kjhostile > /dev/tcp/127.0.0.1/KJ_PORT' 2>&1");
  return rc == 0 ? 42 : 0;
}
