#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include "sort_desc.h"

namespace {
// Descending order through a user comparator. (Not thrust::greater<int>: with thrust::host on
// primitive keys, CCCL 3.0 -- CUDA 13.0 -- takes a radix-sort shortcut that orders negative
// ints as if they were unsigned; NVIDIA/cccl#4919.)
struct Descending {
  __host__ __device__ bool operator()(int a, int b) const { return a > b; }
};
}  // namespace

int sort_unique_desc(int n, int* data) {
  thrust::sort(thrust::host, data, data + n, Descending());
  return static_cast<int>(thrust::unique(thrust::host, data, data + n) - data);
}
