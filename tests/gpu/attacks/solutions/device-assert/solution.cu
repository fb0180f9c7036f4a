// A failing device-side assert: another sticky error.
#include <cassert>
#include "fill.h"
__global__ void k(int* out, int n) { assert(n < 0); out[0] = n; }
void fill(int* d_out, int n) { k<<<1, 1>>>(d_out, n); }
