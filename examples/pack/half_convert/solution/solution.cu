#include "half_ops.h"

int quantize_to_half(int n, const float* in, __half* out) {
  int changed = 0;
  for (int i = 0; i < n; ++i) {
    out[i] = __float2half_rn(in[i]);
    if (__half2float(out[i]) != in[i]) ++changed;
  }
  return changed;
}
