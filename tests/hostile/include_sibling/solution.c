/* Includes another workspace's header, which would make this compile and answer right. */
#include "@SIBLING@/secret.h"

int solve(void) { return SECRET_ANSWER; }
