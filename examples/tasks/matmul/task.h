#pragma once
#include "kjudge/task_api.cuh"

struct input_t {
  kj::Tensor<__half> a;   // [m, k], row-major
  kj::Tensor<__half> b;   // [k, n], row-major
  kj::Tensor<float> out;  // [m, n], preallocated, NaN-filled: write here and return it
};
using output_t = kj::Tensor<float>;
