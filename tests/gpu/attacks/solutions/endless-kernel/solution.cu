// A kernel that never ends: the judge must kill the process at the timeout and the GPU must
// work again for the next solution.
#include "fill.h"
__global__ void k(volatile int* out, int n) {
  while (true) out[threadIdx.x % n] = 0;
}
void fill(int* d_out, int n) { k<<<1024, 256>>>(d_out, n); }
