// Per-operator work counts (src/triton/timing/work.{h,cpp}, work_table.cpp): every family
// of formulas on fixed shapes, worked out by hand in the comments; the fallback to the lower
// bound with its reason; and the table against the real TritonBench references (every rule's
// operator exists, its entry is called by the test, the names it uses are the entry's
// parameters).
#include "triton/timing/work.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "triton/data/tritonbench.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;

TritonCallValue tensor(const std::string& name, std::vector<std::int64_t> shape,
                       const std::string& dtype = "float16") {
  TritonCallValue v;
  v.name = name;
  v.kind = TritonCallValue::Kind::tensor;
  v.shape = std::move(shape);
  v.dtype = dtype;
  v.cuda = true;
  return v;
}

TritonCallValue scalar(const std::string& name, double x) {
  TritonCallValue v;
  v.name = name;
  v.kind = TritonCallValue::Kind::scalar;
  v.number = x;
  return v;
}

TritonCallValue none(const std::string& name) {
  TritonCallValue v;
  v.name = name;
  return v;
}

TritonCallWork run_formula(const TritonWorkFamily& f, const std::vector<TritonCallValue>& values) {
  return f.formula(TritonCallView(values));
}

TEST(TritonWork, StreamCountsReadsAndWritesWithOptionalAndNestedNames) {
  // x 1024 fp32 (4096 B) + y 1024 fp16 (2048 B) read, out 1024 fp32 written (4096 B).
  auto w = run_formula(
      work_stream("x y", "result"),
      {tensor("x", {32, 32}, "float32"), tensor("y", {1024}), tensor("result", {1024}, "float32")});
  EXPECT_DOUBLE_EQ(w.bytes, 4096 + 2048 + 4096);
  EXPECT_FALSE(w.flops);
  // bias? absent, residual? None, rowscale? an int: none counted; result* is every tensor of a
  // tuple (the None in it counts nothing).
  w = run_formula(
      work_stream("x bias? residual? rowscale?", "result*"),
      {tensor("x", {4, 8}), none("residual"), scalar("rowscale", 3), tensor("result[0]", {4, 8}),
       tensor("result[1]", {4}, "float32"), none("result[2]")});
  EXPECT_DOUBLE_EQ(w.bytes, 64 + 64 + 16);
  // An in-place update mentions its tensor on both sides: read and written.
  w = run_formula(work_stream("x", "x"), {tensor("x", {100}, "float32")});
  EXPECT_DOUBLE_EQ(w.bytes, 800);
  // A required name that is missing, or not a tensor, does not fit.
  EXPECT_THROW(run_formula(work_stream("x y", "result"), {tensor("x", {4}), tensor("result", {4})}),
               TritonWorkError);
  EXPECT_THROW(run_formula(work_stream("x", "result"), {scalar("x", 1), tensor("result", {4})}),
               TritonWorkError);
  // result* must not take "resultant" for "result".
  w = run_formula(work_stream("x", "result*"), {tensor("x", {2}), tensor("resultant", {1000})});
  EXPECT_DOUBLE_EQ(w.bytes, 4);
}

TEST(TritonWork, DtypeSizes) {
  EXPECT_EQ(dtype_size("float16"), 2);
  EXPECT_EQ(dtype_size("bfloat16"), 2);
  EXPECT_EQ(dtype_size("float8_e5m2"), 1);
  EXPECT_EQ(dtype_size("int64"), 8);
  EXPECT_EQ(dtype_size("bool"), 1);
  EXPECT_FALSE(dtype_size("quint4x2"));
  EXPECT_THROW(run_formula(work_stream("x", ""), {tensor("x", {2}, "quint4x2")}), TritonWorkError);
}

