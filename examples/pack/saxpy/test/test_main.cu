#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "saxpy.h"

int main() {
  const int n = 4096;
  static float x[n], y[n], ref[n];
  for (int i = 0; i < n; ++i) {
    x[i] = 0.25f * static_cast<float>(i % 97) - 3.0f;
    y[i] = 1.5f - 0.125f * static_cast<float>(i % 31);
  }
  const float a = -1.75f;
  for (int i = 0; i < n; ++i) ref[i] = a * x[i] + y[i];

  saxpy(n, a, x, y);

  for (int i = 0; i < n; ++i) {
    if (std::fabs(y[i] - ref[i]) > 1e-5f * (1.0f + std::fabs(ref[i]))) {
      std::fprintf(stderr, "FAIL: y[%d] = %g, expected %g\n", i, y[i], ref[i]);
      return 1;
    }
  }
  // n = 0 must touch nothing.
  saxpy(0, a, nullptr, nullptr);
  std::printf("PASS: saxpy on %d elements\n", n);
  return 0;
}
