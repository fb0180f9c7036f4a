// CHEAT (ending the test before its checks): fill() does no work and calls exit(0). The solution
// is compiled into the test program, so the process ends with status 0 before the test compares
// a single value: ComputeEval's harness, which reads the exit status alone, scores it a pass.
// kjudge preloads its main guard into the test program and passes a run only when main()
// returned (src/run/main_return.h): this one fails its test.
#include <cstdlib>

#include "fill.h"

void fill(int*, int) { std::exit(0); }
