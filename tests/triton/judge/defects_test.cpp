// The table of TritonBench operators whose own tests are broken (src/triton/judge/defects.h):
// its rows against the real data, and what the judge does with each kind of row (exclude, skip
// entries, zero fill, entry arguments kept) through the fake runner
// (tests/fixtures/fake_triton_runner.py), in the library and in `kjudge triton eval`, with
// --keep-defective restoring the old behaviour.
#include "triton/judge/defects.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

#include "core/input_error.h"
#include "schema_validator.h"
#include "test_util.h"
#include "triton/data/tritonbench.h"
#include "triton/judge/eval.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::run_capture;
using kjudge::testing::TempDir;
using nlohmann::json;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/tritonbench");
const fs::path kFake = fs::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/fake_triton_runner.py";
const fs::path kRunner = fs::path(KJUDGE_SOURCE_DIR) / "python/kjudge_triton_runner.py";

// ---- the table itself ----

TEST(TritonDefects, TheTableIsWellFormed) {
  const std::vector<TritonDefect>& table = triton_defects();
  EXPECT_EQ(table.size(), 22u);
  std::set<std::string> seen;
  for (const TritonDefect& d : table) {
    EXPECT_EQ(d.channel, TritonChannel::G) << d.op;
    EXPECT_FALSE(d.op.empty());
    EXPECT_TRUE(seen.insert(d.op).second) << d.op << " has two rows";
    EXPECT_GT(d.reason.size(), 40u) << d.op << ": a reason says what is wrong";
    EXPECT_EQ(d.reason.find('\n'), std::string::npos) << d.op;
    if (d.action == TritonDefectAction::skip_entries)
      EXPECT_FALSE(d.entries.empty()) << d.op << ": skip_entries names what it skips";
    else
      EXPECT_TRUE(d.entries.empty()) << d.op << ": only skip_entries names entries";
    json j = triton_defect_json(d);
    EXPECT_EQ(j["operator"], "G/" + d.op);
    EXPECT_EQ(j["action"], triton_defect_action_name(d.action));
    if (!d.sites.empty()) {
      EXPECT_EQ(d.action, TritonDefectAction::skip_entries) << d.op << ": only skip_entries";
      EXPECT_TRUE(std::is_sorted(d.sites.begin(), d.sites.end())) << d.op;
      EXPECT_GE(d.sites.front(), 0) << d.op;
      EXPECT_EQ(j["sites"], json(d.sites));
    } else {
      EXPECT_FALSE(j.contains("sites")) << d.op;
    }
    if (d.action == TritonDefectAction::entry_args) {
      EXPECT_FALSE(d.entry.empty()) << d.op << ": entry_args names its entry";
      EXPECT_FALSE(d.args.empty()) << d.op << ": entry_args names the arguments it keeps";
      for (int a : d.args) EXPECT_GE(a, 0) << d.op;
      EXPECT_EQ(j["entry"], d.entry);
      EXPECT_EQ(j["args"], json(d.args));
    } else {
      EXPECT_TRUE(d.entry.empty() && d.args.empty()) << d.op << ": only entry_args keeps args";
      EXPECT_FALSE(j.contains("entry")) << d.op;
    }
  }
  auto action = [&](const std::string& op) {
    for (const TritonDefect& d : table)
      if (d.op == op) return std::string(triton_defect_action_name(d.action));
    return std::string("none");
  };
  EXPECT_EQ(action("attention_fwd_triton1"), "skip_entries");
  EXPECT_EQ(action("index_select_bwd"), "skip_entries");
  EXPECT_EQ(action("quantize_copy_kv"), "skip_entries");
  EXPECT_EQ(action("parallel_retention_attention"), "skip_entries");
  EXPECT_EQ(action("decay_cumsum"), "exclude");
  EXPECT_EQ(action("kv_cache_filling"), "exclude");
  EXPECT_EQ(action("quantize_kv_copy"), "exclude");
  EXPECT_EQ(action("rotary_emb_nopad"), "exclude");
  EXPECT_EQ(action("token_attn_mistral"), "exclude");
  EXPECT_EQ(action("apply_penalty"), "exclude");
  EXPECT_EQ(action("fused_rotary_embedding"), "exclude");
  for (const char* op : {"matrix_reduction", "nested_loops_processing", "block_sparse_attn",
                         "chunk_gated_attention", "mixed_sparse_attention"})
    EXPECT_EQ(action(op), "exclude") << op;
  EXPECT_EQ(action("matmul_dequant_int4"), "zero_fill");
  EXPECT_EQ(action("mul_exponent_compensator"), "zero_fill");
  EXPECT_EQ(action("matmul_dequantize_int4"), "zero_fill");
  EXPECT_EQ(action("context_attn_bloom"), "entry_args");
  EXPECT_EQ(action("matmul_kernel"), "entry_args");
  EXPECT_EQ(action("add_example"), "none");
  for (const TritonDefect& d : table) {
    if (d.op == "context_attn_bloom") {
      EXPECT_EQ(d.entry, "context_attention_fwd");
      EXPECT_EQ(d.args, std::vector<int>{3});
      EXPECT_EQ(triton_defect_brief(d), "entry_args context_attention_fwd args[3]");
    }
    if (d.op == "matmul_kernel") {
      EXPECT_EQ(d.entry, "matmul");
      EXPECT_EQ(d.args, std::vector<int>{0});
      EXPECT_EQ(triton_kept_arg_names(d), std::vector<std::string>{"args[0]"});
    }
    if (d.op == "parallel_retention_attention") {
      EXPECT_EQ(d.sites, (std::vector<int>{2, 3}));
      EXPECT_EQ(triton_defect_brief(d), "skip_entries test_case_3, test_case_4 (timed sites 2, 3)");
    }
    if (d.op == "index_select_bwd") {
      EXPECT_EQ(triton_defect_brief(d), "skip_entries test_case_3, test_case_4");
    }
  }
}

TEST(TritonDefects, AnEntryCoversItsLeavesOnly) {
  const std::vector<std::string> skip = {"test_case_3", "result.a"};
  EXPECT_TRUE(triton_entry_skipped(skip, "test_case_3"));
  EXPECT_TRUE(triton_entry_skipped(skip, "test_case_3.Out"));
  EXPECT_TRUE(triton_entry_skipped(skip, "test_case_3[1]"));
  EXPECT_TRUE(triton_entry_skipped(skip, "test_case_3#2"));
  EXPECT_TRUE(triton_entry_skipped(skip, "result.a[0]"));
  EXPECT_FALSE(triton_entry_skipped(skip, "test_case_30"));
  EXPECT_FALSE(triton_entry_skipped(skip, "test_case_"));
  EXPECT_FALSE(triton_entry_skipped(skip, "result.ab"));
  EXPECT_FALSE(triton_entry_skipped({}, "test_case_3"));

  OutputSet o;
  for (const char* name : {"test_case_1", "test_case_3[0]", "test_case_3[1]", "test_case_30"}) {
    OutputEntry e;
    e.name = name;
    o.entries.push_back(e);
  }
  EXPECT_EQ(remove_skipped_entries(skip, o), 2u);
  ASSERT_EQ(o.entries.size(), 2u);
  EXPECT_EQ(o.entries[1].name, "test_case_30");
}

