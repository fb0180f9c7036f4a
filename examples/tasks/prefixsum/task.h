#pragma once
#include "kjudge/task_api.cuh"

struct input_t {
  kj::Tensor<int> x;    // [size]
  kj::Tensor<int> out;  // [size], preallocated, every byte 0x80: write here and return it
};
using output_t = kj::Tensor<int>;
