// The per-dtype tolerance rules that decide whether two tensors match.
// Declared, and explained, in triton/outputs/tolerance.h.
#include "triton/outputs/tolerance.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kjudge::triton {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::string_view aliases[3];
};

constexpr DTypeInfo kDTypes[] = {
    {DType::f64, "float64", {"double", "fp64", "f64"}},
    {DType::f32, "float32", {"float", "fp32", "f32"}},
    {DType::f16, "float16", {"half", "fp16", "f16"}},
    {DType::bf16, "bfloat16", {"bf16", "", ""}},
    {DType::f8e4m3, "float8_e4m3fn", {"fp8e4m3", "fp8_e4m3", ""}},
    {DType::f8e5m2, "float8_e5m2", {"fp8e5m2", "fp8_e5m2", ""}},
    {DType::i8, "int8", {"i8", "", ""}},
    {DType::i16, "int16", {"short", "i16", ""}},
    {DType::i32, "int32", {"int", "i32", ""}},
    {DType::i64, "int64", {"long", "i64", ""}},
    {DType::u8, "uint8", {"u8", "", ""}},
    {DType::boolean, "bool", {"", "", ""}},
};

}  // namespace

std::optional<DType> parse_dtype(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (const DTypeInfo& i : kDTypes) {
    if (name == i.name) return i.dtype;
    for (std::string_view a : i.aliases)
      if (!a.empty() && name == a) return i.dtype;
  }
  return std::nullopt;
}

std::string_view dtype_name(DType d) {
  for (const DTypeInfo& i : kDTypes)
    if (i.dtype == d) return i.name;
  return "?";
}

// Why these numbers: docs/triton.md, "Tolerances". In short: a few units in the last place of
// the output dtype, loose enough for a different reduction order, tight enough that computing
// in a narrower type than the reference fails.
Tolerance tolerance_for(DType d) {
  switch (d) {
    case DType::f64:
      return {1e-7, 1e-7, false};
    case DType::f32:
      return {1e-4, 1e-5, false};
    case DType::f16:
      return {2e-3, 1e-5, false};
    case DType::bf16:
      return {1.6e-2, 1e-5, false};
    case DType::f8e4m3:
      return {0.125, 1.0 / 512, false};  // one step of 3 mantissa bits; smallest subnormal 2^-9
    case DType::f8e5m2:
      return {0.25, 1.0 / 65536, false};  // one step of 2 mantissa bits; smallest subnormal 2^-16
    default:
      return {0, 0, true};
  }
}

std::string_view compare_status_name(CompareStatus s) {
  switch (s) {
    case CompareStatus::match:
      return "match";
    case CompareStatus::dtype_mismatch:
      return "dtype_mismatch";
    case CompareStatus::shape_mismatch:
      return "shape_mismatch";
    case CompareStatus::not_finite:
      return "not_finite";
    case CompareStatus::all_zero:
      return "all_zero";
    case CompareStatus::value_mismatch:
      return "value_mismatch";
    case CompareStatus::bad_reference:
      return "bad_reference";
  }
  return "?";
}

Comparison compare_tensors(const TensorValues& expected, const TensorValues& actual,
                           std::optional<Tolerance> tol_arg) {
  Comparison c;
  auto fail = [&](CompareStatus s, std::string detail) {
    c.status = s;
    c.detail = std::move(detail);
    return c;
  };
  if (actual.dtype != expected.dtype) {
    return fail(CompareStatus::dtype_mismatch,
                fmt::format("dtype {} where the reference has {}", dtype_name(actual.dtype),
                            dtype_name(expected.dtype)));
  }
  if (actual.shape != expected.shape || actual.values.size() != expected.values.size()) {
    return fail(CompareStatus::shape_mismatch,
                fmt::format("shape [{}] where the reference has [{}]",
                            fmt::join(actual.shape, ", "), fmt::join(expected.shape, ", ")));
  }
  // The reference is checked first: a non-finite expected value means the case is ill-posed,
  // and blaming the candidate for it would be wrong.
  for (size_t i = 0; i < expected.values.size(); ++i) {
    if (!std::isfinite(expected.values[i])) {
      c.first_bad = i;
      return fail(CompareStatus::bad_reference,
                  fmt::format("the reference output is not finite at element {}", i));
    }
  }
  const Tolerance tol = tol_arg.value_or(tolerance_for(expected.dtype));
  size_t not_finite = 0;
  bool first_set = false;
  for (size_t i = 0; i < actual.values.size(); ++i) {
    double a = actual.values[i], e = expected.values[i];
    bool ok;
    if (!std::isfinite(a)) {
      ++not_finite;
      ok = false;
    } else {
      double err = std::fabs(a - e);
      c.max_abs_error = std::max(c.max_abs_error, err);
      ok = tol.exact ? a == e : err <= tol.atol + tol.rtol * std::fabs(e);
    }
    if (!ok) {
      ++c.mismatches;
      if (!first_set) c.first_bad = i, first_set = true;
    }
  }
  if (not_finite > 0) {
    return fail(CompareStatus::not_finite,
                fmt::format("{} elements are NaN or Inf (first at {})", not_finite, c.first_bad));
  }
  // Zeros can sit inside atol of a tiny reference (softmax over a wide row); returning them is a
  // known way to pass a loose allclose, so an all-zero answer needs an all-zero reference.
  auto is_zero = [](double v) { return v == 0.0; };
  if (!tol.exact && !actual.values.empty() && std::ranges::all_of(actual.values, is_zero) &&
      !std::ranges::all_of(expected.values, is_zero)) {
    return fail(CompareStatus::all_zero, "every element is zero and the reference's are not");
  }
  if (c.mismatches > 0) {
    size_t i = c.first_bad;
    std::string rule = tol.exact ? std::string("differ (exact dtype)")
                                 : fmt::format("outside rtol={} atol={}", tol.rtol, tol.atol);
    return fail(CompareStatus::value_mismatch,
                fmt::format("{} of {} elements {} (first at {}: {} vs {})", c.mismatches,
                            actual.values.size(), rule, i, actual.values[i], expected.values[i]));
  }
  return c;
}

}  // namespace kjudge::triton
