/* Sleeps past the time limit. */
#include <unistd.h>

int solve(void) {
  sleep(1000);
  return 42;
}
