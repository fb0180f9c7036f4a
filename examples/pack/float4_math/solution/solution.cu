#include <cmath>

#include "vec4.h"

__host__ __device__ float dot4(float4 a, float4 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

__host__ __device__ float4 lerp4(float4 a, float4 b, float t) {
  return make_float4(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z),
                     a.w + t * (b.w - a.w));
}

__host__ __device__ float4 normalize4(float4 v) {
  const float len2 = dot4(v, v);
  if (len2 == 0.0f) return v;
  const float inv = 1.0f / sqrtf(len2);
  return make_float4(v.x * inv, v.y * inv, v.z * inv, v.w * inv);
}