// The text between the parentheses of every `name(` in `code` that is not part of a longer
// name (`matmul(` but not `_matmul(` or `matmul_kernel(`), balanced.
std::vector<std::string> call_arguments(const std::string& code, const std::string& name) {
  std::vector<std::string> out;
  for (std::size_t at = code.find(name + "("); at != std::string::npos;
       at = code.find(name + "(", at + 1)) {
    const char before = at == 0 ? ' ' : code[at - 1];
    if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '.')
      continue;
    std::size_t i = at + name.size() + 1, depth = 1;
    const std::size_t start = i;
    for (; i < code.size() && depth > 0; ++i) {
      if (code[i] == '(' || code[i] == '[' || code[i] == '{') ++depth;
      if (code[i] == ')' || code[i] == ']' || code[i] == '}') --depth;
    }
    out.push_back(code.substr(start, i - 1 - start));
  }
  return out;
}

// The top-level comma-separated parts of an argument list, trimmed, without `=default` or
// `: annotation`.
std::vector<std::string> split_arguments(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  auto push = [&] {
    std::string t = cur.substr(0, std::min(cur.find('='), cur.find(':')));
    const std::size_t b = t.find_first_not_of(" \t\n"), e = t.find_last_not_of(" \t\n");
    if (b != std::string::npos) out.push_back(t.substr(b, e - b + 1));
    cur.clear();
  };
  for (char c : list) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0)
      push();
    else
      cur += c;
  }
  push();
  return out;
}

TEST(TritonDefects, ArgumentListsAreSplitAtTheTopLevel) {
  EXPECT_EQ(call_arguments("x = f(a, g(b, c), d=e)\nh.f(z)\n_f(y)\nf()", "f"),
            (std::vector<std::string>{"a, g(b, c), d=e", ""}));
  EXPECT_EQ(
      split_arguments("q, k, v, o, b_seq_len + prompt_cache_len, x[1, 2]"),
      (std::vector<std::string>{"q", "k", "v", "o", "b_seq_len + prompt_cache_len", "x[1, 2]"}));
  EXPECT_EQ(split_arguments("c, a, BLOCK: tl.constexpr, n=4"),
            (std::vector<std::string>{"c", "a", "BLOCK", "n"}));
}

