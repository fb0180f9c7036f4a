#ifndef VEC4_H
#define VEC4_H

#include <vector_types.h>

__host__ __device__ float dot4(float4 a, float4 b);
__host__ __device__ float4 lerp4(float4 a, float4 b, float t);
__host__ __device__ float4 normalize4(float4 v);

#endif  // VEC4_H
