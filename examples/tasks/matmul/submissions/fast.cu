// Fast: tensor cores through WMMA (fp16 inputs, float32 accumulators). Each block of 8 warps
// computes a 128 x 128 tile of C; for every 32-wide step along k it stages the 128 x 32 slice of
// A and the 32 x 128 slice of B in shared memory (16-byte loads when k and n are multiples of 8,
// guarded element loads otherwise; out-of-range elements are zero), and each warp multiplies its
// 64 x 32 part with 4 x 2 16x16x16 fragments. Each element of A and B is read from global memory
// n / 128 and m / 128 times instead of n and m times, and the tensor cores do the math. Any size
// works: edge fragments go through a per-warp shared buffer and are stored with bounds checks.
#include <mma.h>

#include "task.h"

namespace {

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32;  // block tile
constexpr int WM = 64, WN = 32;             // warp tile: 2 x 4 warps
constexpr int kThreads = 256;
constexpr int LDA = BK + 8, LDB = BN + 8;  // padded rows (multiples of 8 halves, as WMMA needs)

template <bool kVec>
__device__ __forceinline__ void load_tiles(const __half* a, const __half* b, __half* as, __half* bs,
                                           int m, int n, int k, int bm, int bn, int k0) {
  const __half zero = __float2half(0.0f);
  if (kVec) {
    // 8 halves (16 bytes) at a time: k % 8 == 0 and n % 8 == 0, so a chunk is all in or all out.
    for (int c = threadIdx.x; c < BM * BK / 8; c += kThreads) {
      const int r = c / (BK / 8), col = (c % (BK / 8)) * 8;
      const int gr = bm + r, gc = k0 + col;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (gr < m && gc < k)
        v = *reinterpret_cast<const uint4*>(a + static_cast<std::int64_t>(gr) * k + gc);
      *reinterpret_cast<uint4*>(as + r * LDA + col) = v;
    }
    for (int c = threadIdx.x; c < BK * BN / 8; c += kThreads) {
      const int r = c / (BN / 8), col = (c % (BN / 8)) * 8;
      const int gr = k0 + r, gc = bn + col;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (gr < k && gc < n)
        v = *reinterpret_cast<const uint4*>(b + static_cast<std::int64_t>(gr) * n + gc);
      *reinterpret_cast<uint4*>(bs + r * LDB + col) = v;
    }
  } else {
    for (int e = threadIdx.x; e < BM * BK; e += kThreads) {
      const int r = e / BK, col = e % BK, gr = bm + r, gc = k0 + col;
      as[r * LDA + col] = gr < m && gc < k ? a[static_cast<std::int64_t>(gr) * k + gc] : zero;
    }
    for (int e = threadIdx.x; e < BK * BN; e += kThreads) {
      const int r = e / BN, col = e % BN, gr = k0 + r, gc = bn + col;
      bs[r * LDB + col] = gr < k && gc < n ? b[static_cast<std::int64_t>(gr) * n + gc] : zero;
    }
  }
}

template <bool kVec>
__global__ void __launch_bounds__(kThreads)
    matmul_wmma(const __half* a, const __half* b, float* c, int m, int n, int k) {
  __shared__ __align__(128) __half as[BM * LDA];      // 10 KiB
  __shared__ __align__(128) __half bs[BK * LDB];      // 8.5 KiB
  __shared__ __align__(128) float stage[8][16 * 16];  // 8 KiB, for edge fragments
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / (BN / WN), wn = warp % (BN / WN);
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[WM / 16][WN / 16];
#pragma unroll
  for (int i = 0; i < WM / 16; ++i)
#pragma unroll
    for (int j = 0; j < WN / 16; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < k; k0 += BK) {
    load_tiles<kVec>(a, b, as, bs, m, n, k, bm, bn, k0);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[WM / 16];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[WN / 16];
#pragma unroll
      for (int i = 0; i < WM / 16; ++i)
        wmma::load_matrix_sync(fa[i], as + (wm * WM + i * 16) * LDA + kk, LDA);
#pragma unroll
      for (int j = 0; j < WN / 16; ++j)
        wmma::load_matrix_sync(fb[j], bs + kk * LDB + wn * WN + j * 16, LDB);
#pragma unroll
      for (int i = 0; i < WM / 16; ++i)
#pragma unroll
        for (int j = 0; j < WN / 16; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();  // before the next step overwrites as and bs
  }

#pragma unroll
  for (int i = 0; i < WM / 16; ++i)
#pragma unroll
    for (int j = 0; j < WN / 16; ++j) {
      // r0, c0 are the same in the whole warp: the branches below are warp-uniform.
      const int r0 = bm + wm * WM + i * 16, c0 = bn + wn * WN + j * 16;
      if (r0 >= m || c0 >= n) continue;
      if (r0 + 16 <= m && c0 + 16 <= n && n % 4 == 0) {
        wmma::store_matrix_sync(c + static_cast<std::int64_t>(r0) * n + c0, acc[i][j],
                                static_cast<unsigned>(n), wmma::mem_row_major);
      } else {
        wmma::store_matrix_sync(stage[warp], acc[i][j], 16, wmma::mem_row_major);
        __syncwarp();
        for (int e = lane; e < 16 * 16; e += 32) {
          const int r = r0 + e / 16, col = c0 + e % 16;
          if (r < m && col < n) c[static_cast<std::int64_t>(r) * n + col] = stage[warp][e];
        }
        __syncwarp();
      }
    }
}

}  // namespace

output_t custom_kernel(const input_t& in) {
  const int m = static_cast<int>(in.a.size(0)), k = static_cast<int>(in.a.size(1));
  const int n = static_cast<int>(in.b.size(1));
  const dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
  if (k % 8 == 0 && n % 8 == 0)
    matmul_wmma<true><<<grid, kThreads>>>(in.a.data(), in.b.data(), in.out.data(), m, n, k);
  else
    matmul_wmma<false><<<grid, kThreads>>>(in.a.data(), in.b.data(), in.out.data(), m, n, k);
  return in.out;
}
