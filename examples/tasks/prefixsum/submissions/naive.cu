// Naive: three kernels. (1) Each block of 1024 threads scans its 1024 elements with a
// Hillis-Steele scan in shared memory (log2(1024) = 10 steps, O(n log n) adds) and writes its
// total; (2) one thread turns the block totals into offsets, sequentially (65536 of them at 64M
// elements); (3) every element gets its block's offset added. The output is read and written
// twice and the serial pass does not scale.
#include "task.h"

namespace {

constexpr int kBlock = 1024;

__global__ void scan_blocks(const int* x, int* out, int* totals, std::int64_t n) {
  __shared__ int buf[2][kBlock];
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x;
  buf[0][threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  int cur = 0;
  for (int off = 1; off < kBlock; off *= 2) {
    int v = buf[cur][threadIdx.x];
    if (static_cast<int>(threadIdx.x) >= off) v += buf[cur][threadIdx.x - off];
    buf[cur ^ 1][threadIdx.x] = v;
    cur ^= 1;
    __syncthreads();  // everyone has read buf[cur ^ 1] before it is written again
  }
  if (i < n) out[i] = buf[cur][threadIdx.x];
  if (threadIdx.x == kBlock - 1) totals[blockIdx.x] = buf[cur][threadIdx.x];
}

// Block totals -> exclusive offsets, in place, by one thread.
__global__ void offsets_serial(int* totals, std::int64_t blocks) {
  int run = 0;
  for (std::int64_t b = 0; b < blocks; ++b) {
    const int t = totals[b];
    totals[b] = run;
    run += t;
  }
}

__global__ void add_offsets(int* out, const int* offsets, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kBlock) + threadIdx.x;
  if (i < n) out[i] += offsets[blockIdx.x];
}

// Scratch for the block totals, kept between calls. At least 2^18 of them (up to 2^28
// elements), so that growing it (a synchronous cudaMalloc) happens in the first, untimed warm-up
// call rather than in a timed one.
int* scratch(std::int64_t count) {
  static kj::Tensor<int> buf;
  if (buf.numel() < count) buf = kj::Tensor<int>::empty({count < (1 << 18) ? 1 << 18 : count});
  return buf.data();
}

}  // namespace

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.x.numel(), blocks = (n + kBlock - 1) / kBlock;
  int* totals = scratch(blocks);
  scan_blocks<<<static_cast<unsigned>(blocks), kBlock>>>(in.x.data(), in.out.data(), totals, n);
  if (blocks > 1) {
    offsets_serial<<<1, 1>>>(totals, blocks);
    add_offsets<<<static_cast<unsigned>(blocks), kBlock>>>(in.out.data(), totals, n);
  }
  return in.out;
}
