/* The judge's inherited descriptors (77: a host file, writable; 78: a secret; hostile_test.cpp)
   from a shell the solution starts, and from that shell's children: whatever the test program
   does not hold itself, a child it starts might. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

int solve(void) {
  int rc = system(
      "got=0; "
      "if s=$(cat /proc/$$/fd/78 2>/dev/null) && [ -n \"$s\" ]; then echo \"78: $s\"; got=1; fi; "
      "if echo kjhostile planted 2>/dev/null >> /proc/$$/fd/77; then echo wrote 77; got=1; fi; "
      "for f in /proc/[0-9]*/fd/*; do "
      "  case $(readlink $f 2>/dev/null) in "
      "    *kjhostile-fd-secret*) cat $f && got=1;; "
      "    *kjhostile-fd-host*) echo kjhostile planted >> $f && got=1;; "
      "  esac; "
      "done 2>/dev/null; "
      "[ $got = 1 ] && exit 7; exit 0");
  return WIFEXITED(rc) && WEXITSTATUS(rc) == 7 ? 42 : 0;
}
