#pragma once
// Execution accuracy of one Triton run: its outputs against the reference run's, entry by entry
// (matched by name), under the per-dtype rules of tolerance.h. The rules for entries that are not
// tensors are in docs/triton.md ("Comparing outputs"). A tensor kept as a sample (a timed call's
// output too large to keep whole: OutputEntry::sample) is compared only with a sample of the
// same tensor (dtype, shape) at the same positions (elements, seed), element by element under
// the same rules; a sample against a whole tensor, or against another sample, is a failure
// (sample_mismatch), never a pass.
#include <string>
#include <vector>

#include "triton/outputs/tensor_file.h"
#include "triton/outputs/tolerance.h"

namespace kjudge::triton {

struct EntryVerdict {
  std::string name;
  // match | none (both None) | text_not_compared | not_comparable (both "other") |
  // bad_reference (the reference has NaN/Inf there) | missing | extra | kind_mismatch |
  // complex_mismatch | sample_mismatch (a sample against a whole tensor, or against a sample
  // of other size or positions) | and compare_status_name() of a failed tensor comparison
  std::string status;
  bool failed = false;
  std::string detail;
  double max_abs_error = 0;
};

struct OutputsVerdict {
  bool passed = false;
  std::size_t compared = 0;  // tensor entries actually compared (and not bad_reference)
  std::size_t sampled = 0;   // of those, where either side is a sample (passed or failed)
  std::size_t failed = 0;
  std::vector<EntryVerdict> entries;  // the reference's order, then the candidate's extras
  std::string detail;                 // one sentence: the first failure, or why nothing passed
};

OutputsVerdict compare_outputs(const OutputSet& reference, const OutputSet& candidate);

}  // namespace kjudge::triton
