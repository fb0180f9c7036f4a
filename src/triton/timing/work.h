#pragma once
// How much work a TritonBench operator's calls do: the bytes they must move through device
// memory and, for operators that compute (matmul, attention, convolution), their floating-point
// operations. Stated per operator where known (the table in triton/timing/work_table.cpp), as
// formulas over the shapes of the tensors each call was given and returned (the runner describes
// them: TritonCallSite::values); otherwise the runner's lower bound (its distinct device tensors
// once each). The GPU efficiency of a timed candidate divides these by its time and by the GPU's
// measured peaks (docs/triton.md, "GPU efficiency").
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "triton/runner/run.h"

namespace kjudge::triton {

// A call's values do not fit a formula (a missing argument, a shape of another rank): the
// operator falls back to the lower bound, with this as the reason.
struct TritonWorkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bytes of one element of a torch dtype ("float16" -> 2), or nullopt for one the table does not
// know.
std::optional<std::int64_t> dtype_size(std::string_view dtype);

// One call's values by name (the runner's names: parameters, "args[i]", "result[1]").
class TritonCallView {
 public:
  explicit TritonCallView(const std::vector<TritonCallValue>& values) : values_(values) {}
  const TritonCallValue* find(std::string_view name) const;
  // The tensor called `name`; throws TritonWorkError when it is missing or not a tensor.
  const TritonCallValue& tensor(std::string_view name) const;
  // `name` itself when it is a tensor, and every tensor inside it ("name[0]", "name.key").
  std::vector<const TritonCallValue*> tensors_in(std::string_view name) const;
  // A scalar's value (bools are 0/1); nullopt when absent or not a number.
  std::optional<double> number(std::string_view name) const;

 private:
  const std::vector<TritonCallValue>& values_;
};

double tensor_numel(const TritonCallValue& t);
double tensor_nbytes(const TritonCallValue& t);  // throws TritonWorkError for an unknown dtype

// What one call does.
struct TritonCallWork {
  double bytes = 0;
  std::optional<double> flops;  // stated only for operators that compute
  std::string flops_dtype;      // the inputs' dtype: which matmul peak applies
};

using TritonWorkFormula = std::function<TritonCallWork(const TritonCallView&)>;

// A formula with its words: the family and what it counts ("gemm: 2*M*N*K flops; ...").
struct TritonWorkFamily {
  std::string text;
  TritonWorkFormula formula;
};

// The families of formulas (triton/timing/work.cpp). Names are the call's value names separated by
// spaces; "x?" is optional (absent or None counts nothing); "x*" is x and everything in it
// (a tuple result: "result*").
//   stream: bytes = the reads + the writes, each tensor once per mention (an in-place update
//     mentions its tensor in both); no FLOPs (memory-bound).
//   copy_of: reads as many bytes as `out` holds and writes `out` (an operator that builds its
//     own input inside the call, e.g. matrix_transpose(size_m, d_head)).
//   gather: `index` read, rows of as many bytes as `out` read, `out` written.
//   scatter: each "src>dst" pair: src read, src's elements written in dst's dtype; `index` read;
//     the rest of dst (a KV cache) is not traffic. With `scales`, one element of that tensor's
//     dtype is also written per row of src's last axis (quantized copies).
//   gemm: a [..., M, K], out [..., M, N] (batch dims equal): 2*batch*M*N*K FLOPs in a's dtype;
//     bytes = a + the other reads + out.
//   gemv: mat [N, M], vec [M]: 2*N*M FLOPs; bytes = mat + vec + out.
//   attention: q [B, H, Sq, D], k [B, Hk, Sk, D], v [B, Hk, Sk, Dv]: 2*B*H*P*(D + Dv) FLOPs with
//     P = Sq*Sk pairs, or Sq*(Sq+1)/2 when causal (Sq == Sk); bytes = q + k + v + o.
//   conv2d: input [N, Cin, H, W], weight [Cout, Cin/groups, KH, KW], out [N, Cout, Ho, Wo]:
//     2*numel(out)*(Cin/groups)*KH*KW FLOPs; bytes = input + weight + out.
TritonWorkFamily work_stream(std::string reads, std::string writes);
TritonWorkFamily work_copy_of(std::string out);
TritonWorkFamily work_gather(std::string index, std::string out);
TritonWorkFamily work_scatter(std::string pairs, std::string index, std::string scales = "");
TritonWorkFamily work_gemm(std::string a, std::string out, std::string other_reads);
TritonWorkFamily work_gemv(std::string mat, std::string vec, std::string out);
// causal: "yes", "no", or the name of the call's bool argument that says.
TritonWorkFamily work_attention(std::string q, std::string k, std::string v, std::string o,
                                std::string causal);
TritonWorkFamily work_conv2d(std::string input, std::string weight, std::string out);

struct TritonWorkRule {
  std::string op;     // the operator's name (the file's stem for G)
  std::string entry;  // the entry the test called ("matmul", "X.apply"); "" for any
  TritonWorkFamily family;
};

// The stated formulas, keyed by operator (triton/timing/work_table.cpp).
const std::vector<TritonWorkRule>& triton_work_rules();

// The work of one operator's calls, summed over its call sites.
struct TritonWork {
  // "stated": every site had a formula and fit it; "lower_bound": the runner's count (see
  // `note` for why not stated); "none": not even that (a runner that did not count bytes).
  std::string basis = "none";
  std::int64_t bytes = -1;
  std::optional<double> flops;
  std::string flops_dtype;            // "" when no flops, or the sites' dtypes differ
  std::vector<std::string> formulas;  // the distinct formulas used, in the order of first use
  std::string note;
};

TritonWork triton_operator_work(const std::string& op, const std::vector<TritonCallSite>& sites,
                                const std::vector<TritonWorkRule>& rules = triton_work_rules());

}  // namespace kjudge::triton