// Every row against the real data: the operator exists in G, each skipped entry is a key of its
// test's result, and the lines a reason cites hold what it says they hold.
TEST(TritonDefects, EveryRowFitsTheRealData) {
  if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  const TritonBench bench = load_tritonbench(kData);
  // The operator files as shipped, line by line (the reasons' line numbers are theirs).
  std::map<std::string, std::vector<std::string>> files;
  std::ifstream in(kData / "TritonBench_operator_files.jsonl");
  for (std::string l; std::getline(in, l);) {
    if (l.empty()) continue;
    const json f = json::parse(l);
    if (f["channel"] != "G") continue;
    std::vector<std::string> lines;
    std::istringstream content(f["content"].get<std::string>());
    for (std::string line; std::getline(content, line);) lines.push_back(line);
    files[f["file"].get<std::string>()] = lines;
  }
  for (const TritonDefect& d : triton_defects()) {
    const TritonOperator* op = bench.find(d.op, d.channel);
    ASSERT_NE(op, nullptr) << d.op << " is not a G operator of the data folder";
    for (const std::string& e : d.entries)
      EXPECT_TRUE(op->test_code.find("\"" + e + "\"") != std::string::npos ||
                  op->test_code.find("'" + e + "'") != std::string::npos)
          << d.op << ": its test's result has no key " << e;
    const std::vector<std::string>& lines = files[op->file];
    ASSERT_FALSE(lines.empty()) << op->file;
    // Every "line N" / "lines N-M" / "lines N, M" the reason cites lies inside the file.
    const std::regex cite(R"(lines? ([0-9]+)(?:(?:-|, )([0-9]+))*)");
    for (auto it = std::sregex_iterator(d.reason.begin(), d.reason.end(), cite);
         it != std::sregex_iterator(); ++it) {
      const std::string text = it->str();
      const std::regex number("[0-9]+");
      for (auto n = std::sregex_iterator(text.begin(), text.end(), number);
           n != std::sregex_iterator(); ++n) {
        const std::size_t at = std::stoul(n->str());
        EXPECT_GE(at, 1u) << d.op;
        EXPECT_LE(at, lines.size()) << d.op << ": line " << at << " is past the file";
      }
    }
  }
  // The cited lines hold what the reasons say.
  const std::vector<std::tuple<std::string, std::size_t, std::string>> facts = {
      {"attention_fwd_triton1.py", 70, "BT = 32"},
      {"attention_fwd_triton1.py", 30, "make_block_ptr"},
      {"attention_fwd_triton1.py", 60, "tl.store(p_o"},
      {"index_select_bwd.py", 48, "tl.store(grad_source_offsets"},
      {"parallel_retention_attention.py", 361, "k = torch.randn(batch_size, n_heads, seq_len"},
      {"parallel_retention_attention.py", 362, "v = torch.randn(batch_size, n_heads, seq_len"},
      {"parallel_retention_attention.py", 281, "batch_size, n_heads, seq_len, d_head_qk = q.shape"},
      {"parallel_retention_attention.py", 288, "batch_size * n_heads)"},
      {"parallel_retention_attention.py", 294, "q.stride(1), q.stride(2), q.stride(3),"},
      {"parallel_retention_attention.py", 376,
       "q_3 = torch.randn(batch_size, n_heads, seq_len, 128"},
      {"parallel_retention_attention.py", 382, "q_4 = torch.randn(batch_size_2, n_heads"},
      {"parallel_retention_attention.py", 53, "p_k = tl.make_block_ptr(k + i_bh * s_qk_h"},
      {"parallel_retention_attention.py", 55, "p_v = tl.make_block_ptr(v + i_bh * s_vo_h"},
      {"quantize_copy_kv.py", 70, "dest_loc2 = torch.randint"},
      {"decay_cumsum.py", 143, "s_qk_h = H * T * DK"},
      {"decay_cumsum.py", 155, "s_qk_h = H * T * DK"},
      {"decay_cumsum.py", 167, "s_qk_h = H * T * DK"},
      {"kv_cache_filling.py", 433, "block_offsets = torch.zeros"},
      {"quantize_kv_copy.py", 95, std::string(146, '#')},
      {"quantize_kv_copy.py", 103, "def _fwd_kernel_destindex_copy_quantize_kv"},
      {"quantize_kv_copy.py", 148, "def destindex_copy_quantize_kv"},
      {"quantize_kv_copy.py", 207, "DestLoc = torch.randint"},
      {"rotary_emb_nopad.py", 174, "tl.load(context_lengths + block_token_index)"},
      {"rotary_emb_nopad.py", 177, "BLOCK_TABLES + block_token_index"},
      {"rotary_emb_nopad.py", 338, "block_tables = torch.randint"},
      {"token_attn_mistral.py", 134, "v = torch.rand((num_heads, seq_len, d_model)"},
      {"token_attn_mistral.py", 170, "v = torch.rand((num_heads, seq_len, d_model)"},
      {"token_attn_mistral.py", 86, "kv_group_num = prob.shape[0] // v.shape[1]"},
      {"token_attn_mistral.py", 36, "cur_kv_head = cur_head // kv_group_num"},
      {"token_attn_mistral.py", 22, "stride_vbs,"},  // the 14th parameter, passed at line 102
      {"token_attn_mistral.py", 102, "v.stride(0),"},
      {"token_attn_mistral.py", 62, "V + v_offs + v_loc[:, None] * stride_vbs"},
      {"token_attn_mistral.py", 160, "torch.randint(0, seq_len, (batch_size, seq_len // 2)"},
      {"token_attn_mistral.py", 46, "v_loc_off = ("},
      {"token_attn_mistral.py", 47, "(cur_batch_start_index + offs_n) * stride_req_to_tokens_s"},
      {"matmul_dequant_int4.py", 229, "int_weight = torch.empty(h1, h2 // 8).to(torch.int32)"},
      {"matmul_dequant_int4.py", 237, "int_weight[:, pack // 8] +="},
      {"matmul_dequantize_int4.py", 195, "int_weight = torch.empty(h1, h2 // 8).to(torch.int32)"},
      {"matmul_dequantize_int4.py", 203, "int_weight[:, pack // 8] +="},
      {"mul_exponent_compensator.py", 22, "dst = torch.empty(src.shape"},
      {"mul_exponent_compensator.py", 24, "mul_kernel[(src.shape[0] // BLOCK_SIZE,)]"},
      {"mul_exponent_compensator.py", 34, "src = torch.tensor([8323072]"},
      {"mul_exponent_compensator.py", 43, "launch_mul_kernel(src, BLOCK_SIZE=2)"},
      {"mul_exponent_compensator.py", 51, "launch_mul_kernel(src, BLOCK_SIZE=8)"},
      {"matrix_reduction.py", 32, "x = torch.randn"},
      {"matrix_reduction.py", 39, "assert_close(y, golden"},
      {"matrix_reduction.py", 65, "= \"passed\""},
      {"nested_loops_processing.py", 41, "n_cols // 4"},
      {"nested_loops_processing.py", 43, "print(output)"},
      {"block_sparse_attn.py", 119, "float(\"-inf\")"},
      {"block_sparse_attn.py", 122, "p = tl.exp(qk - m_ij"},
      {"block_sparse_attn.py", 212, "layout_csr_row_indices = torch.tensor([0, 2, 4]"},
      {"chunk_gated_attention.py", 163, "g = torch.randn"},
      {"chunk_gated_attention.py", 97, "tl.exp(b_gn[:, None] - b_g)"},
      {"chunk_gated_attention.py", 165, "k = torch.randn(B, H, K, T"},
      {"mixed_sparse_attention.py", 168, "block_offset = torch.randint"},
      {"mixed_sparse_attention.py", 72, "tl.math.exp2(qk - m_i_new"},
      {"context_attn_bloom.py", 182, "return"},
      {"context_attn_bloom.py", 200, "o = torch.empty((Z * N_CTX, H, D_HEAD)"},
      {"context_attn_bloom.py", 217, "result_gold = context_attention_fwd("},
      {"context_attn_bloom.py", 221, "o,"},
      {"context_attn_bloom.py", 229, "return result_gold"},
      {"context_attn_bloom.py", 126, "out_ptrs = Out + off_o"},
      {"context_attn_bloom.py", 127, "tl.store(out_ptrs, acc"},
      {"context_attn_bloom.py", 198, "k = torch.empty((Z * N_CTX + 7000, H, D_HEAD)"},
      {"context_attn_bloom.py", 199, "v = torch.empty((Z * N_CTX + 7000, H, D_HEAD)"},
      {"apply_penalty.py", 19, "cur_batch_end_index = tl.load(p_cumsum_seq_len + cur_batch + 1)"},
      {"apply_penalty.py", 22, "batch_ids = tl.load(p_token_ids + cur_batch_id_offset"},
      {"apply_penalty.py", 26, "cur_offset = row_start_ptr + batch_ids"},
      {"apply_penalty.py", 32, "tl.store(output_ptr, pre_logits"},
      {"apply_penalty.py", 66, "batch_size = 2"},
      {"apply_penalty.py", 83, "p_cumsum_seq_len = torch.tensor([0, seq_len]"},
      {"fused_rotary_embedding.py", 79, "tl.load(context_lengths + cur_token_idx)"},
      {"fused_rotary_embedding.py", 82, "tl.load(BLOCK_TABLES + cur_token_idx * bts_stride"},
      {"fused_rotary_embedding.py", 97, "tl.store(k_cache + k_range0"},
      {"fused_rotary_embedding.py", 98, "tl.store(k_cache + k_range1"},
      {"fused_rotary_embedding.py", 108, "tl.store(v_cache + v_range"},
      {"fused_rotary_embedding.py", 205, "total_tokens = 16"},
      {"fused_rotary_embedding.py", 212, "batch_size = 2"},
      {"fused_rotary_embedding.py", 224,
       "block_tables = torch.randint(0, num_blocks, (batch_size,"},
      {"fused_rotary_embedding.py", 225,
       "kv_lengths = torch.randint(1, total_tokens, (batch_size,)"},
      {"fused_rotary_embedding.py", 243, "'q_shape': q.shape"},
      {"fused_rotary_embedding.py", 267, "'q_shape': q.shape"},
      {"matmul_kernel.py", 37, "tl.store(c_ptrs, c)"},
      {"matmul_kernel.py", 39, "def matmul(c, a, b, M, N, K"},
      {"matmul_kernel.py", 51, "M, N, K = 4096, 4096, 4096"},
      {"matmul_kernel.py", 54, "c = torch.empty((M, N), device='cuda:0', dtype=torch.float16)"},
      {"matmul_kernel.py", 56, "b = torch.rand((K, N), device='cuda:0', dtype=torch.float16)"},
      {"matmul_kernel.py", 59, "test_case_1 = matmul(c, a, b"},
      {"matmul_kernel.py", 69, "test_case_4 = matmul(c, a, b"},
      {"matmul_kernel.py", 72, "\"test_case_1\": test_case_1"},
  };
  for (const auto& [file, line, text] : facts) {
    const std::vector<std::string>& lines = files[file];
    ASSERT_GE(lines.size(), line) << file;
    EXPECT_NE(lines[line - 1].find(text), std::string::npos)
        << file << ":" << line << " is '" << lines[line - 1] << "', not '" << text << "'";
  }
  // entry_args: the entry is a function of the reference code whose parameter at each kept
  // position is the output, and every call of it in the test code passes, there, the tensor the
  // reason names (so the position is the same whoever's code runs: the test code is fixed).
  const std::map<std::string, std::pair<std::string, std::string>> outputs = {
      {"context_attn_bloom", {"o", "o"}}, {"matmul_kernel", {"c", "c"}}};
  for (const TritonDefect& d : triton_defects()) {
    if (d.action != TritonDefectAction::entry_args) continue;
    ASSERT_EQ(outputs.count(d.op), 1u) << d.op << ": what does it keep?";
    const auto& [param, var] = outputs.at(d.op);
    const TritonOperator* op = bench.find(d.op, d.channel);
    ASSERT_NE(op, nullptr);
    ASSERT_EQ(d.args.size(), 1u) << d.op;
    const std::size_t at = static_cast<std::size_t>(d.args[0]);
    const std::vector<std::string> params = call_arguments(op->reference_code, "def " + d.entry);
    ASSERT_EQ(params.size(), 1u) << d.op << ": one definition of " << d.entry;
    ASSERT_GT(split_arguments(params[0]).size(), at) << params[0];
    EXPECT_EQ(split_arguments(params[0])[at], param) << d.op << ": " << params[0];
    const std::vector<std::string> calls = call_arguments(op->test_code, d.entry);
    EXPECT_GE(calls.size(), 1u) << d.op << ": the test calls " << d.entry;
    for (const std::string& c : calls) {
      ASSERT_GT(split_arguments(c).size(), at) << c;
      EXPECT_EQ(split_arguments(c)[at], var) << d.op << ": " << c;
    }
    EXPECT_NE(d.reason.find("args[" + std::to_string(at) + "]"), std::string::npos) << d.reason;
  }
  EXPECT_EQ(call_arguments(bench.find("matmul_kernel")->test_code, "matmul").size(), 4u);
  // parallel_retention_attention's sites 2 and 3: the test's third and fourth entry calls are
  // the ones with q_3 and q_4 (the sites are the entry calls in the test's order).
  const std::vector<std::string> pr =
      call_arguments(bench.find("parallel_retention_attention")->test_code, "parallel_retention");
  ASSERT_EQ(pr.size(), 4u);
  EXPECT_EQ(pr[2], "q_3, k, v");
  EXPECT_EQ(pr[3], "q_4, k, v");

  // quantize_kv_copy: the test code defines the operator under test again.
  EXPECT_NE(bench.find("quantize_kv_copy")->test_code.find("def destindex_copy_quantize_kv"),
            std::string::npos);
}

