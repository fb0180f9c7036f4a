// TritonBench G operators whose own test is broken (docs/triton.md, "Operators whose own tests
// are broken"). On an H100 every G reference was judged against a second run of itself
// (2026-11-23); 8 disagreed with themselves, and reading their code showed why: the test races,
// reads memory it never set, or writes outside its tensors. 7 more gave nothing comparable: no
// tensor at all, or only NaN/Inf; 5 by the test's own design, 2 because their output argument
// was too large to be recorded. 2 more agreed with themselves in test mode but not in timed
// runs (2026-11-24): mul_exponent_compensator (memory never set) and token_attn_mistral (reads
// megabytes past its tensors); and one a timed call showed reading past its tensors in two of
// its cases (parallel_retention_attention); apply_penalty's and fused_rotary_embedding's
// references failed in their first timed run, reading past tensors their tests make too short;
// and matmul_dequantize_int4's disagreed with itself in test mode (2026-11-24);
// flash_decode2_llama's agreed with itself twice and not a third time: it reads past its tensors
// (2026-11-27). Each row says what is wrong (lines are those of the operator file,
// TritonBench_G_v1/<op>.py, reference code and test code together) and what the judge does.
// tests/triton/judge/defects_test.cpp checks every row against the real data (the operator exists,
// a skipped entry is a key of its test's result, a kept argument is what the test passes at that
// place in every call).
//
// exclude: not run at all (verdict `excluded`, in no accuracy). skip_entries: those entries of
// the test's result are not compared. zero_fill: in test-mode runs the runner makes the
// torch.empty family return zeros, for reference and candidate alike, in test and timed runs.
// A skip_entries row may also name the call sites whose timed calls are not compared (sites).
// entry_args: in test-mode runs the runner keeps, of each call of the entry, only the arguments
// named (after the call), under a cap of their own (256 MiB a run), for reference and candidate
// alike; the runs are compared on them (compared_on entry_calls).
#include "triton/judge/defects.h"

