#pragma once
// How the judge decides that a candidate's output tensor matches the reference's, per dtype.
// The rules and their reasons are in docs/triton.md; this file is the single place they live,
// so the Python runner (to come) receives them from here rather than keeping its own copy.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kjudge::triton {

enum class DType {
  f64,
  f32,
  f16,
  bf16,
  f8e4m3,
  f8e5m2,
  i8,
  i16,
  i32,
  i64,
  u8,
  boolean,
};

// Accepts torch's spellings ("torch.float16", "float16", "half") and the short ones ("fp16").
std::optional<DType> parse_dtype(std::string_view name);
std::string_view dtype_name(DType d);  // torch's name without "torch.", e.g. "float16"

// |actual - expected| <= atol + rtol * |expected|, element by element (torch.isclose's form).
// exact: integers and bools must be equal.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool exact = true;
};

Tolerance tolerance_for(DType d);

// A tensor as the judge sees it: dtype, shape and values widened to double. Integers up to 2^53
// stay exact, which covers every TritonBench output (int64 indices into tensors of that size
// do not exist on one GPU).
struct TensorValues {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<double> values;
};

enum class CompareStatus {
  match,
  dtype_mismatch,
  shape_mismatch,
  not_finite,  // the candidate produced NaN or Inf: never a pass, whatever the reference says
  all_zero,    // the candidate returned zeros where the reference did not (KernelBench #165)
  value_mismatch,
  bad_reference,  // the reference itself has NaN/Inf: the test case, not the candidate, is broken
};

std::string_view compare_status_name(CompareStatus s);

struct Comparison {
  CompareStatus status = CompareStatus::match;
  size_t mismatches = 0;     // elements outside tolerance (or not finite)
  size_t first_bad = 0;      // flat index of the first such element
  double max_abs_error = 0;  // over finite pairs
  std::string detail;        // one human sentence, empty on a match
  bool passed() const { return status == CompareStatus::match; }
};

// `tol` defaults to tolerance_for(expected.dtype); an operator may someday state its own.
Comparison compare_tensors(const TensorValues& expected, const TensorValues& actual,
                           std::optional<Tolerance> tol = std::nullopt);

}  // namespace kjudge::triton
