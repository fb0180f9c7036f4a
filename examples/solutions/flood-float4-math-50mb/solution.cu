#include <cmath>
#include <cstdio>
#include <cstring>

#include "vec4.h"

// Correct helpers, but the first call dumps ~50 MB of "debug output" to stdout. The test still
// passes: the judge must cap what it keeps of the output without blocking the writer.
static void debug_dump_once() {
  static bool done = false;
  if (done) return;
  done = true;
  static char line[1024];
  std::memset(line, 'x', sizeof line - 1);
  line[sizeof line - 1] = '\n';
  for (int i = 0; i < 50 * 1024; ++i) std::fwrite(line, 1, sizeof line, stdout);
  std::fflush(stdout);
}

__host__ __device__ float dot4(float4 a, float4 b) {
#ifndef __CUDA_ARCH__
  debug_dump_once();
#endif
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

__host__ __device__ float4 lerp4(float4 a, float4 b, float t) {
  return make_float4(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z),
                     a.w + t * (b.w - a.w));
}

__host__ __device__ float4 normalize4(float4 v) {
  const float len = sqrtf(dot4(v, v));
  return len > 0.0f ? make_float4(v.x / len, v.y / len, v.z / len, v.w / len) : v;
}
