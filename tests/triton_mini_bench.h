#pragma once
// A small TritonBench data folder for tests that must not depend on the shared dataset: three G
// operators (vector add, softmax, matmul) and two T operators (relu, layer norm), laid out as
// upstream's files, so load_tritonbench reads it like the real one.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "triton/data/split.h"
#include "triton/data/tritonbench.h"

namespace kjudge::testing {

inline const char* kGPreamble =
    "You are a expert in writing Triton operators for efficient GPU programming. Use triton "
    "language write a kernel and wrapper according following instruction.\n            ";
inline const char* kTPreamble =
    "You are an expert in Trion programming, capable of writing corresponding Triton kernels "
    "and wrapper functions based on functional descriptions and function parameters.\n";

struct MiniOp {
  std::string file, simp, comp, code;
};

inline const MiniOp kMiniG[] = {
    {"vector_add.py", "This Triton kernel adds two vectors elementwise.",
     "The add_kernel Triton kernel loads two input vectors x and y in blocks of BLOCK_SIZE "
     "elements, adds them elementwise and stores the sum; the wrapper add(x, y) launches it.",
     "import torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\ndef "
     "add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):\n    pid = "
     "tl.program_id(0)\n    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n    mask = offs "
     "< n\n    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + "
     "offs, mask=mask), mask=mask)\n\ndef add(x, y):\n    out = torch.empty_like(x)\n    n = "
     "out.numel()\n    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)\n    "
     "return out\n"},
    {"softmax_rows.py", "This Triton kernel computes a row-wise softmax of a matrix.",
     "The softmax_kernel Triton kernel reads one row of the input matrix per program, subtracts "
     "the row maximum for stability, exponentiates, divides by the row sum and writes the "
     "softmax row; the wrapper softmax(x) launches one program per row.",
     "import torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\ndef "
     "softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):\n    row = "
     "tl.program_id(0)\n    cols = tl.arange(0, BLOCK)\n    x = tl.load(in_ptr + row * n_cols + "
     "cols, mask=cols < n_cols, other=-float('inf'))\n    x = x - tl.max(x, axis=0)\n    e = "
     "tl.exp(x)\n    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=cols < "
     "n_cols)\n\ndef softmax(x):\n    out = torch.empty_like(x)\n    "
     "softmax_kernel[(x.shape[0],)](out, "
     "x, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))\n    return out\n"},
    {"matmul_tiles.py", "This Triton kernel multiplies two matrices with tiles.",
     "The matmul_kernel Triton kernel computes C = A @ B by tiles of BLOCK_M x BLOCK_N, "
     "accumulating products of BLOCK_K slices of the matrices in float32 with tl.dot; the "
     "wrapper matmul(a, b) allocates C and launches a 2D grid of tiles.",
     "import torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\ndef "
     "matmul_kernel(a, b, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: "
     "tl.constexpr):\n    pass\n\ndef matmul(a, b):\n    return a @ b\n"},
};

struct MiniTOp {
  std::string name, file, func_inputs, description, code;
};

inline const MiniTOp kMiniT[] = {
    {"relu", "relu.py", "relu(input) -> Tensor. Args: input (Tensor): the input tensor.",
     "Applies the rectified linear unit function elementwise to the input tensor.",
     "import torch\ndef relu(input):\n    return torch.relu(input)\n"},
    {"torch.nn.functional.layer_norm", "layer_norm.py",
     "layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5) -> Tensor.",
     "Applies layer normalization over the last dimensions of the input matrix rows.",
     "import torch\ndef layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):\n"
     "    return torch.nn.functional.layer_norm(input, normalized_shape, weight, bias, eps)\n"},
};

inline std::string mini_g_simple(const MiniOp& op) { return kGPreamble + op.simp; }
inline std::string mini_g_complex(const MiniOp& op) { return kGPreamble + op.comp; }
inline std::string mini_t_simple(const MiniTOp& op) {
  return std::string(kTPreamble) + "Functional Description: " + op.description +
         "\nWrapper Entry Information: " + op.func_inputs +
         "\nAfter generation, verify if the Triton wrapper aligns with the provided func_inputs.";
}
inline std::string mini_t_complex(const MiniTOp& op) {
  return std::string(kTPreamble) + "Functional Description: " + op.description +
         "\nWrapper Entry Information: " + op.func_inputs + "\nMath: y = f(x)\nother: none";
}

inline void write_mini_tritonbench(const std::filesystem::path& dir) {
  namespace f = triton::tritonbench_files;
  using nlohmann::json;
  std::filesystem::create_directories(dir);
  const std::string sep(triton::kTritonSeparatorWidth, '#');
  json gs = json::array(), gsimp = json::array(), gcomp = json::array();
  json ts = json::array(), tsimp = json::array(), tcomp = json::array();
  std::string ops;
  int level = 1;
  for (const MiniOp& op : kMiniG) {
    gs.push_back({{"file", op.file},
                  {"repo", "r/x"},
                  {"simp_instru", op.simp},
                  {"comp_instru", op.comp},
                  {"output", op.code},
                  {"star", 1},
                  {"difficulty", std::to_string(level++)}});
    gsimp.push_back({{"instruction", mini_g_simple(op)}, {"input", ""}, {"output", op.code}});
    gcomp.push_back({{"instruction", mini_g_complex(op)}, {"input", ""}, {"output", op.code}});
    ops += json{{"channel", "G"},
                {"file", op.file},
                {"content", op.code + sep + "\ndef test_x():\n    return {}\n"}}
               .dump() +
           "\n";
  }
  for (const MiniTOp& op : kMiniT) {
    ts.push_back({{"name", op.name},
                  {"file", op.file},
                  {"func_inputs", op.func_inputs},
                  {"description", op.description},
                  {"difficulty", 2}});
    tsimp.push_back({{"instruction", mini_t_simple(op)}, {"input", ""}, {"output", ""}});
    tcomp.push_back({{"instruction", mini_t_complex(op)}, {"input", ""}, {"output", ""}});
    ops += json{{"channel", "T"},
                {"file", op.file},
                {"content", op.code + sep + "\ndef test_x():\n    return {}\n"}}
               .dump() +
           "\n";
  }
  auto put = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
  };
  put(f::kGStatistics, gs.dump());
  put(f::kGSimple, gsimp.dump());
  put(f::kGComplex, gcomp.dump());
  put(f::kTStatistics, ts.dump());
  put(f::kTSimple, tsimp.dump());
  put(f::kTComplex, tcomp.dump());
  put(f::kOperatorFiles, ops);
}

}  // namespace kjudge::testing