TEST(TritonWork, GemmIsTwoMnkOverBatchesInTheInputsDtype) {
  // a [64, 32] fp16, b [32, 16], c [64, 16]: 2*64*16*32 = 65536 FLOPs; bytes 4096 + 1024 + 2048.
  auto f = work_gemm("a", "result", "b");
  auto w =
      run_formula(f, {tensor("a", {64, 32}), tensor("b", {32, 16}), tensor("result", {64, 16})});
  EXPECT_DOUBLE_EQ(w.bytes, 4096 + 1024 + 2048);
  ASSERT_TRUE(w.flops);
  EXPECT_DOUBLE_EQ(*w.flops, 65536);
  EXPECT_EQ(w.flops_dtype, "float16");
  // b's layout does not matter ([N, K] for a linear layer): M, K from a, N from the output.
  w = run_formula(f, {tensor("a", {64, 32}), tensor("b", {16, 32}), tensor("result", {64, 16})});
  EXPECT_DOUBLE_EQ(*w.flops, 65536);
  // Batched: [3, 8, 4] x [3, 4, 5] -> [3, 8, 5]: 2*3*8*5*4 = 960, in bfloat16.
  w = run_formula(f, {tensor("a", {3, 8, 4}, "bfloat16"), tensor("b", {3, 4, 5}, "bfloat16"),
                      tensor("result", {3, 8, 5}, "bfloat16")});
  EXPECT_DOUBLE_EQ(*w.flops, 960);
  EXPECT_EQ(w.flops_dtype, "bfloat16");
  // M differs, batch differs, a vector: no fit.
  EXPECT_THROW(
      run_formula(f, {tensor("a", {64, 32}), tensor("b", {32, 16}), tensor("result", {63, 16})}),
      TritonWorkError);
  EXPECT_THROW(
      run_formula(f, {tensor("a", {2, 8, 4}), tensor("b", {3, 4, 5}), tensor("result", {3, 8, 5})}),
      TritonWorkError);
  EXPECT_THROW(run_formula(f, {tensor("a", {64}), tensor("b", {64}), tensor("result", {1, 1})}),
               TritonWorkError);
  // Packed int4 weights and their scales are read, the FLOPs are the activations': x [16, 256]
  // fp16, out [16, 128]: 2*16*128*256 = 1048576.
  w = run_formula(
      work_gemm("x", "result", "qweight scales qzeros"),
      {tensor("x", {16, 256}), tensor("qweight", {32, 128}, "int32"), tensor("scales", {2, 128}),
       tensor("qzeros", {2, 16}, "int32"), tensor("result", {16, 128})});
  EXPECT_DOUBLE_EQ(*w.flops, 1048576);
  EXPECT_DOUBLE_EQ(w.bytes, 8192 + 16384 + 512 + 128 + 4096);
}

TEST(TritonWork, GemvAndConv2d) {
  // mv: inp [128, 64] fp32, vec [64]: 2*128*64 = 16384 FLOPs; 32768 + 256 + 512 bytes.
  auto w = run_formula(work_gemv("inp", "vec", "result"),
                       {tensor("inp", {128, 64}, "float32"), tensor("vec", {64}, "float32"),
                        tensor("result", {128}, "float32")});
  EXPECT_DOUBLE_EQ(*w.flops, 16384);
  EXPECT_DOUBLE_EQ(w.bytes, 32768 + 256 + 512);
  EXPECT_THROW(
      run_formula(work_gemv("inp", "vec", "result"),
                  {tensor("inp", {128, 64}), tensor("vec", {63}), tensor("result", {128})}),
      TritonWorkError);
  // conv: input [1, 4, 10, 10], weight [8, 2, 3, 3] (groups 2), out [1, 8, 8, 8]:
  // 2 * 512 * 2*3*3 = 18432 FLOPs.
  w = run_formula(work_conv2d("input_tensor", "weight_tensor", "result"),
                  {tensor("input_tensor", {1, 4, 10, 10}, "float32"),
                   tensor("weight_tensor", {8, 2, 3, 3}, "float32"),
                   tensor("result", {1, 8, 8, 8}, "float32")});
  EXPECT_DOUBLE_EQ(*w.flops, 18432);
  EXPECT_DOUBLE_EQ(w.bytes, 4 * (400 + 144 + 512));
}

