#pragma once
#include "kjudge/task_api.cuh"

struct input_t {
  kj::Tensor<float> a, b;
  kj::Tensor<float> out;  // preallocated, NaN-filled: write here and return it
};
using output_t = kj::Tensor<float>;
