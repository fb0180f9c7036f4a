#include "half_ops.h"

int quantize_to_half(int n, const float* in, __half* out) {
  int changed = 0;
  for (int i = 0; i < n; ++i) {
    const __half h(in[i]);  // __half's float constructor rounds to nearest even
    out[i] = h;
    changed += static_cast<float>(h) != in[i];
  }
  return changed;
}
