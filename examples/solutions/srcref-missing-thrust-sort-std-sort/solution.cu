#include <algorithm>
#include <functional>

#include "sort_desc.h"

// Correct result, but sorted with the standard library. The only mention of the required API
// is this comment: "use thrust::sort(thrust::host, data, data + n, ...) here" -- which must not
// count as using it.
int sort_unique_desc(int n, int* data) {
  std::sort(data, data + n, std::greater<int>());
  return static_cast<int>(std::unique(data, data + n) - data);
}
