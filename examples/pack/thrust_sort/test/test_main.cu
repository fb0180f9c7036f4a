#include <cstdio>

#include "sort_desc.h"

int main() {
  const int n = 5000;
  static int v[n];
  static char seen[1000];
  unsigned int s = 99u;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = static_cast<int>((s >> 8) % 1000) - 500;  // many duplicates in [-500, 500)
    seen[v[i] + 500] = 1;
  }
  static int want[1000];
  int m_want = 0;
  for (int k = 999; k >= 0; --k)
    if (seen[k]) want[m_want++] = k - 500;

  const int m = sort_unique_desc(n, v);

  if (m != m_want) {
    std::fprintf(stderr, "FAIL: returned %d distinct values, expected %d\n", m, m_want);
    return 1;
  }
  for (int i = 0; i < m; ++i) {
    if (v[i] != want[i]) {
      std::fprintf(stderr, "FAIL: data[%d] = %d, expected %d\n", i, v[i], want[i]);
      return 1;
    }
  }
  if (sort_unique_desc(0, v) != 0) {
    std::fprintf(stderr, "FAIL: n = 0 must return 0\n");
    return 1;
  }
  std::printf("PASS: %d distinct values in descending order\n", m);
  return 0;
}
