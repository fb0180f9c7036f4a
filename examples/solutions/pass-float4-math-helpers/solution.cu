#include <cmath>

#include "vec4.h"

namespace {
__host__ __device__ float4 add4(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__host__ __device__ float4 scale4(float4 a, float s) {
  return make_float4(a.x * s, a.y * s, a.z * s, a.w * s);
}
}  // namespace

__host__ __device__ float dot4(float4 a, float4 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

__host__ __device__ float4 lerp4(float4 a, float4 b, float t) {
  return add4(a, scale4(add4(b, scale4(a, -1.0f)), t));
}

__host__ __device__ float4 normalize4(float4 v) {
  const float len = sqrtf(dot4(v, v));
  return len > 0.0f ? scale4(v, 1.0f / len) : v;
}
