#pragma once
#include "kjudge/task_api.cuh"

struct input_t {
  kj::Tensor<float> x;    // [size]
  kj::Tensor<float> out;  // [1], preallocated, NaN-filled: write the sum here and return it
};
using output_t = kj::Tensor<float>;