// ---- the option reaches the runner ----

TritonRunner runner_with(const fs::path& script) {
  TritonRunner r;
  r.python = probe_python("/usr/bin/python3");
  r.script = script;
  r.step.sandbox = false;
  r.step.memory_limit_bytes = 2ull << 30;
  r.timeout_s = 20;
  return r;
}

const char* const kTestCode =
    "import random\n"
    "def test_op():\n"
    "    return {'test_case_1': op(random.random())}\n"
    "result_gold = test_op()\n";

TEST(TritonDefects, TheZeroFillReachesTheRunner) {
  TempDir dir;
  TritonRunRequest q;
  q.code = "#fake ok\n";
  q.test_code = kTestCode;
  q.seed = 42;
  EXPECT_EQ(triton_request_json(q, "/c.py", "/t.py", "n")["zero_fill"], false);
  q.zero_fill = true;
  EXPECT_EQ(triton_request_json(q, "/c.py", "/t.py", "n")["zero_fill"], true);

  TritonRunOutcome o = run_triton(runner_with(kFake), q, dir / "ws");
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  EXPECT_NE(o.log.find("zero fill"), std::string::npos) << o.log;
  ASSERT_TRUE(o.zero_fill.is_object());
  EXPECT_EQ(o.zero_fill["calls"]["torch.empty"], 1);
  EXPECT_EQ(o.zero_fill["patched"][0], "torch.empty");

  // The real runner reads the field too: without torch it cannot fill, and says so.
  q.code = "def op(x):\n    return x\n";
  q.require_torch = false;
  o = run_triton(runner_with(kRunner), q, dir / "ws2");
  ASSERT_EQ(o.status, TritonRunStatus::error) << o.detail << o.log;
  EXPECT_EQ(o.error.stage, "setup");
  EXPECT_NE(o.error.message.find("zero fill needs torch"), std::string::npos) << o.error.message;
  q.zero_fill = false;
  o = run_triton(runner_with(kRunner), q, dir / "ws3");
  EXPECT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  EXPECT_TRUE(o.zero_fill.is_null());
}

TEST(TritonDefects, TheEntryArgsReachTheRunner) {
  TempDir dir;
  TritonRunRequest q;
  q.code = "#fake none\n#fake calls 3.0 3\n#fake overcap\n#fake entry matmul\n";
  q.test_code = kTestCode;
  q.seed = 42;
  EXPECT_TRUE(triton_request_json(q, "/c.py", "/t.py", "n")["entry_args"].is_null());
  TritonRunOutcome o = run_triton(runner_with(kFake), q, dir / "ws0");
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  ASSERT_EQ(o.call_outputs.size(), 3u);  // too large to be recorded whole
  for (const TritonCallOutput& c : o.call_outputs) EXPECT_FALSE(c.outputs) << c.entry;
  EXPECT_TRUE(o.entry_args.is_null());

  q.entry_args = TritonEntryArgs{"matmul", {0, 2}};
  const json req = triton_request_json(q, "/c.py", "/t.py", "n");
  EXPECT_EQ(req["entry_args"],
            json({{"entry", "matmul"}, {"args", {0, 2}}, {"max_bytes", 256u << 20}}));
  o = run_triton(runner_with(kFake), q, dir / "ws");
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  ASSERT_EQ(o.call_outputs.size(), 3u);
  for (const TritonCallOutput& c : o.call_outputs) {
    EXPECT_EQ(c.entry, "matmul");
    ASSERT_TRUE(c.outputs);
    ASSERT_EQ(c.outputs->entries.size(), 2u);
    EXPECT_EQ(c.outputs->entries[0].name, "args[0]");
    EXPECT_EQ(c.outputs->entries[0].tensor.values, (std::vector<double>{3.0, 2.0}));
    EXPECT_EQ(c.outputs->entries[1].name, "args[2]");
    EXPECT_EQ(c.outputs->entries[1].kind, OutputKind::none);
  }
  EXPECT_EQ(
      json::parse(o.entry_args.dump()),
      json({{"entry", "matmul"}, {"args", {0, 2}}, {"calls", 3}, {"recorded", 3}, {"bytes", 24}}));

  // The real runner reads the field too: without torch it cannot record calls, and says so.
  q.code = "def op(x):\n    return x\n";
  q.require_torch = false;
  o = run_triton(runner_with(kRunner), q, dir / "ws2");
  ASSERT_EQ(o.status, TritonRunStatus::error) << o.detail << o.log;
  EXPECT_EQ(o.error.stage, "setup");
  EXPECT_NE(o.error.message.find("keeping entry arguments needs torch"), std::string::npos)
      << o.error.message;
  q.entry_args.reset();
  o = run_triton(runner_with(kRunner), q, dir / "ws3");
  EXPECT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  EXPECT_TRUE(o.entry_args.is_null());
}

