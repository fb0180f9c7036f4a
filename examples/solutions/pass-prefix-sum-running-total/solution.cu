#include "scan.h"

// Inclusive running sums shifted by one place.
long long exclusive_scan(int n, const int* in, long long* out) {
  if (n <= 0) return 0;
  long long running = 0;
  out[0] = 0;
  for (int i = 1; i < n; ++i) {
    running += in[i - 1];
    out[i] = running;
  }
  return running + in[n - 1];
}
