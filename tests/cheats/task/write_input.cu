// CHEAT (writing into the inputs): GPU MODE's cheat-input. Zeroes both inputs and the output, so
// a harness that computes the reference after the call compares zeros with zeros. kjudge makes
// the reference first, from the untouched input: this must fail every test.
#include "task.h"

output_t custom_kernel(const input_t& in) {
  cudaMemsetAsync(in.a.data(), 0, in.a.bytes());
  cudaMemsetAsync(in.b.data(), 0, in.b.bytes());
  cudaMemsetAsync(in.out.data(), 0, in.out.bytes());
  return in.out;
}