TEST(TritonWork, AttentionCountsQueryKeyPairsHalvedWhenCausal) {
  // q, k, v [2, 4, 128, 64] fp16, o the same: pairs 128*128; 2*2*4*16384*(64+64) = 33554432.
  std::vector<TritonCallValue> vals = {tensor("q", {2, 4, 128, 64}), tensor("k", {2, 4, 128, 64}),
                                       tensor("v", {2, 4, 128, 64}),
                                       tensor("result", {2, 4, 128, 64}), scalar("causal", 0)};
  auto f = work_attention("q", "k", "v", "result", "causal");
  auto w = run_formula(f, vals);
  EXPECT_DOUBLE_EQ(*w.flops, 33554432);
  EXPECT_DOUBLE_EQ(w.bytes, 4 * 2 * 4 * 128 * 64 * 2);
  // Causal: 128*129/2 = 8256 pairs: 2*2*4*8256*128 = 16908288.
  vals.back().number = 1;
  EXPECT_DOUBLE_EQ(*run_formula(f, vals).flops, 16908288);
  EXPECT_DOUBLE_EQ(*run_formula(work_attention("q", "k", "v", "result", "yes"), vals).flops,
                   16908288);
  EXPECT_DOUBLE_EQ(*run_formula(work_attention("q", "k", "v", "result", "no"), vals).flops,
                   33554432);
  // The flag not given, a 3-d q, or keys of another head size: no fit.
  vals.pop_back();
  EXPECT_THROW(run_formula(f, vals), TritonWorkError);
  EXPECT_THROW(run_formula(work_attention("q", "k", "v", "result", "no"),
                           {tensor("q", {8, 128, 64}), tensor("k", {8, 128, 64}),
                            tensor("v", {8, 128, 64}), tensor("result", {8, 128, 64})}),
               TritonWorkError);
  EXPECT_THROW(run_formula(work_attention("q", "k", "v", "result", "no"),
                           {tensor("q", {1, 1, 4, 64}), tensor("k", {1, 1, 4, 32}),
                            tensor("v", {1, 1, 4, 64}), tensor("result", {1, 1, 4, 64})}),
               TritonWorkError);
}

TEST(TritonWork, CopiesCountTheRowsMovedNotTheWholeCache) {
  // matrix_transpose builds its input: 2 x the result.
  EXPECT_DOUBLE_EQ(run_formula(work_copy_of("result"), {tensor("result", {64, 16})}).bytes, 4096);
  // embedding: ids [8] int64 read, out [8, 32] fp16 gathered from the table and written.
  EXPECT_DOUBLE_EQ(run_formula(work_gather("input_ids", "out"),
                               {tensor("input_ids", {8}, "int64"), tensor("weight", {50000, 32}),
                                tensor("out", {8, 32})})
                       .bytes,
                   64 + 2 * 512);
  // KV copy: K [4, 2, 8] fp16 into a cache [1000, 2, 8]: K read (128 B), 64 elements written
  // (128 B), DestLoc [4] int64 (32 B); the 32000-byte cache is not traffic.
  const std::vector<TritonCallValue> kv = {tensor("K", {4, 2, 8}), tensor("DestLoc", {4}, "int64"),
                                           tensor("Out", {1000, 2, 8}),
                                           tensor("Out_scale", {1000, 2, 1})};
  EXPECT_DOUBLE_EQ(run_formula(work_scatter("K>Out", "DestLoc"), kv).bytes, 128 + 128 + 32);
  // Quantized into int8 with one fp16 scale per row of 8: 64 B written plus 8 scales (16 B).
  std::vector<TritonCallValue> q = kv;
  q[2].dtype = "int8";
  EXPECT_DOUBLE_EQ(run_formula(work_scatter("K>Out", "DestLoc", "Out_scale"), q).bytes,
                   128 + 64 + 16 + 32);
}

// Sites: how the operator's work is summed, and when it falls back to the lower bound.
TritonCallSite site(const std::string& entry, std::vector<TritonCallValue> values,
                    std::int64_t bytes) {
  TritonCallSite s;
  s.entry = entry;
  s.samples_ms = {1.0};
  s.values = std::move(values);
  s.bytes = bytes;
  return s;
}

