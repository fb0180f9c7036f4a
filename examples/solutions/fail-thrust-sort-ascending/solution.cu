#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include "sort_desc.h"

namespace {
struct Ascending {
  __host__ __device__ bool operator()(int a, int b) const { return a < b; }
};
}  // namespace

// Bug: sorts ascending.
int sort_unique_desc(int n, int* data) {
  thrust::sort(thrust::host, data, data + n, Ascending());
  return static_cast<int>(thrust::unique(thrust::host, data, data + n) - data);
}
