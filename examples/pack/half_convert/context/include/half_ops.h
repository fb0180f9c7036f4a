#ifndef HALF_OPS_H
#define HALF_OPS_H

#include <cuda_fp16.h>

// out[i] = in[i] rounded to the nearest half (ties to even). Returns the number of i for which
// float(out[i]) != in[i]. Host pointers; runs on the host.
int quantize_to_half(int n, const float* in, __half* out);

#endif  // HALF_OPS_H
