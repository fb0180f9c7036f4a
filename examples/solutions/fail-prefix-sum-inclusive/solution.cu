#include "scan.h"

// Bug: computes the inclusive scan (out[i] includes in[i]).
long long exclusive_scan(int n, const int* in, long long* out) {
  long long acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += in[i];
    out[i] = acc;
  }
  return acc;
}
