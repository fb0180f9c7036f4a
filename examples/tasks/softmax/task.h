#pragma once
#include "kjudge/task_api.cuh"

struct input_t {
  kj::Tensor<float> x;    // [rows, cols]
  kj::Tensor<float> out;  // [rows, cols], preallocated, NaN-filled: write here and return it
};
using output_t = kj::Tensor<float>;