namespace kjudge::triton {

const std::vector<TritonDefect>& triton_defects() {
  using A = TritonDefectAction;
  static const std::vector<TritonDefect> table = {
      {TritonChannel::G,
       "attention_fwd_triton1",
       A::skip_entries,
       {"test_case_6"},
       "test_case_6 runs T=1 against a fixed block of BT=32 rows (line 70); the block pointers "
       "(lines 30-34) are loaded and stored without boundary_check, so each of the 16 programs "
       "(B*H) reads the next heads' rows and rows past the tensor, and stores 32 rows where its "
       "head has 1: up to 16 programs store each row, the last writer wins"},
      {TritonChannel::G,
       "index_select_bwd",
       A::skip_entries,
       {"test_case_3", "test_case_4"},
       "the kernel stores the gradient rows (tl.store, line 48) where an index_add must add, and "
       "test_case_3 and test_case_4 use one index 5 times ([0]*5, [9]*5): 5 programs store one "
       "row, the last writer wins"},
      {TritonChannel::G,
       "quantize_copy_kv",
       A::skip_entries,
       {"test_case_2"},
       "test_case_2's dest_loc2 is drawn with torch.randint (line 70), so it has repeats: "
       "several programs store one destination row (lines 27-28), the last writer wins"},
      {TritonChannel::G,
       "parallel_retention_attention",
       A::skip_entries,
       {"test_case_3", "test_case_4"},
       "k and v are made for batch 2 and d_head 64 (lines 361-362), and the launcher takes the "
       "grid and the strides of k from q (lines 281, 288, 294): test_case_3 passes q_3 with "
       "d_head 128 (line 376), so k is read at head strides of 128*128 elements, and "
       "test_case_4 passes q_4 of batch 4 (line 382), so 16 programs read k and v at heads 8 "
       "to 15 (lines 53, 55); both read up to twice the tensors' size, past their ends. Test "
       "mode agreed with itself, but on the H100 a timed call of test_case_4 (fresh copies at "
       "new addresses) differed from the reference's in half its output (1 of 593, "
       "2026-11-24); their timed calls (sites 2 and 3) are timed, not compared",
       {},
       {},
       {2, 3}},
      {TritonChannel::G,
       "flash_decode2_llama",
       A::skip_entries,
       {"test_case_4"},
       "test_case_4's sequence lengths 32 and 64 (line 112) make 4 and 8 blocks of block_seq=8 "
       "(lines 23, 80), but mid_out_4 holds seq_block_num=3 (lines 78, 113): the kernel loads "
       "Mid_O and Mid_O_LogExpSum past the tensors' ends (lines 32-33), so the result is what "
       "lies beyond them. On the H100 a third run of the reference differed from the first in 32 "
       "of 256 elements of test_case_4 (2026-11-27); its timed calls (site 3) are timed, not "
       "compared",
       {},
       {},
       {3}},
      {TritonChannel::G,
       "decay_cumsum",
       A::exclude,
       {},
       "the launchers pass the head stride s_qk_h = H*T*DK (lines 143, 155, 167) where the "
       "tensors' is T*DK: programs read and write outside their 128-element tensors, so the "
       "result depends on the allocator's layout and the order blocks run in"},
      {TritonChannel::G,
       "kv_cache_filling",
       A::exclude,
       {},
       "block_offsets is torch.zeros (line 433), so every program of every sequence fills cache "
       "page 0: test_case_2 and test_case_3 race; test_case_1 is stable only because all it "
       "stores is 0 (torch.rand in [0, 1) cast to uint8)"},
      {TritonChannel::G,
       "quantize_kv_copy",
       A::exclude,
       {},
       "the test code (after the separator at line 95) defines the kernel and "
       "destindex_copy_quantize_kv again (lines 102-148), so a candidate's code is never "
       "called; and its one real case races: DestLoc is drawn with torch.randint (line 207) and "
       "has repeats, so several programs store one row"},
      {TritonChannel::G,
       "rotary_emb_nopad",
       A::exclude,
       {},
       "the kernel reads context_lengths and BLOCK_TABLES per token (lines 174-178) where they "
       "are per sequence (2 rows for 32 tokens, lines 338-339): the reads go past those tensors "
       "and the kv_cache stores (lines 194-201) land at arbitrary addresses; on the H100 they "
       "corrupted an earlier test's tensor"},
      {TritonChannel::G,
       "token_attn_mistral",
       A::exclude,
       {},
       "the test makes v [num_heads, seq_len, d_model] = [4, 128, 64] (lines 134, 170) where the "
       "launcher takes it for [tokens, kv heads, d]: kv_group_num = prob.shape[0] // v.shape[1] "
       "= 4 // 128 = 0 (line 86), so cur_head // kv_group_num (line 36) divides by zero, and "
       "the token stride stride_vbs is v.stride(0) = 8192 (line 102): the loads of V + v_offs + "
       "v_loc * stride_vbs (line 62), with v_loc up to 127 from Req_to_tokens, reach 127*8192 "
       "elements, about 4 MB past a 128 KiB tensor; test_case_3's Req_to_tokens has 64 columns "
       "(line 160) and the kernel reads up to column 127 (lines 46-47), past its rows. The "
       "result depends on what lies past the tensors: on the H100 two test-mode runs agreed, "
       "but the reference's first timed run (fresh copies of its inputs) failed with "
       "cudaErrorInvalidAddressSpace (2026-11-24)"},
      {TritonChannel::G,
       "apply_penalty",
       A::exclude,
       {},
       "the test runs a batch of 2 (line 66) with p_cumsum_seq_len = [0, seq_len] (line 83), 2 "
       "entries where the kernel reads batch + 1 (line 19): the second program takes the end of "
       "its token range from the 4 bytes past the tensor, then loads token ids up to that end "
       "(line 22) and reads and stores the logits they point to (lines 26, 32). Test mode "
       "agreed with itself, but on the H100 the reference's first timed run (fresh copies at "
       "new addresses) failed with cudaErrorInvalidAddressSpace (2026-11-24)"},
      {TritonChannel::G,
       "fused_rotary_embedding",
       A::exclude,
       {},
       "the kernel reads context_lengths and BLOCK_TABLES per token (lines 79, 82) where the "
       "test makes them per sequence: 2 entries and 2 rows (lines 224-225, batch_size 2 at line "
       "212) for 16 tokens (line 205), so 14 of the 16 programs read past both tensors and store "
       "to k_cache and v_cache (lines 97, 98, 108) at block ids read from there; the test keeps "
       "only shapes (lines 243, 267). Test mode agreed with itself, but on the H100 the "
       "reference's first timed run (fresh copies at new addresses) failed with an illegal "
       "memory access (2026-11-24)"},
      // No comparable output (the 7 of docs/gpu-runs.md, fifth session): 5 by their test's
      // design, and 2 whose output argument is too large for the whole-call capture (16 MiB a
      // run) and is kept alone (entry_args).
      {TritonChannel::G,
       "matrix_reduction",
       A::exclude,
       {},
       "load_reduce makes its own input and output (lines 32-33) and checks itself with "
       "assert_close (line 39); the test keeps only the strings \"passed\" or \"failed: ...\" "
       "(lines 65, 67), which a candidate controls: there is no tensor to judge"},
      {TritonChannel::G,
       "nested_loops_processing",
       A::exclude,
       {},
       "wrapper_nested3 makes its own tensors (lines 39-40) and only prints the output (line "
       "43); the kernel walks fixed offsets whatever the shape (lines 17-35), so the 4x4 case "
       "reads and writes past its tensors and the 2x2 case launches no program (line 41)"},
      {TritonChannel::G,
       "block_sparse_attn",
       A::exclude,
       {},
       "the test's layout gives the one query block a key block entirely above the diagonal "
       "(lines 212-213, total length M at line 220): every score of that block is masked to "
       "-inf (line 119) and the unguarded softmax (lines 121-122) makes every output NaN"},
      {TritonChannel::G,
       "chunk_gated_attention",
       A::exclude,
       {},
       "the gates are torch.randn fp16 (line 163), not log-decays: exp(gn - g) overflows fp16 "
       "(lines 97, 107) and so does the state stored to h (line 83); k is made [B,H,K,T] (line "
       "165) and read as if [B,H,T,K] (line 79), past the tensor for the last heads: every "
       "output beyond the first chunk is Inf or NaN"},
      {TritonChannel::G,
       "mixed_sparse_attention",
       A::exclude,
       {},
       "block offsets drawn at random (line 168) leave query rows with every key masked (lines "
       "67-68), and the unguarded exp2 (lines 70-72) makes them NaN in every case"},
      {TritonChannel::G,
       "matmul_dequant_int4",
       A::zero_fill,
       {},
       "quantize_int4 packs the int4 weights into torch.empty(h1, h2 // 8).to(torch.int32) "
       "(line 229), CPU memory never set, then adds into it with += (line 237): the weights, and "
       "every output, depend on what that memory held. With the torch.empty family filled with "
       "zeros the packing is the one the author meant"},
      {TritonChannel::G,
       "matmul_dequantize_int4",
       A::zero_fill,
       {},
       "the same quantize_int4 as matmul_dequant_int4: torch.empty(h1, h2 // 8).to(torch.int32) "
       "(line 195), CPU memory never set, added into with += (line 203). On the H100 two "
       "test-mode runs of the reference on one seed differed in test_case_3 and test_case_4 "
       "(max abs error 218 and 244, 2026-11-24, twelfth session), where later allocations reuse "
       "freed memory. With the torch.empty family filled with zeros the packing is the one the "
       "author meant"},
      {TritonChannel::G,
       "mul_exponent_compensator",
       A::zero_fill,
       {},
       "launch_mul_kernel makes dst with torch.empty (line 22) and launches src.shape[0] // "
       "BLOCK_SIZE programs (line 24); src has 1 element (line 34), so with BLOCK_SIZE 2, 4 and "
       "8 (lines 43, 47, 51) no program runs and test_case_2 to test_case_4 are memory never "
       "set. Two runs agreed on the H100 only because the allocator handed back the same "
       "block; a timed call of a second process did not (1 of 600, 2026-11-24). With the "
       "torch.empty family filled with zeros those cases are 0, every time"},
      {TritonChannel::G,
       "context_attn_bloom",
       A::entry_args,
       {},
       "context_attention_fwd returns nothing (line 182) and the test returns that None (lines "
       "217, 229); the output is o, args[3] of the call (lines 200, 221), which _fwd_kernel "
       "stores into (lines 126-127). With k and v of 7500 rows (lines 198-199) the call's "
       "tensors are 18.7 MB, over the whole-call capture's 16 MiB: only o is kept, after the "
       "call, and compared",
       "context_attention_fwd",
       {3}},
      {TritonChannel::G,
       "matmul_kernel",
       A::entry_args,
       {},
       "matmul returns nothing (lines 39-42), so test_case_1 to test_case_4 are None (lines 59, "
       "63, 66, 69, 71-76); the product is stored into c (line 37), made at line 54 and passed "
       "as args[0] of each call. Each call's tensors are three 4096x4096 float16 matrices, 96 "
       "MiB (lines 51, 54-56), over the whole-call capture's 16 MiB: only c is kept, after each "
       "of the 4 calls (128 MiB in all), and compared",
       "matmul",
       {0}},
  };
  return table;
}

}  // namespace kjudge::triton
