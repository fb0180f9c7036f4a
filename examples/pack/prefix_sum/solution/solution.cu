#include "scan.h"

long long exclusive_scan(int n, const int* in, long long* out) {
  long long acc = 0;
  for (int i = 0; i < n; ++i) {
    out[i] = acc;
    acc += in[i];
  }
  return acc;
}