TEST(TritonDefects, AMalformedEntryArgsReportIsRefused) {
  auto parse = [](const json& kept) {
    json rec = {{"protocol", 1},      {"nonce", "N"},
                {"status", "ok"},     {"outputs", {{"entries", json::array()}, {"data_bytes", 0}}},
                {"entry_args", kept}, {"data_bytes", 0}};
    TritonRunOutcome out;
    parse_runner_record(rec.dump() + "\n", "N", "report", out);
    return out;
  };
  const json good = {
      {"entry", "matmul"}, {"args", {0}}, {"calls", 4}, {"recorded", 3}, {"bytes", 100}};
  TritonRunOutcome ok = parse(good);
  EXPECT_EQ(json::parse(ok.entry_args.dump()), good);
  EXPECT_THROW(parse(5), InputError);
  for (const char* key : {"entry", "args", "calls", "recorded", "bytes"}) {
    json bad = good;
    bad.erase(key);
    EXPECT_THROW(parse(bad), InputError) << key;
    bad[key] = -1;
    EXPECT_THROW(parse(bad), InputError) << key;
  }
  json more = good;
  more["recorded"] = 5;  // more calls recorded than made
  EXPECT_THROW(parse(more), InputError);
  more = good;
  more["args"] = {"o"};
  EXPECT_THROW(parse(more), InputError);
}

TEST(TritonDefects, AMalformedZeroFillReportIsRefused) {
  auto parse = [](const json& fill) {
    json rec = {{"protocol", 1},     {"nonce", "N"},
                {"status", "ok"},    {"outputs", {{"entries", json::array()}, {"data_bytes", 0}}},
                {"zero_fill", fill}, {"data_bytes", 0}};
    TritonRunOutcome out;
    parse_runner_record(rec.dump() + "\n", "N", "report", out);
    return out;
  };
  TritonRunOutcome ok = parse({{"patched", {"torch.empty"}}, {"calls", {{"torch.empty", 2}}}});
  EXPECT_EQ(ok.zero_fill["calls"]["torch.empty"], 2);
  EXPECT_THROW(parse(5), InputError);
  EXPECT_THROW(parse({{"patched", {"torch.empty"}}}), InputError);
  EXPECT_THROW(parse({{"patched", {1}}, {"calls", json::object()}}), InputError);
  EXPECT_THROW(parse({{"patched", json::array()}, {"calls", {{"torch.empty", -1}}}}), InputError);
}

// ---- the judge, through the fake runner ----

TritonOperator make_op(const std::string& name, const std::string& ref) {
  TritonOperator op;
  op.channel = TritonChannel::G;
  op.name = name;
  op.file = name + ".py";
  op.difficulty = 2;
  op.reference_code = ref;
  op.test_code = kTestCode;
  return op;
}

// Crafted rows for crafted operators: the same code paths as the real table's.
std::vector<TritonDefect> crafted_table() {
  using A = TritonDefectAction;
  return {{TritonChannel::G, "broken", A::exclude, {}, "writes past its tensors"},
          {TritonChannel::G, "racy", A::skip_entries, {"test_case_2"}, "test_case_2 races"},
          {TritonChannel::G, "allskipped", A::skip_entries, {"test_case_1"}, "it races"},
          {TritonChannel::G, "packs", A::zero_fill, {}, "reads torch.empty's memory"}};
}

struct Judged {
  TritonEvalResult res;
  std::vector<std::string> progress;
};

class TritonDefectsEval : public ::testing::Test {
 protected:
  TritonDefectsEval()
      : broken_(make_op("broken", "#fake ok\n")),
        racy_(make_op("racy", "#fake ok\n#fake cases test_case_2=random test_case_3=4\n")),
        allskipped_(make_op("allskipped", "#fake ok\n#fake calls 1\n")),
        packs_(make_op("packs", "#fake ok\n#fake emptyrandom\n")),
        plain_(make_op("plain", "#fake ok\n")) {}

  std::vector<TritonJob> jobs() const {
    return {{&broken_, broken_.reference_code, 0, "self"},
            {&broken_, "#fake ok\n", 1, "s:1"},
            {&racy_, racy_.reference_code, 0, "self"},
            {&racy_, "#fake ok\n#fake cases test_case_2=9 test_case_3=4\n", 1, "s:2"},
            {&racy_, "#fake ok\n#fake cases test_case_2=9 test_case_3=5\n", 2, "s:3"},
            {&allskipped_, allskipped_.reference_code, 0, "self"},
            {&packs_, packs_.reference_code, 0, "self"},
            {&packs_, "#fake ok\n# the same packing\n#fake emptyrandom\n", 1, "s:4"},
            {&plain_, "#fake ok\n", 0, "s:5"}};
  }

  Judged judge(const std::vector<TritonDefect>& table, bool speedup = false) {
    return judge(jobs(), table, speedup);
  }

  Judged judge(const std::vector<TritonJob>& jobs, const std::vector<TritonDefect>& table,
               bool speedup) {
    TritonEvalOptions opt;
    opt.runner = runner_with(kFake);
    opt.work_dir = dir_ / "work";
    opt.defects = table;
    opt.speedup = speedup;
    opt.timing.reps = 3;
    opt.rounds = 2;
    opt.warmup_rounds = 0;
    Judged j;
    opt.progress = [&](const std::string& l) { j.progress.push_back(l); };
    j.res = evaluate_triton(jobs, opt);
    return j;
  }

  static void expect_schema(const TritonEvalResult& res) {
    std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                              "/docs/schemas/triton-result.schema.json");
    kjudge::testing::SchemaValidator schema(json::parse(schema_file));
    for (const TritonJobResult& r : res.results)
      for (const auto& err : schema.errors(triton_result_json(r)))
        ADD_FAILURE() << r.job.op->name << " " << r.job.origin << ": " << err;
  }

  TempDir dir_;
  TritonOperator broken_, racy_, allskipped_, packs_, plain_;
};

