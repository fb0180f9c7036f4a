#pragma once
// The correctness rule shared by the task harness (compiled with nvcc into every task build) and
// the judge's own tests: a value passes when it is finite and within atol + rtol * |expected|.
// NaN and Inf never pass, whatever the tolerance: a NaN compares false with everything, so a
// rule written as "fail when |a - b| > tol" would let it through (GPU MODE's eval.cu did).
// Plain C++ on purpose (no CUDA): the comparison runs on the host after the copy back.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kj {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

struct Mismatch {
  std::int64_t index = 0;
  double got = 0;
  double want = 0;
};

struct CompareResult {
  bool ok = true;
  std::int64_t checked = 0;
  std::int64_t bad = 0;          // elements that failed
  std::vector<Mismatch> first;   // the first few failures, in index order
  double max_abs_error = 0;      // over the finite pairs
  std::string error;             // the comparison itself could not be made (shape, reference)
  bool reference_fault = false;  // the reference output is unusable: the task's fault
};

inline bool within(double got, double want, const Tolerance& tol) {
  if (!std::isfinite(got) || !std::isfinite(want)) return false;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

// Compares n values read through got(i) and want(i) (anything convertible to double).
// A non-finite expected value is the task's fault, not the submission's: it is reported as an
// error so a broken reference cannot fail (or pass) everyone silently.
template <class Got, class Want>
CompareResult compare_values(std::int64_t n, Got got, Want want, const Tolerance& tol,
                             std::size_t keep = 5) {
  CompareResult r;
  r.checked = n;
  for (std::int64_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(got(i));
    const double w = static_cast<double>(want(i));
    if (!std::isfinite(w)) {
      r.ok = false;
      r.reference_fault = true;
      r.error = "the reference output is not finite at index " + std::to_string(i);
      return r;
    }
    if (std::isfinite(g)) {
      const double e = std::fabs(g - w);
      if (e > r.max_abs_error) r.max_abs_error = e;
    }
    if (!within(g, w, tol)) {
      r.ok = false;
      ++r.bad;
      if (r.first.size() < keep) r.first.push_back({i, g, w});
    }
  }
  return r;
}

inline std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace kj
