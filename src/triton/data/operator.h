#pragma once
// The judge's model of one TritonBench operator (thunlp/TritonBench, channels G and T). Plain
// data: reading the dataset lives in tritonbench.cpp, splitting an operator file in
// triton/data/split.cpp.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kjudge::triton {

// G: real Triton operators from GitHub (the reference is Triton code).
// T: operators defined by PyTorch code (the reference is the PyTorch function).
enum class TritonChannel { G, T };

std::string_view channel_name(TritonChannel c);

struct TritonOperator {
  TritonChannel channel = TritonChannel::G;
  // G has no name field: the file stem stands in. T names some operators by their torch path
  // ("torch.div" in div.py), so name and file are kept apart.
  std::string name;
  std::string file;    // key into TritonBench_operator_files.jsonl, e.g. "add_example.py"
  int difficulty = 0;  // 1..5 (G ships it as a string, T as an int)

  // The prompts as shipped in the *_alpac_v1.json files (preamble + instruction text).
  std::string simple_instruction;
  std::string complex_instruction;

  // The operator file cut at its separator line: the code a candidate replaces, and the test
  // code that calls it.
  std::string reference_code;
  std::string test_code;

  // The whole entry of TritonBench_G_v1.json or TritonBench_T_v1.jsonl as shipped (G: repo,
  // star, simp_instru, comp_instru, *_len, output; T: func_inputs, description, math, other,
  // example, torch_code, torch_cnt, params_cnt). Kept whole so nothing the dataset says is lost.
  nlohmann::ordered_json statistics;
};

}  // namespace kjudge::triton