TEST_F(TritonDefectsEval, ExcludeSkipAndZeroFill) {
  Judged j = judge(crafted_table());
  const TritonEvalResult& res = j.res;
  ASSERT_EQ(res.results.size(), 9u);

  // exclude: never run, its own verdict, in no denominator.
  for (std::size_t i : {0u, 1u}) {
    const TritonJobResult& r = res.results[i];
    EXPECT_EQ(r.graded.verdict, TritonVerdict::excluded) << i;
    EXPECT_FALSE(r.graded.call_ok);
    EXPECT_NE(r.detail.find("writes past its tensors"), std::string::npos) << r.detail;
    json line = triton_result_json(r);
    EXPECT_EQ(line["verdict"], "excluded");
    EXPECT_TRUE(line["run"].is_null());
    EXPECT_TRUE(line["failure"].is_null());
    EXPECT_EQ(line["defect"]["action"], "exclude");
    EXPECT_EQ(line["defect"]["operator"], "G/broken");
  }
  EXPECT_EQ(res.references.count("G/broken"), 0u);
  EXPECT_EQ(res.checks.count("G/broken"), 0u);
  for (const std::string& l : j.progress)
    EXPECT_EQ(l.find("G/broken"), std::string::npos) << "an excluded operator ran: " << l;
  EXPECT_FALSE(fs::exists(dir_ / "work/G-broken-ref"));
  EXPECT_EQ(res.scores.all.excluded, 2u);
  EXPECT_EQ(res.scores.all.judged, 7u);
  EXPECT_EQ(res.scores.by_operator.at("G/broken").judged, 0u);
  EXPECT_EQ(res.scores.by_difficulty.at("G/2").excluded, 2u);
  EXPECT_EQ(res.scores.all.verdicts.at("excluded"), 2u);

  // skip_entries: the racing entry is compared nowhere; the others are.
  const TritonReferenceCheck& racy = res.checks.at("G/racy");
  EXPECT_EQ(racy.status, "stable") << racy.detail;
  EXPECT_EQ(res.results[2].graded.verdict, TritonVerdict::pass) << res.results[2].detail;
  EXPECT_EQ(res.results[3].graded.verdict, TritonVerdict::pass) << res.results[3].detail;
  EXPECT_EQ(res.results[4].graded.verdict, TritonVerdict::mismatch);
  EXPECT_NE(res.results[4].detail.find("test_case_3"), std::string::npos) << res.results[4].detail;
  json line = triton_result_json(res.results[3]);
  ASSERT_EQ(line["skipped_entries"].size(), 1u);
  EXPECT_EQ(line["skipped_entries"][0]["entry"], "test_case_2");
  EXPECT_EQ(line["skipped_entries"][0]["reason"], "test_case_2 races");
  EXPECT_EQ(line["comparison"]["compared"], 2);  // test_case_1 and test_case_3
  for (const auto& e : line["comparison"]["entries"]) EXPECT_NE(e["name"], "test_case_2");
  json ref =
      triton_reference_json(racy_, res.references.at("G/racy"), &racy, &res.defects.at("G/racy"));
  EXPECT_EQ(ref["skipped_entries"][0]["entry"], "test_case_2");
  EXPECT_EQ(ref["defect"]["action"], "skip_entries");
  for (const auto& o : ref["outputs"]) EXPECT_NE(o["name"], "test_case_2");

  // Skipping every tensor of the result leaves nothing: no_output, and the entry calls (which
  // hold the skipped cases' calls too) are no fallback.
  const TritonReferenceCheck& all = res.checks.at("G/allskipped");
  EXPECT_EQ(all.status, "no_output") << all.detail;
  EXPECT_NE(all.detail.find("test_case_1 not compared (a known test defect)"), std::string::npos)
      << all.detail;
  EXPECT_EQ(res.results[5].graded.verdict, TritonVerdict::no_output);

  // zero_fill: asked for in every test-mode run of the operator, reference and candidates.
  EXPECT_EQ(res.checks.at("G/packs").status, "stable") << res.checks.at("G/packs").detail;
  EXPECT_EQ(res.references.at("G/packs").zero_fill["calls"]["torch.empty"], 1);
  for (std::size_t i : {6u, 7u}) {
    EXPECT_EQ(res.results[i].graded.verdict, TritonVerdict::pass) << res.results[i].detail;
    json l = triton_result_json(res.results[i]);
    EXPECT_EQ(l["zero_fill"]["requested"], true);
    EXPECT_EQ(l["zero_fill"]["applied"], true);
    EXPECT_EQ(l["zero_fill"]["calls"]["torch.empty"], 1);
    EXPECT_EQ(l["run"]["zero_fill"]["calls"]["torch.empty"], 1);
  }
  // Nothing for an operator without a row.
  json plain = triton_result_json(res.results[8]);
  EXPECT_TRUE(plain["defect"].is_null());
  EXPECT_FALSE(plain.contains("skipped_entries"));
  EXPECT_FALSE(plain.contains("zero_fill"));
  EXPECT_FALSE(plain["run"].contains("zero_fill"));

  json summary = triton_summary_json(res, {});
  ASSERT_EQ(summary["excluded"].size(), 1u);
  EXPECT_EQ(summary["excluded"][0]["operator"], "G/broken");
  EXPECT_EQ(summary["excluded"][0]["reason"], "writes past its tensors");
  ASSERT_EQ(summary["defects_applied"].size(), 3u);
  EXPECT_EQ(summary["totals"]["excluded"], 2);
  EXPECT_EQ(summary["by_operator"]["G/broken"]["excluded"], 2);
  EXPECT_EQ(summary["by_operator"]["G/broken"]["call_accuracy"], nullptr);
  expect_schema(res);
}

// The zero fill is for timed runs too: the operator's timed outputs are memory never set
// (#fake emptyrandom), drawn afresh in every process without it, so the timed check passing and
// a speedup show every timing process got the fill.
TEST_F(TritonDefectsEval, TimedRunsGetTheZeroFillToo) {
  Judged j = judge(crafted_table(), true);
  const TritonJobResult& r = j.res.results[7];
  ASSERT_EQ(r.graded.verdict, TritonVerdict::pass) << r.detail << r.speedup_note;
  EXPECT_TRUE(r.speedup) << r.speedup_note;
  EXPECT_EQ(j.res.results[0].speedup_note, "not timed: the operator is excluded");
  expect_schema(j.res);
}

// A skip_entries row's sites: the candidate's timed calls at site 1 differ (#fake timedoff), as
// a test that reads past its tensors makes a timed call at new addresses differ; with the row
// naming site 1 they are timed and counted unchecked, the speedup stands; without it, the
// verdict is timed_mismatch.
TEST_F(TritonDefectsEval, ASkipEntriesRowsSitesAreTimedNotCompared) {
  const std::vector<TritonJob> jobs = {
      {&racy_, "#fake ok\n#fake cases test_case_2=9 test_case_3=4\n#fake timedoff 1 0.5\n", 1,
       "s:1"}};
  using A = TritonDefectAction;
  std::vector<TritonDefect> table = {
      {TritonChannel::G, "racy", A::skip_entries, {"test_case_2"}, "reads past k", {}, {}, {1}}};
  Judged with = judge(jobs, table, true);
  const TritonJobResult& r = with.res.results[0];
  ASSERT_EQ(r.graded.verdict, TritonVerdict::pass) << r.detail << r.speedup_note;
  ASSERT_TRUE(r.speedup) << r.speedup_note;
  ASSERT_TRUE(r.timed_check);
  const TritonTimedCheck& tc = *r.timed_check;
  EXPECT_EQ(tc.failed, 0u);
  EXPECT_GT(tc.checked, 0u);  // site 0 is still compared
  EXPECT_EQ(tc.timed, tc.checked + tc.unchecked);
  EXPECT_EQ(tc.unchecked, tc.timed / 2);  // site 1's calls, half of two sites'
  ASSERT_EQ(tc.sites.size(), 2u);
  EXPECT_FALSE(tc.sites[0].contains("defect_skipped"));
  EXPECT_EQ(tc.sites[1]["defect_skipped"], true);
  json line = triton_result_json(r);
  EXPECT_EQ(line["defect"]["sites"], json({1}));
  expect_schema(with.res);

  table[0].sites.clear();
  Judged without = judge(jobs, table, true);
  const TritonJobResult& w = without.res.results[0];
  EXPECT_EQ(w.graded.verdict, TritonVerdict::timed_mismatch) << w.detail;
  EXPECT_FALSE(w.speedup);
  EXPECT_NE(w.detail.find("(site 1)"), std::string::npos) << w.detail;
}

