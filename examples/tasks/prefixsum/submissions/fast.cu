// Fast: a single-pass scan with decoupled look-back (Merrill & Garland, 2016). Each block takes
// the next tile of 4096 elements (its tile number from an atomic counter, so every tile it waits
// for belongs to a block that already runs), scans it in registers with warp shuffles, publishes
// the tile's total, then looks back over its predecessors' published values, a warp at a time,
// until it meets one that carries an inclusive prefix; it publishes its own inclusive prefix and
// writes the tile. One read and one write of the data, against about three reads and two writes
// plus a serial pass for the naive version.
#include <cuda/atomic>

#include "task.h"

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr int kSteps = 4;                    // int4 loads per thread
constexpr int kWarpItems = 32 * 4 * kSteps;  // 512 consecutive elements per warp
constexpr int kTile = kWarps * kWarpItems;   // 4096 elements per block

// A tile's status word: the flag in the high 32 bits, the value's bits in the low 32, so that
// one 64-bit store publishes both at once.
using Status = unsigned long long;
constexpr Status kAggregate = 1ull << 32;  // the value is the tile's own total
constexpr Status kPrefix = 2ull << 32;  // the value is the sum of everything up to the tile's end

__device__ __forceinline__ void publish(Status* s, Status v) {
  cuda::atomic_ref<Status, cuda::thread_scope_device>(*s).store(v, cuda::memory_order_relaxed);
}
__device__ __forceinline__ Status peek(Status* s) {
  return cuda::atomic_ref<Status, cuda::thread_scope_device>(*s).load(cuda::memory_order_relaxed);
}

__device__ __forceinline__ int warp_inclusive_scan(int v, int lane) {
  for (int off = 1; off < 32; off *= 2) {
    const int t = __shfl_up_sync(kFull, v, off);
    if (lane >= off) v += t;
  }
  return v;
}

__device__ __forceinline__ int warp_sum(int v) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(kFull, v, off);
  return v;
}

// By warp 0 of a block: the sum of every element before tile `tile`, once the tiles before it
// have published. The values of all 32 lanes are read together, nearest predecessor in lane 0.
__device__ int look_back(Status* status, int tile, int lane) {
  int exclusive = 0;
  for (int last = tile - 1;; last -= 32) {
    const int idx = last - lane;
    Status st = idx >= 0 ? peek(status + idx) : kPrefix;  // before tile 0: a prefix of 0
    while (__any_sync(kFull, (st >> 32) == 0))
      if ((st >> 32) == 0) st = peek(status + idx);  // not published yet: wait
    const int value = static_cast<int>(static_cast<unsigned>(st));
    const unsigned prefixes = __ballot_sync(kFull, (st >> 32) == 2);
    if (prefixes) {  // the nearest prefix ends the walk; the totals between it and us add up
      const int nearest = __ffs(static_cast<int>(prefixes)) - 1;
      return exclusive + warp_sum(lane <= nearest ? value : 0);
    }
    exclusive += warp_sum(value);
  }
}

__global__ void __launch_bounds__(kThreads)
    scan_decoupled(const int* x, int* out, std::int64_t n, Status* status, unsigned* counter) {
  __shared__ int s_tile, s_prefix;
  __shared__ int s_warp[kWarps];
  if (threadIdx.x == 0) s_tile = static_cast<int>(atomicAdd(counter, 1u));
  __syncthreads();
  const int tile = s_tile;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t base = static_cast<std::int64_t>(tile) * kTile + warp * kWarpItems;
  const bool full = static_cast<std::int64_t>(tile + 1) * kTile <= n;

  // Load: step k of lane l holds elements base + 4 (32 k + l) .. + 3, so a warp's 32 int4 loads
  // cover 128 consecutive elements and the lanes are in element order.
  int4 v[kSteps];
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
    const std::int64_t e = base + 4 * static_cast<std::int64_t>(32 * k + lane);
    if (full) {
      v[k] = *reinterpret_cast<const int4*>(x + e);
    } else {
      v[k].x = e < n ? x[e] : 0;
      v[k].y = e + 1 < n ? x[e + 1] : 0;
      v[k].z = e + 2 < n ? x[e + 2] : 0;
      v[k].w = e + 3 < n ? x[e + 3] : 0;
    }
  }
  // Scan the warp's 512 elements: within each int4, across the lanes, then across the steps.
  int carry = 0;
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
    v[k].y += v[k].x;
    v[k].z += v[k].y;
    v[k].w += v[k].z;
    const int incl = warp_inclusive_scan(v[k].w, lane);
    const int add = carry + incl - v[k].w;
    v[k].x += add;
    v[k].y += add;
    v[k].z += add;
    v[k].w += add;
    carry += __shfl_sync(kFull, incl, 31);
  }
  if (lane == 0) s_warp[warp] = carry;  // every lane holds the warp's total
  __syncthreads();

  if (warp == 0) {
    const int total = lane < kWarps ? s_warp[lane] : 0;
    const int incl = warp_inclusive_scan(total, lane);
    const int aggregate = __shfl_sync(kFull, incl, kWarps - 1);
    if (lane < kWarps) s_warp[lane] = incl - total;  // each warp's offset within the tile
    int exclusive = 0;
    if (tile == 0) {
      if (lane == 0) publish(status, kPrefix | static_cast<unsigned>(aggregate));
    } else {
      if (lane == 0) publish(status + tile, kAggregate | static_cast<unsigned>(aggregate));
      exclusive = look_back(status, tile, lane);
      if (lane == 0) publish(status + tile, kPrefix | static_cast<unsigned>(exclusive + aggregate));
    }
    if (lane == 0) s_prefix = exclusive;
  }
  __syncthreads();

  const int offset = s_prefix + s_warp[warp];
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
    const std::int64_t e = base + 4 * static_cast<std::int64_t>(32 * k + lane);
    const int4 r = make_int4(v[k].x + offset, v[k].y + offset, v[k].z + offset, v[k].w + offset);
    if (full) {
      *reinterpret_cast<int4*>(out + e) = r;
    } else {
      if (e < n) out[e] = r.x;
      if (e + 1 < n) out[e + 1] = r.y;
      if (e + 2 < n) out[e + 2] = r.z;
      if (e + 3 < n) out[e + 3] = r.w;
    }
  }
}

// Scratch for the tile statuses and the tile counter, kept between calls. At least 2^16 words
// (up to 2^28 elements), so that growing it (a synchronous cudaMalloc) happens in the first,
// untimed warm-up call rather than in a timed one.
Status* scratch(std::int64_t count) {
  static kj::Tensor<Status> buf;
  if (buf.numel() < count) buf = kj::Tensor<Status>::empty({count < (1 << 16) ? 1 << 16 : count});
  return buf.data();
}

}  // namespace

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.x.numel(), tiles = (n + kTile - 1) / kTile;
  Status* status = scratch(tiles + 1);  // the last word is the tile counter
  KJ_CHECK(cudaMemsetAsync(status, 0, sizeof(Status) * static_cast<std::size_t>(tiles + 1), 0));
  scan_decoupled<<<static_cast<unsigned>(tiles), kThreads>>>(
      in.x.data(), in.out.data(), n, status, reinterpret_cast<unsigned*>(status + tiles));
  return in.out;
}