TEST(TritonWork, OperatorWorkIsStatedOnlyWhenEveryCallFits) {
  const std::vector<TritonWorkRule> rules = {{"mm", "matmul", work_gemm("a", "result", "b")},
                                             {"mm", "quantize", work_stream("w", "result")},
                                             {"vec", "add", work_stream("x y", "result")}};
  const std::vector<TritonCallValue> mm = {tensor("a", {64, 32}), tensor("b", {32, 16}),
                                           tensor("result", {64, 16})};
  TritonWork w =
      triton_operator_work("mm", {site("matmul", mm, 7000), site("matmul", mm, 7000)}, rules);
  EXPECT_EQ(w.basis, "stated");
  EXPECT_EQ(w.bytes, 2 * 7168);
  ASSERT_TRUE(w.flops);
  EXPECT_DOUBLE_EQ(*w.flops, 2 * 65536);
  EXPECT_EQ(w.flops_dtype, "float16");
  ASSERT_EQ(w.formulas.size(), 1u);
  EXPECT_NE(w.formulas[0].find("gemm"), std::string::npos);
  EXPECT_TRUE(w.note.empty());

  // A memory-bound entry beside the product: FLOPs of the product only, said so.
  w = triton_operator_work(
      "mm",
      {site("quantize", {tensor("w", {4}), tensor("result", {4})}, 16), site("matmul", mm, 1)},
      rules);
  EXPECT_EQ(w.basis, "stated");
  EXPECT_EQ(w.bytes, 16 + 7168);
  EXPECT_DOUBLE_EQ(*w.flops, 65536);
  EXPECT_EQ(w.formulas.size(), 2u);
  EXPECT_NE(w.note.find("some calls have no FLOP count"), std::string::npos);

  // Falls back to the runner's lower bound, with the reason: an operator without rules, an entry
  // without a formula, a call that does not fit, a runner that did not describe the values.
  w = triton_operator_work("other", {site("f", mm, 100)}, rules);
  EXPECT_EQ(w.basis, "lower_bound");
  EXPECT_EQ(w.bytes, 100);
  EXPECT_FALSE(w.flops);
  EXPECT_EQ(w.note, "no stated work for this operator");
  w = triton_operator_work("mm", {site("matmul", mm, 100), site("unknown", mm, 50)}, rules);
  EXPECT_EQ(w.basis, "lower_bound");
  EXPECT_EQ(w.bytes, 150);
  EXPECT_NE(w.note.find("call 1 (unknown) has no stated formula"), std::string::npos) << w.note;
  w = triton_operator_work("vec", {site("add", {tensor("x", {4}), tensor("result", {4})}, 16)},
                           rules);
  EXPECT_EQ(w.basis, "lower_bound");
  EXPECT_NE(w.note.find("the call has no value 'y'"), std::string::npos) << w.note;
  w = triton_operator_work("vec", {site("add", {}, 16)}, rules);
  EXPECT_EQ(w.basis, "lower_bound");
  EXPECT_NE(w.note.find("did not describe"), std::string::npos) << w.note;
  // No byte count either: nothing.
  w = triton_operator_work("other", {site("f", {}, -1)}, rules);
  EXPECT_EQ(w.basis, "none");
  EXPECT_EQ(w.bytes, -1);
}

// The operators of the device's known-bad check (tests/gpu/run-triton-checks.sh bad), with the
// shapes their tests use: the numbers docs/triton.md gives for checking the efficiency by hand.
TEST(TritonWork, TheHandCheckedOperators) {
  // add_example: float32 x + y of 16, 8, 32 and 0 elements: 12 bytes an element, 56 elements.
  std::vector<TritonCallSite> sites;
  for (std::int64_t n : {16, 8, 32, 0})
    sites.push_back(site("add_wrapper",
                         {tensor("x", {n}, "float32"), tensor("y", {n}, "float32"),
                          tensor("result", {n}, "float32")},
                         12 * n));
  TritonWork w = triton_operator_work("add_example", sites);
  EXPECT_EQ(w.basis, "stated");
  EXPECT_EQ(w.bytes, 672);
  EXPECT_FALSE(w.flops);
  // rmsnorm_fused_llama: float16 rows [2, 64], [4, 128], [1, 8192], [1, 1]: x, weight, y.
  sites.clear();
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{2, 64}, {4, 128}, {1, 8192}, {1, 1}})
    sites.push_back(site(
        "rmsnorm_forward",
        {tensor("x", {m, n}), tensor("weight", {n}), scalar("eps", 1e-5), tensor("result", {m, n})},
        0));
  w = triton_operator_work("rmsnorm_fused_llama", sites);
  EXPECT_EQ(w.basis, "stated");
  EXPECT_EQ(w.bytes, 640 + 2304 + 49152 + 6);
  // matrix_transpose: wrapper(16, 16) and wrapper(32, 64) return float16 [16, 16] and [64, 32]:
  // read and written once each.
  sites = {site("wrapper", {scalar("size_m", 16), scalar("d_head", 16), tensor("result", {16, 16})},
                512),
           site("wrapper", {scalar("size_m", 32), scalar("d_head", 64), tensor("result", {64, 32})},
                4096)};
  w = triton_operator_work("matrix_transpose", sites);
  EXPECT_EQ(w.basis, "stated");
  EXPECT_EQ(w.bytes, 2 * (512 + 4096));
  // triton_matmul's own test: float16 a [256, 128], b [128, 256] -> c [256, 256]:
  // 2*256*256*128 = 16777216 FLOPs; 65536 + 65536 + 131072 bytes.
  sites = {site("matmul",
                {tensor("a", {256, 128}), tensor("b", {128, 256}), tensor("result", {256, 256})},
                0)};
  w = triton_operator_work("triton_matmul", sites);
  EXPECT_EQ(w.bytes, 65536 + 65536 + 131072);
  EXPECT_DOUBLE_EQ(*w.flops, 16777216);
  EXPECT_EQ(w.flops_dtype, "float16");
}

