// Execution accuracy of one run: outputs matched by name, tensors under tolerance.h's rules,
// and the entries that are not tensors handled so that nothing passes by comparing nothing.
#include "triton/outputs/compare.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kjudge::triton {
namespace {

OutputEntry tensor(const std::string& name, std::vector<double> v, DType d = DType::f32) {
  OutputEntry e;
  e.name = name;
  e.kind = OutputKind::tensor;
  e.tensor.dtype = d;
  e.tensor.shape = {static_cast<std::int64_t>(v.size())};
  e.tensor.values = std::move(v);
  return e;
}

OutputEntry of_kind(const std::string& name, OutputKind k, const std::string& text = "") {
  OutputEntry e;
  e.name = name;
  e.kind = k;
  e.text = text;
  return e;
}

OutputSet set(std::vector<OutputEntry> entries) { return OutputSet{std::move(entries)}; }

const EntryVerdict& entry(const OutputsVerdict& v, const std::string& name) {
  for (const EntryVerdict& e : v.entries)
    if (e.name == name) return e;
  throw std::runtime_error("no entry " + name);
}

TEST(TritonCompare, IdenticalOutputsPass) {
  OutputSet ref = set({tensor("a", {1, 2}), of_kind("b", OutputKind::none), tensor("c", {3})});
  OutputsVerdict v = compare_outputs(ref, ref);
  EXPECT_TRUE(v.passed) << v.detail;
  EXPECT_EQ(v.compared, 2u);
  EXPECT_EQ(v.failed, 0u);
  EXPECT_EQ(entry(v, "b").status, "none");
}

TEST(TritonCompare, WithinToleranceMatchesAndBeyondItDoesNot) {
  OutputSet ref = set({tensor("a", {1.0, 2.0})});
  EXPECT_TRUE(compare_outputs(ref, set({tensor("a", {1.00005, 2.0})})).passed);
  OutputsVerdict v = compare_outputs(ref, set({tensor("a", {1.01, 2.0})}));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(entry(v, "a").status, "value_mismatch");
  EXPECT_NEAR(entry(v, "a").max_abs_error, 0.01, 1e-9);
  EXPECT_NE(v.detail.find("a: "), std::string::npos) << v.detail;
}

TEST(TritonCompare, MissingExtraAndKindMismatchFail) {
  OutputSet ref = set({tensor("a", {1}), tensor("b", {2})});
  OutputsVerdict v = compare_outputs(ref, set({tensor("a", {1}), tensor("x", {2})}));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(entry(v, "b").status, "missing");
  EXPECT_EQ(entry(v, "x").status, "extra");
  EXPECT_EQ(v.failed, 2u);
  EXPECT_NE(v.detail.find("(and 1 more)"), std::string::npos) << v.detail;

  v = compare_outputs(ref, set({tensor("a", {1}), of_kind("b", OutputKind::none)}));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(entry(v, "b").status, "kind_mismatch");
}

TEST(TritonCompare, DtypeShapeAndNonFiniteFollowTheToleranceRules) {
  OutputSet ref = set({tensor("a", {1, 2})});
  EXPECT_EQ(entry(compare_outputs(ref, set({tensor("a", {1, 2}, DType::f16)})), "a").status,
            "dtype_mismatch");
  EXPECT_EQ(entry(compare_outputs(ref, set({tensor("a", {1, 2, 3})})), "a").status,
            "shape_mismatch");
  EXPECT_EQ(entry(compare_outputs(ref, set({tensor("a", {1, NAN})})), "a").status, "not_finite");
  EXPECT_EQ(
      entry(compare_outputs(set({tensor("a", {1, 3})}), set({tensor("a", {0, 0})})), "a").status,
      "all_zero");
}

TEST(TritonCompare, ComplexMustMatchComplex) {
  OutputEntry z = tensor("z", {1, 0});
  z.complex = true;
  OutputsVerdict v = compare_outputs(set({z}), set({tensor("z", {1, 0})}));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(entry(v, "z").status, "complex_mismatch");
  EXPECT_TRUE(compare_outputs(set({z}), set({z})).passed);
}

TEST(TritonCompare, TextIsNotComparedButNothingComparedIsNoPass) {
  OutputSet ref = set({tensor("a", {1}), of_kind("msg", OutputKind::text, "assert x")});
  OutputsVerdict v =
      compare_outputs(ref, set({tensor("a", {1}), of_kind("msg", OutputKind::text, "other")}));
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(entry(v, "msg").status, "text_not_compared");

  // A test that returns only None, text or objects: nothing was checked, so nothing passes.
  OutputSet empty = set({of_kind("n", OutputKind::none), of_kind("o", OutputKind::other, "obj")});
  v = compare_outputs(empty, empty);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.failed, 0u);
  EXPECT_NE(v.detail.find("no tensor could be compared"), std::string::npos) << v.detail;
  v = compare_outputs(set({}), set({}));
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.detail.find("no results"), std::string::npos) << v.detail;
}

TEST(TritonCompare, ABrokenReferenceEntryIsSetAsideNotPassed) {
  OutputSet ref = set({tensor("bad", {NAN}), tensor("good", {1})});
  OutputsVerdict v = compare_outputs(ref, set({tensor("bad", {5}), tensor("good", {1})}));
  EXPECT_TRUE(v.passed) << v.detail;
  EXPECT_EQ(entry(v, "bad").status, "bad_reference");
  EXPECT_EQ(v.compared, 1u);
  // Only broken entries: nothing checked.
  v = compare_outputs(set({tensor("bad", {NAN})}), set({tensor("bad", {5})}));
  EXPECT_FALSE(v.passed);
}

