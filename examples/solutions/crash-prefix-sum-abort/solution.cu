#include <vector>

#include "scan.h"

// Bug: builds the inclusive scan, then shifts it by one with incl.at(i - 1) and "zeroes" out[0]
// by multiplying with (i > 0) -- but incl.at(-1) is still evaluated: it throws
// std::out_of_range, nothing catches it, and std::terminate aborts the process (SIGABRT).
long long exclusive_scan(int n, const int* in, long long* out) {
  std::vector<long long> incl(n);
  long long acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += in[i];
    incl[i] = acc;
  }
  for (int i = 0; i < n; ++i) out[i] = incl.at(static_cast<size_t>(i - 1)) * (i > 0);
  return acc;
}
