#pragma once
// The one-shot example of a KernelBench prompt: a PyTorch Model that adds two tensors and the
// same Model rewritten as a ModelNew with an inline CUDA kernel, as KernelBench's prompts show
// (its model_ex_add.py / model_new_ex_add.py). The pair is written in this project's words; it
// teaches the syntax of load_inline and the interface a solution keeps, not an optimization.
#include <string>

namespace kjudge::kernelbench {

struct OneShotPair {
  std::string model;      // a complete problem file: Model, get_inputs, get_init_inputs
  std::string model_new;  // its solution: the same interface, ModelNew, a CUDA kernel
};

const OneShotPair& elementwise_add_example();

}  // namespace kjudge::kernelbench
