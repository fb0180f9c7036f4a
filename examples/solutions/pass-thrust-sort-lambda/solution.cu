#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include "sort_desc.h"

// Sorts through a lambda comparator, then compacts in place with thrust::unique.
int sort_unique_desc(int n, int* data) {
  thrust::sort(thrust::host, data, data + n, [](int a, int b) { return a > b; });
  int* last = thrust::unique(thrust::host, data, data + n);
  return static_cast<int>(last - data);
}
