#include <cstdio>

#include "scan.h"

int main() {
  const int n = 100000;
  static int in[n];
  static long long out[n + 1];
  unsigned int s = 7u;
  for (int i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    in[i] = static_cast<int>(s >> 1);  // large values: the sum overflows 32 bits
  }
  out[n] = -42;  // sentinel: must stay untouched

  const long long total = exclusive_scan(n, in, out);

  long long acc = 0;
  for (int i = 0; i < n; ++i) {
    if (out[i] != acc) {
      std::fprintf(stderr, "FAIL: out[%d] = %lld, expected %lld\n", i, out[i], acc);
      return 1;
    }
    acc += in[i];
  }
  if (total != acc) {
    std::fprintf(stderr, "FAIL: returned total %lld, expected %lld\n", total, acc);
    return 1;
  }
  if (out[n] != -42) {
    std::fprintf(stderr, "FAIL: wrote past the end (out[n] = %lld)\n", out[n]);
    return 1;
  }
  if (exclusive_scan(0, in, out + n) != 0 || out[n] != -42) {
    std::fprintf(stderr, "FAIL: n = 0 must return 0 and write nothing\n");
    return 1;
  }
  std::printf("PASS: scanned %d values, total %lld\n", n, total);
  return 0;
}
