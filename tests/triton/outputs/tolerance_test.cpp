// The dtype rules that will decide execution accuracy for Triton operators, on fixed numbers.
#include "triton/outputs/tolerance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kjudge::triton {
namespace {

TensorValues tensor(DType d, std::vector<double> v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return {d, std::move(shape), std::move(v)};
}

CompareStatus compare(DType d, std::vector<double> expected, std::vector<double> actual) {
  return compare_tensors(tensor(d, std::move(expected)), tensor(d, std::move(actual))).status;
}

TEST(Tolerance, NumbersPerDtype) {
  EXPECT_EQ(tolerance_for(DType::f32).rtol, 1e-4);
  EXPECT_EQ(tolerance_for(DType::f32).atol, 1e-5);
  EXPECT_EQ(tolerance_for(DType::f16).rtol, 2e-3);
  EXPECT_EQ(tolerance_for(DType::bf16).rtol, 1.6e-2);
  EXPECT_EQ(tolerance_for(DType::f8e4m3).rtol, 0.125);
  EXPECT_FALSE(tolerance_for(DType::f64).exact);
  for (DType d : {DType::i8, DType::i16, DType::i32, DType::i64, DType::u8, DType::boolean})
    EXPECT_TRUE(tolerance_for(d).exact) << dtype_name(d);
}

TEST(Tolerance, Float32AllowsReorderingButNotHalfPrecision) {
  EXPECT_EQ(compare(DType::f32, {1.0, -2.0}, {1.00009, -2.00019}), CompareStatus::match);
  EXPECT_EQ(compare(DType::f32, {1.0}, {1.0002}), CompareStatus::value_mismatch);
  // 1/3 as float32, and the same value computed in float16: the narrower type must not pass.
  EXPECT_EQ(compare(DType::f32, {0.3333333432674408}, {0.333251953125}),
            CompareStatus::value_mismatch);
  // Near zero the absolute term decides.
  EXPECT_EQ(compare(DType::f32, {0.0}, {9e-6}), CompareStatus::match);
  EXPECT_EQ(compare(DType::f32, {0.0}, {2e-5}), CompareStatus::value_mismatch);
}

TEST(Tolerance, HalfAndBfloatAllowAboutTwoUnitsInTheLastPlace) {
  EXPECT_EQ(compare(DType::f16, {1.0}, {1.0009765625}), CompareStatus::match);         // 1 ulp
  EXPECT_EQ(compare(DType::f16, {1.0}, {1.001953125}), CompareStatus::match);          // 2 ulp
  EXPECT_EQ(compare(DType::f16, {1.0}, {1.00390625}), CompareStatus::value_mismatch);  // 4 ulp
  EXPECT_EQ(compare(DType::bf16, {1.0}, {1.0078125}), CompareStatus::match);           // 1 ulp
  EXPECT_EQ(compare(DType::bf16, {1.0}, {1.015625}), CompareStatus::match);            // 2 ulp
  EXPECT_EQ(compare(DType::bf16, {1.0}, {1.03125}), CompareStatus::value_mismatch);    // 4 ulp
  EXPECT_EQ(compare(DType::f8e4m3, {1.0}, {1.125}), CompareStatus::match);
  EXPECT_EQ(compare(DType::f8e4m3, {1.0}, {1.25}), CompareStatus::value_mismatch);
}

TEST(Tolerance, IntegersAndBoolsAreExact) {
  EXPECT_EQ(compare(DType::i32, {3, -7}, {3, -7}), CompareStatus::match);
  EXPECT_EQ(compare(DType::i32, {3, -7}, {3, -6}), CompareStatus::value_mismatch);
  EXPECT_EQ(compare(DType::i64, {9007199254740992.0}, {9007199254740991.0}),
            CompareStatus::value_mismatch);
  EXPECT_EQ(compare(DType::boolean, {1, 0}, {1, 1}), CompareStatus::value_mismatch);
  // Zeros are a legitimate integer answer: the all-zero guard is for floats only.
  EXPECT_EQ(compare(DType::boolean, {0, 0}, {0, 0}), CompareStatus::match);
}

TEST(Tolerance, NanAndInfNeverPass) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Comparison c = compare_tensors(tensor(DType::f32, {1, 2, 3}), tensor(DType::f32, {1, nan, inf}));
  EXPECT_EQ(c.status, CompareStatus::not_finite);
  EXPECT_EQ(c.first_bad, 1u);
  EXPECT_EQ(c.mismatches, 2u);
  // Even a NaN that "agrees" with the reference does not pass: the case is reported as broken.
  EXPECT_EQ(compare(DType::f32, {nan}, {nan}), CompareStatus::bad_reference);
  EXPECT_EQ(compare(DType::f16, {inf}, {inf}), CompareStatus::bad_reference);
  // A loose tolerance does not change that.
  EXPECT_EQ(compare_tensors(tensor(DType::f32, {1}), tensor(DType::f32, {inf}),
                            Tolerance{1e9, 1e9, false})
                .status,
            CompareStatus::not_finite);
}

TEST(Tolerance, ShapeAndDtypeMustMatch) {
  EXPECT_EQ(compare_tensors(tensor(DType::f32, {1, 2, 3, 4, 5, 6}, {2, 3}),
                            tensor(DType::f32, {1, 2, 3, 4, 5, 6}, {3, 2}))
                .status,
            CompareStatus::shape_mismatch);
  EXPECT_EQ(compare_tensors(tensor(DType::f16, {1, 2}), tensor(DType::f32, {1, 2})).status,
            CompareStatus::dtype_mismatch);
  EXPECT_EQ(compare_tensors(tensor(DType::f32, {1, 2}), tensor(DType::f32, {1, 2, 3})).status,
            CompareStatus::shape_mismatch);
}

TEST(Tolerance, AllZeroAnswerToTinyReferenceFails) {
  // A softmax over a wide row: every value is inside atol, so plain allclose accepts zeros.
  EXPECT_EQ(compare(DType::f32, {4e-6, 3e-6, 2e-6}, {0, 0, 0}), CompareStatus::all_zero);
  EXPECT_EQ(compare(DType::f32, {0, 0}, {0, 0}), CompareStatus::match);
  EXPECT_EQ(compare(DType::f32, {4e-6, 3e-6}, {4e-6, 3e-6}), CompareStatus::match);
}

TEST(Tolerance, DetailNamesTheFirstBadElement) {
  Comparison c = compare_tensors(tensor(DType::f32, {1, 2, 3}), tensor(DType::f32, {1, 2.5, 3.5}));
  EXPECT_EQ(c.status, CompareStatus::value_mismatch);
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_EQ(c.first_bad, 1u);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.5);
  EXPECT_NE(c.detail.find("2 of 3"), std::string::npos) << c.detail;
}

TEST(Tolerance, ParsesTorchDtypeNames) {
  EXPECT_EQ(parse_dtype("torch.float16"), DType::f16);
  EXPECT_EQ(parse_dtype("half"), DType::f16);
  EXPECT_EQ(parse_dtype("bf16"), DType::bf16);
  EXPECT_EQ(parse_dtype("torch.bool"), DType::boolean);
  EXPECT_EQ(parse_dtype("torch.float8_e4m3fn"), DType::f8e4m3);
  EXPECT_EQ(parse_dtype("complex64"), std::nullopt);
  EXPECT_EQ(parse_dtype(""), std::nullopt);
  for (DType d : {DType::f64, DType::f32, DType::f16, DType::bf16, DType::f8e5m2, DType::i64})
    EXPECT_EQ(parse_dtype(dtype_name(d)), d);
}

}  // namespace
}  // namespace kjudge::triton
