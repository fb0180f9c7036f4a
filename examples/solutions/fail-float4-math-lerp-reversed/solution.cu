#include <cmath>

#include "vec4.h"

__host__ __device__ float dot4(float4 a, float4 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// Bug: interpolates from b towards a (t and 1 - t swapped).
__host__ __device__ float4 lerp4(float4 a, float4 b, float t) {
  return make_float4(b.x + t * (a.x - b.x), b.y + t * (a.y - b.y), b.z + t * (a.z - b.z),
                     b.w + t * (a.w - b.w));
}

__host__ __device__ float4 normalize4(float4 v) {
  const float len = sqrtf(dot4(v, v));
  return len > 0.0f ? make_float4(v.x / len, v.y / len, v.z / len, v.w / len) : v;
}
