// Writes through a wild pointer: a sticky error for this process's context.
#include "fill.h"
__global__ void k(int* out, int n) { out[(1ull << 40) / sizeof(int) + threadIdx.x] = n; }
void fill(int* d_out, int n) { k<<<1, 32>>>(d_out, n); }
