// CHEAT (lie_no_device): a fill() that does nothing but print the CUDA runtime's words for a
// missing GPU and fail. A judge that reads those words as the machine's fault retried it and left
// it out of pass@k (a wrong answer that costs nothing); kjudge's own probe on that GPU decides,
// and a GPU that runs the probe was there: test_fail, counted.
#include <cstdio>
#include <cstdlib>

#include "fill.h"

void fill(int*, int) {
  std::fprintf(stderr, "CUDA error: no CUDA-capable device is detected (cudaErrorNoDevice)\n");
  std::exit(1);
}