// entry_args: an in-place operator (its test result None) whose calls are too large to be
// recorded whole ("#fake overcap") is judged on the argument the row keeps, in every test-mode
// run, reference and candidates alike; timed runs go without it (the fake refuses it there).
TEST_F(TritonDefectsEval, EntryArgsJudgeTheKeptArgument) {
  const std::string calls = "#fake overcap\n#fake entry matmul\n";
  TritonOperator op = make_op("inplace", "#fake none\n#fake calls 3.0\n" + calls);
  const std::vector<TritonJob> jobs = {
      {&op, op.reference_code, 0, "self"},
      {&op, "#fake none\n# rewritten\n#fake calls 3.0\n" + calls, 1, "s:1"},
      {&op, "#fake none\n#fake calls 4.0\n" + calls, 2, "s:2"},
      {&op, "#fake none\n#fake calls 3.0 3\n" + calls, 3, "s:3"}};
  using A = TritonDefectAction;
  const std::vector<TritonDefect> table = {
      {TritonChannel::G, "inplace", A::entry_args, {}, "writes its output into c", "matmul", {0}}};

  Judged j = judge(jobs, table, false);
  const TritonEvalResult& res = j.res;
  const TritonReferenceCheck& check = res.checks.at("G/inplace");
  EXPECT_EQ(check.status, "stable") << check.detail;
  EXPECT_EQ(check.compared_on, "entry_calls");
  const std::vector<TritonVerdict> want = {TritonVerdict::pass, TritonVerdict::pass,
                                           TritonVerdict::mismatch, TritonVerdict::mismatch};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const TritonJobResult& r = res.results[i];
    EXPECT_EQ(r.graded.verdict, want[i]) << i << ": " << r.detail;
    json line = triton_result_json(r);
    EXPECT_EQ(line["compared_on"], "entry_calls") << i;
    EXPECT_EQ(line["defect"]["action"], "entry_args");
    EXPECT_EQ(line["defect"]["entry"], "matmul");
    EXPECT_EQ(line["defect"]["args"], json({0}));
    const json& kept = line["entry_args"];
    EXPECT_EQ(kept["requested"], true);
    EXPECT_EQ(kept["applied"], true);
    EXPECT_EQ(kept["entry"], "matmul");
    EXPECT_EQ(kept["kept"], json({"args[0]"}));
    EXPECT_EQ(kept["calls"], i == 3 ? 3 : 2);
    EXPECT_EQ(kept["recorded"], kept["calls"]);
    EXPECT_EQ(kept["bytes"], 8 * kept["calls"].get<int>());
    EXPECT_EQ(line["run"]["entry_args"]["calls"], kept["calls"]);
  }
  json pass = triton_result_json(res.results[1]);
  ASSERT_EQ(pass["comparison"]["entries"].size(), 2u);
  EXPECT_EQ(pass["comparison"]["entries"][0]["name"], "calls[0].args[0]");
  EXPECT_NE(res.results[2].detail.find("calls[0].args[0]"), std::string::npos)
      << res.results[2].detail;
  EXPECT_NE(res.results[3].detail.find("3 entry calls, the reference 2"), std::string::npos)
      << res.results[3].detail;
  json ref = triton_reference_json(op, res.references.at("G/inplace"), &check,
                                   &res.defects.at("G/inplace"));
  EXPECT_EQ(ref["run"]["entry_args"]["recorded"], 2);
  EXPECT_EQ(ref["self_check"]["compared_on"], "entry_calls");
  json summary = triton_summary_json(res, {});
  ASSERT_EQ(summary["defects_applied"].size(), 1u);
  EXPECT_EQ(summary["defects_applied"][0]["action"], "entry_args");
  EXPECT_EQ(summary["defects_applied"][0]["args"], json({0}));
  expect_schema(res);

  // Without the row: the calls are not recorded, and there is nothing to compare.
  Judged kept = judge(jobs, {}, false);
  EXPECT_EQ(kept.res.checks.at("G/inplace").status, "no_output");
  EXPECT_NE(kept.res.checks.at("G/inplace").detail.find("2 entry calls (0 recorded)"),
            std::string::npos)
      << kept.res.checks.at("G/inplace").detail;
  for (const TritonJobResult& r : kept.res.results) {
    EXPECT_EQ(r.graded.verdict, TritonVerdict::no_output) << r.job.origin;
    EXPECT_FALSE(triton_result_json(r).contains("entry_args"));
  }

  // A row naming an entry the test never calls: applied, with no call kept (and the calls the
  // test makes still too large).
  std::vector<TritonDefect> other = table;
  other[0].entry = "matmul2";
  Judged wrong = judge(jobs, other, false);
  EXPECT_EQ(wrong.res.checks.at("G/inplace").status, "no_output");
  json line = triton_result_json(wrong.res.results[0]);
  EXPECT_EQ(line["entry_args"]["applied"], true);
  EXPECT_EQ(line["entry_args"]["calls"], 0);

  // Timed runs go without it: the fake runner refuses entry_args in a timed run.
  Judged timed = judge(jobs, table, true);
  const TritonJobResult& r = timed.res.results[1];
  ASSERT_EQ(r.graded.verdict, TritonVerdict::pass) << r.detail << r.speedup_note;
  EXPECT_TRUE(r.speedup) << r.speedup_note;
  expect_schema(timed.res);
}

TEST_F(TritonDefectsEval, KeepDefectiveJudgesTheTestsAsTheyStand) {
  Judged j = judge({});
  const TritonEvalResult& res = j.res;
  EXPECT_EQ(res.results[0].graded.verdict, TritonVerdict::pass);  // the excluded one ran
  EXPECT_EQ(res.results[1].graded.verdict, TritonVerdict::pass);
  EXPECT_EQ(res.checks.at("G/racy").status, "unstable");
  EXPECT_NE(res.checks.at("G/racy").detail.find("test_case_2"), std::string::npos);
  EXPECT_EQ(res.results[3].graded.verdict, TritonVerdict::reference_unstable);
  EXPECT_EQ(res.checks.at("G/allskipped").status, "stable");  // on test_case_1
  EXPECT_EQ(res.checks.at("G/packs").status, "unstable");
  EXPECT_TRUE(res.references.at("G/packs").zero_fill.is_null());
  EXPECT_EQ(res.scores.all.excluded, 0u);
  EXPECT_EQ(res.scores.all.judged, 9u);
  EXPECT_TRUE(res.defects.empty());
  for (const TritonJobResult& r : res.results) {
    json line = triton_result_json(r);
    EXPECT_TRUE(line["defect"].is_null());
    EXPECT_FALSE(line.contains("skipped_entries"));
    EXPECT_FALSE(line.contains("zero_fill"));
  }
  json summary = triton_summary_json(res, {});
  EXPECT_TRUE(summary["excluded"].empty());
  EXPECT_TRUE(summary["defects_applied"].empty());
  expect_schema(res);
}

// ---- kjudge triton eval|show|list on the real data folder, with the fake runner ----

class TritonDefectsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  }
  std::string eval(const std::string& extra) const {
    return std::string(KJUDGE_BINARY) + " triton eval " + kData.string() + " --runner " +
           kFake.string() + " --python /usr/bin/python3 --sandbox none --out " +
           (dir_ / "run").string() +
           " --self --operator decay_cumsum --operator attention_fwd_triton1"
           " --operator matmul_dequant_int4 --operator matmul_kernel --operator add_example"
           " --json " +
           extra;
  }
  std::map<std::string, json> lines(const std::string& file) const {
    std::map<std::string, json> out;
    std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                              "/docs/schemas/triton-result.schema.json");
    kjudge::testing::SchemaValidator schema(json::parse(schema_file));
    std::ifstream in(dir_ / "run" / file);
    for (std::string l; std::getline(in, l);) {
      json doc = json::parse(l);
      if (file == "results.jsonl")
        for (const auto& e : schema.errors(doc)) ADD_FAILURE() << doc.dump() << ": " << e;
      out[doc["operator"].get<std::string>()] = doc;
    }
    return out;
  }
  TempDir dir_;
};