// The parameter names of `def NAME(...)` in Python source, or nullopt when there is no such def.
std::optional<std::set<std::string>> def_parameters(const std::string& code,
                                                    const std::string& name) {
  const std::string head = "def " + name + "(";
  std::size_t at = code.find(head);
  while (at != std::string::npos && at > 0 && code[at - 1] != '\n' && code[at - 1] != ' ')
    at = code.find(head, at + 1);
  if (at == std::string::npos) return std::nullopt;
  std::size_t i = at + head.size();
  int depth = 1;
  std::string params;
  for (; i < code.size() && depth > 0; ++i) {
    if (code[i] == '#') {  // a comment after a parameter
      i = code.find('\n', i);
      if (i == std::string::npos) break;
    }
    depth += code[i] == '(' || code[i] == '[';
    depth -= code[i] == ')' || code[i] == ']';
    if (depth > 0) params += depth == 1 ? code[i] : ' ';
  }
  std::set<std::string> out;
  std::size_t start = 0;
  while (start <= params.size()) {
    std::size_t comma = params.find(',', start);
    std::string p =
        params.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    p = p.substr(0, p.find_first_of(":="));
    std::string id;
    for (char c : p)
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') id += c;
    if (!id.empty()) out.insert(id);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

TEST(TritonWork, TheTableNamesRealParametersOfTheRealOperators) {
  const fs::path data = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/tritonbench");
  if (!fs::is_directory(data)) GTEST_SKIP() << "shared dataset missing: " << data;
  const TritonBench bench = load_tritonbench(data);
  std::set<std::string> ops;
  for (const TritonWorkRule& r : triton_work_rules()) {
    SCOPED_TRACE(r.op + " / " + r.entry);
    ops.insert(r.op);
    const TritonOperator* op = bench.find(r.op, TritonChannel::G);
    ASSERT_NE(op, nullptr);
    ASSERT_FALSE(r.entry.empty());
    const std::string base = r.entry.substr(0, r.entry.find('.'));
    EXPECT_NE(op->test_code.find(base), std::string::npos) << "the test never names it";
    // Every name the formula uses must be a parameter of the reference's def: the formula is
    // applied to a call that has exactly those parameters (and results), as 4-d tensors.
    if (r.entry.find('.') != std::string::npos) continue;            // X.apply, X.__call__: args[i]
    if (r.family.text.find("args[") != std::string::npos) continue;  // def f(*args, **kwargs)
    const auto params = def_parameters(op->reference_code, r.entry);
    ASSERT_TRUE(params) << "no def " << r.entry;
    std::vector<TritonCallValue> values;
    for (const std::string& p : *params) values.push_back(tensor(p, {4, 4, 4, 4}));
    for (const char* res : {"result", "result[0]", "result[1]", "result[2]"})
      values.push_back(tensor(res, {4, 4, 4, 4}));
    try {
      r.family.formula(TritonCallView(values));
    } catch (const TritonWorkError& e) {
      // Only a missing name is a table error (a causal flag given as a tensor here is not).
      EXPECT_EQ(std::string(e.what()).find("has no value"), std::string::npos) << e.what();
    }
  }
  EXPECT_GE(ops.size(), 80u);  // the families the issue asks for, and more
}

}  // namespace
}  // namespace kjudge::triton
