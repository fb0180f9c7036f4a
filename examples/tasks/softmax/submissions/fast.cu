// Fast: one block per row. Each thread keeps an online (max, sum of exp(x - max)) pair over its
// strided share of the row, read with coalesced float4 loads; the pairs are merged with warp
// shuffles and then across warps through shared memory. A second pass re-reads the row (mostly
// from L2: the rows in flight fit in it) and writes exp(x - max) / sum. DRAM traffic is about one
// read and one write of the matrix, against three reads and a write, uncoalesced, for the naive
// kernel.
#include "task.h"

namespace {

constexpr unsigned kFull = 0xffffffffu;

// A partial softmax denominator: the largest value m seen and sum of exp(x - m).
struct MaxSum {
  float m, s;
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.0f};  // both empty (exp(-inf - -inf) would be NaN)
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ __forceinline__ void add1(MaxSum& t, float v) {
  const float m = fmaxf(t.m, v);
  t.s = t.s * expf(t.m - m) + expf(v - m);
  t.m = m;
}

__device__ __forceinline__ void add4(MaxSum& t, float4 v) {
  const float m = fmaxf(t.m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
  t.s = t.s * expf(t.m - m) + ((expf(v.x - m) + expf(v.y - m)) + (expf(v.z - m) + expf(v.w - m)));
  t.m = m;
}

// The (max, sum) of the whole row, in every thread of the block.
__device__ MaxSum block_merge(MaxSum t) {
  __shared__ MaxSum partial[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int off = 16; off > 0; off /= 2)
    t = merge(t, {__shfl_xor_sync(kFull, t.m, off), __shfl_xor_sync(kFull, t.s, off)});
  if (lane == 0) partial[warp] = t;
  __syncthreads();
  if (warp == 0) {
    t = lane < static_cast<int>(blockDim.x / 32) ? partial[lane] : MaxSum{-INFINITY, 0.0f};
    for (int off = 16; off > 0; off /= 2)
      t = merge(t, {__shfl_xor_sync(kFull, t.m, off), __shfl_xor_sync(kFull, t.s, off)});
    if (lane == 0) partial[0] = t;
  }
  __syncthreads();
  return partial[0];
}

// kVec4: cols % 4 == 0, so every row starts 16-byte aligned and splits into float4s.
// blockDim.x must be a multiple of 32.
template <bool kVec4>
__global__ void __launch_bounds__(512)
    softmax_block_per_row(const float* x, float* out, std::int64_t cols) {
  const float* row = x + static_cast<std::int64_t>(blockIdx.x) * cols;
  float* o = out + static_cast<std::int64_t>(blockIdx.x) * cols;
  MaxSum t{-INFINITY, 0.0f};
  if (kVec4) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    for (std::int64_t i = threadIdx.x; i < cols / 4; i += blockDim.x) add4(t, row4[i]);
  } else {
    for (std::int64_t i = threadIdx.x; i < cols; i += blockDim.x) add1(t, row[i]);
  }
  const MaxSum all = block_merge(t);
  const float m = all.m, inv = 1.0f / all.s;
  if (kVec4) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    float4* o4 = reinterpret_cast<float4*>(o);
    for (std::int64_t i = threadIdx.x; i < cols / 4; i += blockDim.x) {
      const float4 v = row4[i];
      o4[i] = make_float4(expf(v.x - m) * inv, expf(v.y - m) * inv, expf(v.z - m) * inv,
                          expf(v.w - m) * inv);
    }
  } else {
    for (std::int64_t i = threadIdx.x; i < cols; i += blockDim.x) o[i] = expf(row[i] - m) * inv;
  }
}

}  // namespace

output_t custom_kernel(const input_t& in) {
  const std::int64_t rows = in.x.size(0), cols = in.x.size(1);
  // About 8 or more elements per thread, at most 512 threads.
  const int threads = cols <= 1024 ? 128 : cols <= 4096 ? 256 : 512;
  if (cols % 4 == 0)
    softmax_block_per_row<true>
        <<<static_cast<unsigned>(rows), threads>>>(in.x.data(), in.out.data(), cols);
  else
    softmax_block_per_row<false>
        <<<static_cast<unsigned>(rows), threads>>>(in.x.data(), in.out.data(), cols);
  return in.out;
}