TEST_F(TritonDefectsCli, EvalAppliesTheTableByDefault) {
  auto r = run_capture(eval(""));
  ASSERT_EQ(r.rc, 0) << r.out;
  json summary = json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(summary["options"]["keep_defective"], false);
  EXPECT_EQ(summary["options"]["prestart"], false);  // one timing process at a time by default
  EXPECT_EQ(summary["totals"]["judged"], 4);
  EXPECT_EQ(summary["totals"]["excluded"], 1);
  EXPECT_EQ(summary["totals"]["exec_ok"], 4);
  ASSERT_EQ(summary["excluded"].size(), 1u);
  EXPECT_EQ(summary["excluded"][0]["operator"], "G/decay_cumsum");
  EXPECT_NE(summary["excluded"][0]["reason"].get<std::string>().find("s_qk_h"), std::string::npos);
  ASSERT_EQ(summary["defects_applied"].size(), 3u);

  std::map<std::string, json> results = lines("results.jsonl");
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results["decay_cumsum"]["verdict"], "excluded");
  EXPECT_TRUE(results["decay_cumsum"]["run"].is_null());
  EXPECT_EQ(results["attention_fwd_triton1"]["verdict"], "pass");
  EXPECT_EQ(results["attention_fwd_triton1"]["skipped_entries"][0]["entry"], "test_case_6");
  EXPECT_EQ(results["matmul_dequant_int4"]["verdict"], "pass");
  EXPECT_EQ(results["matmul_dequant_int4"]["zero_fill"]["applied"], true);
  // The fake runner's calls are not the real ones: the request arrives, and is reported kept.
  EXPECT_EQ(results["matmul_kernel"]["verdict"], "pass");
  EXPECT_EQ(results["matmul_kernel"]["defect"]["action"], "entry_args");
  EXPECT_EQ(results["matmul_kernel"]["entry_args"]["applied"], true);
  EXPECT_EQ(results["matmul_kernel"]["entry_args"]["entry"], "matmul");
  EXPECT_EQ(results["matmul_kernel"]["entry_args"]["kept"], json({"args[0]"}));
  EXPECT_TRUE(results["add_example"]["defect"].is_null());

  std::map<std::string, json> refs = lines("references.jsonl");
  EXPECT_EQ(refs.count("decay_cumsum"), 0u);  // never run
  EXPECT_EQ(refs["matmul_dequant_int4"]["run"]["zero_fill"]["calls"]["torch.empty"], 1);
  EXPECT_EQ(refs["attention_fwd_triton1"]["skipped_entries"][0]["entry"], "test_case_6");
  EXPECT_EQ(refs["matmul_kernel"]["run"]["entry_args"]["entry"], "matmul");
}

TEST_F(TritonDefectsCli, KeepDefectiveRestoresTheOldBehaviour) {
  auto r = run_capture(eval("--keep-defective"));
  ASSERT_EQ(r.rc, 0) << r.out;
  json summary = json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(summary["options"]["keep_defective"], true);
  EXPECT_EQ(summary["totals"]["judged"], 5);
  EXPECT_EQ(summary["totals"]["excluded"], 0);
  EXPECT_TRUE(summary["excluded"].empty());
  EXPECT_TRUE(summary["defects_applied"].empty());
  for (const auto& [op, line] : lines("results.jsonl")) {
    EXPECT_EQ(line["verdict"], "pass") << op;
    EXPECT_TRUE(line["defect"].is_null()) << op;
    EXPECT_FALSE(line.contains("skipped_entries")) << op;
    EXPECT_FALSE(line.contains("zero_fill")) << op;
    EXPECT_FALSE(line.contains("entry_args")) << op;
  }
}

TEST_F(TritonDefectsCli, TheTableOnTheTerminalHelpShowAndList) {
  std::string cmd = eval("");
  cmd.erase(cmd.rfind(" --json"), 7);
  auto r = run_capture(cmd);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("excluded (its test is broken): G/decay_cumsum"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("test defect: G/attention_fwd_triton1: skip_entries test_case_6"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("test defect: G/matmul_dequant_int4: zero_fill"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("test defect: G/matmul_kernel: entry_args matmul args[0]\n"),
            std::string::npos)
      << r.out;

  auto help = run_capture(std::string(KJUDGE_BINARY) + " triton eval --help");
  EXPECT_NE(help.out.find("--keep-defective"), std::string::npos) << help.out;

  const std::string bin = KJUDGE_BINARY, data = kData.string();
  auto show = run_capture(bin + " triton show " + data + " index_select_bwd");
  ASSERT_EQ(show.rc, 0) << show.out;
  EXPECT_NE(show.out.find("known test defect: skip_entries test_case_3, test_case_4"),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("--keep-defective"), std::string::npos) << show.out;
  auto kept = run_capture(bin + " triton show " + data + " context_attn_bloom");
  ASSERT_EQ(kept.rc, 0) << kept.out;
  EXPECT_NE(kept.out.find("known test defect: entry_args context_attention_fwd args[3]"),
            std::string::npos)
      << kept.out;
  auto plain = run_capture(bin + " triton show " + data + " add_example");
  EXPECT_EQ(plain.out.find("known test defect"), std::string::npos) << plain.out;

  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-operator.schema.json");
  kjudge::testing::SchemaValidator schema(json::parse(schema_file));
  auto show_json = run_capture(bin + " triton show " + data + " decay_cumsum --json");
  ASSERT_EQ(show_json.rc, 0) << show_json.out;
  json op = json::parse(show_json.out);
  EXPECT_EQ(op["defect"]["action"], "exclude");
  for (const auto& e : schema.errors(op)) ADD_FAILURE() << e;

  auto list = run_capture(bin + " triton list " + data + " --channel G --json");
  ASSERT_EQ(list.rc, 0) << list.out;
  std::size_t with = 0;
  for (const auto& doc : json::parse(list.out)) {
    for (const auto& e : schema.errors(doc)) ADD_FAILURE() << doc.dump() << ": " << e;
    with += doc["defect"].is_object() ? 1 : 0;
  }
  EXPECT_EQ(with, triton_defects().size());
  auto text = run_capture(bin + " triton list " + data + " --channel G");
  EXPECT_NE(text.out.find("TEST DEFECT"), std::string::npos);
  EXPECT_NE(text.out.find("184 operators, 22 with a known test defect"), std::string::npos)
      << text.out.substr(text.out.size() > 300 ? text.out.size() - 300 : 0);
  const std::regex row(R"(G  rotary_emb_nopad +[0-9] +[0-9]+ +[0-9]+  exclude\n)");
  EXPECT_TRUE(std::regex_search(text.out, row)) << "no exclude column for rotary_emb_nopad";
}

}  // namespace
}  // namespace kjudge::triton
