#pragma once
// What a task's task.h and reference.cuh include: the building blocks of a kjudge CUDA task.
//
// A task defines (docs/tasks.md):
//   task.h:         struct input_t { ... };  using output_t = kj::Tensor<T>;
//   reference.cuh:  input_t generate_input(const kj::Spec& spec);
//                   output_t ref_kernel(const input_t& input);
//                   kj::Tolerance tolerance(const input_t& input);
// and a submission defines
//                   output_t custom_kernel(const input_t& input);
#include "compare.h"
#include "random.cuh"
#include "seeds.h"
#include "spec.h"
#include "tensor.cuh"
