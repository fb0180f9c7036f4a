#include <cmath>
#include <cstdio>
#include <cstring>

#include "half_ops.h"

static unsigned short bits(__half h) {
  unsigned short u;
  std::memcpy(&u, &h, sizeof u);
  return u;
}

int main() {
  const int n = 2048;
  static float in[n];
  static __half out[n];
  // Fixed edge cases, then a deterministic spread of magnitudes and signs.
  const float fixed[] = {0.0f, -0.0f, 1.0f, 0.1f, 65504.0f, 65520.0f, 1e5f, -1e5f,
                         1e-8f, 6.1e-5f, 3.0e-7f, 2049.0f, 2051.0f, 1.0009765625f};
  const int nfixed = sizeof fixed / sizeof fixed[0];
  unsigned int s = 12345u;
  for (int i = 0; i < n; ++i) {
    if (i < nfixed) {
      in[i] = fixed[i];
      continue;
    }
    s = s * 1664525u + 1013904223u;
    const float mant = 1.0f + static_cast<float>(s >> 9) / 8388608.0f;  // [1, 2)
    const int exp = static_cast<int>((s >> 3) % 40) - 26;                  // 2^-26 .. 2^13
    in[i] = std::ldexp((s & 1u) ? -mant : mant, exp);
  }

  const int changed = quantize_to_half(n, in, out);

  int want_changed = 0;
  for (int i = 0; i < n; ++i) {
    const __half ref = __float2half_rn(in[i]);
    if (__half2float(ref) != in[i]) ++want_changed;
    if (bits(out[i]) != bits(ref)) {
      std::fprintf(stderr, "FAIL: in[%d] = %.9g -> half bits 0x%04x, expected 0x%04x\n", i,
                   in[i], bits(out[i]), bits(ref));
      return 1;
    }
  }
  if (changed != want_changed) {
    std::fprintf(stderr, "FAIL: returned %d changed values, expected %d\n", changed,
                 want_changed);
    return 1;
  }
  std::printf("PASS: %d values quantized, %d changed\n", n, changed);
  return 0;
}