// A sample of `v.size()` elements of a tensor of `numel`, drawn from `seed`.
OutputEntry sampled(const std::string& name, std::vector<double> v, std::int64_t numel,
                    std::uint64_t seed, DType d = DType::f32) {
  OutputEntry e = tensor(name, std::move(v), d);
  e.tensor.shape = {numel};
  e.sample = TensorSample{e.tensor.values.size(), seed};
  return e;
}

// Timed calls' outputs too large to keep whole come as samples: compared element by element
// with the reference's sample at the same positions, under the same rules; a sample never
// stands in for a whole tensor, nor for a sample drawn otherwise, and says why.
TEST(TritonCompare, SamplesAreComparedWithSamplesAtTheSamePositions) {
  OutputSet ref = set({sampled("result", {1.0, 2.0, 3.0}, 1000, 7), tensor("small", {4.0})});
  OutputsVerdict v = compare_outputs(ref, ref);
  EXPECT_TRUE(v.passed) << v.detail;
  EXPECT_EQ(v.compared, 2u);
  EXPECT_EQ(v.sampled, 1u);
  EXPECT_EQ(entry(v, "result").status, "match");
  // Within tolerance passes; beyond it fails, and the detail says it was a sample.
  EXPECT_TRUE(compare_outputs(ref, set({sampled("result", {1.00005, 2.0, 3.0}, 1000, 7),
                                        tensor("small", {4.0})}))
                  .passed);
  v = compare_outputs(ref,
                      set({sampled("result", {1.0, 2.5, 3.0}, 1000, 7), tensor("small", {4.0})}));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.sampled, 1u);
  EXPECT_EQ(entry(v, "result").status, "value_mismatch");
  EXPECT_NE(entry(v, "result").detail.find("in a sample of 3 of 1000 elements: 1 of 3"),
            std::string::npos)
      << entry(v, "result").detail;
  // The rules of whole tensors hold in a sample: NaN, all zero, a broken reference.
  EXPECT_EQ(
      entry(compare_outputs(ref, set({sampled("result", {1, NAN, 3}, 1000, 7)})), "result").status,
      "not_finite");
  EXPECT_EQ(
      entry(compare_outputs(ref, set({sampled("result", {0, 0, 0}, 1000, 7)})), "result").status,
      "all_zero");
  v = compare_outputs(set({sampled("result", {NAN, 1, 1}, 1000, 7)}),
                      set({sampled("result", {5, 1, 1}, 1000, 7)}));
  EXPECT_EQ(entry(v, "result").status, "bad_reference");
  EXPECT_FALSE(entry(v, "result").failed);
}

TEST(TritonCompare, ASampleAgainstAWholeTensorOrAnotherSampleFails) {
  const OutputEntry ref = sampled("result", {1.0, 2.0}, 4, 7);
  auto status_of = [&](const OutputEntry& ref_entry, const OutputEntry& cand) {
    OutputsVerdict v = compare_outputs(set({ref_entry}), set({cand}));
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.failed, 1u);
    return entry(v, "result");
  };
  // Whole against sampled, either way round, even where the values would agree.
  OutputEntry whole = tensor("result", {1.0, 2.0, 3.0, 4.0});
  EntryVerdict e = status_of(ref, whole);
  EXPECT_EQ(e.status, "sample_mismatch");
  EXPECT_NE(e.detail.find("the reference's output is a sample of 2 of 4 elements, the "
                          "candidate's is whole"),
            std::string::npos)
      << e.detail;
  e = status_of(whole, ref);
  EXPECT_EQ(e.status, "sample_mismatch");
  EXPECT_NE(e.detail.find("the candidate's output is a sample of 2 of 4 elements, the "
                          "reference's is whole"),
            std::string::npos)
      << e.detail;
  // Another sample size, other positions.
  e = status_of(ref, sampled("result", {1.0, 2.0, 3.0}, 4, 7));
  EXPECT_EQ(e.status, "sample_mismatch");
  EXPECT_NE(e.detail.find("a sample of 3 elements where the reference's has 2"), std::string::npos)
      << e.detail;
  e = status_of(ref, sampled("result", {1.0, 2.0}, 4, 8));
  EXPECT_EQ(e.status, "sample_mismatch");
  EXPECT_NE(e.detail.find("other positions"), std::string::npos) << e.detail;
  // Another tensor altogether: its dtype or shape is what is said.
  EXPECT_EQ(status_of(ref, sampled("result", {1.0, 2.0}, 8, 7)).status, "shape_mismatch");
  EXPECT_EQ(status_of(ref, tensor("result", {1.0, 2.0})).status, "shape_mismatch");
  EXPECT_EQ(status_of(ref, sampled("result", {1.0, 2.0}, 4, 7, DType::f16)).status,
            "dtype_mismatch");
  // A complex sample against a real one fails as complex tensors do.
  OutputEntry z = sampled("result", {1.0, 2.0}, 4, 7);
  z.complex = true;
  z.tensor.shape = {2, 2};
  EXPECT_EQ(status_of(z, sampled("result", {1.0, 2.0}, 4, 7)).status, "complex_mismatch");
  OutputEntry z2 = z;
  EXPECT_TRUE(compare_outputs(set({z}), set({z2})).passed);
}

}  // namespace
}  // namespace kjudge::triton
