// Comparing a candidate's outputs with the reference's, entry by entry, by the tolerance rules.
// Declared, and explained, in triton/outputs/compare.h.
#include "triton/outputs/compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kjudge::triton {
namespace {

std::string sample_text(const OutputEntry& e) {
  std::uint64_t numel = 1;
  for (std::int64_t d : e.tensor.shape) numel *= static_cast<std::uint64_t>(d);
  return fmt::format("a sample of {} of {} elements", e.sample->elements, numel);
}

// Tensors of which one side at least is a sample: dtype and shape first (what a whole
// comparison would say), then the samples' size and positions, then their elements.
EntryVerdict compare_sampled(const OutputEntry& ref, const OutputEntry& cand) {
  EntryVerdict v;
  v.name = ref.name;
  auto fail = [&](std::string status, std::string detail) {
    v.status = std::move(status);
    v.failed = true;
    v.detail = std::move(detail);
    return v;
  };
  if (ref.tensor.dtype != cand.tensor.dtype)
    return fail(std::string(compare_status_name(CompareStatus::dtype_mismatch)),
                fmt::format("dtype {} where the reference has {}", dtype_name(cand.tensor.dtype),
                            dtype_name(ref.tensor.dtype)));
  if (ref.tensor.shape != cand.tensor.shape)
    return fail(std::string(compare_status_name(CompareStatus::shape_mismatch)),
                fmt::format("shape [{}] where the reference has [{}]",
                            fmt::join(cand.tensor.shape, ", "), fmt::join(ref.tensor.shape, ", ")));
  if (!cand.sample)
    return fail("sample_mismatch", "the reference's output is " + sample_text(ref) +
                                       ", the candidate's is whole: not comparable");
  if (!ref.sample)
    return fail("sample_mismatch", "the candidate's output is " + sample_text(cand) +
                                       ", the reference's is whole: not comparable");
  if (ref.sample->elements != cand.sample->elements)
    return fail("sample_mismatch",
                fmt::format("a sample of {} elements where the reference's has {}",
                            cand.sample->elements, ref.sample->elements));
  if (ref.sample->seed != cand.sample->seed)
    return fail("sample_mismatch",
                fmt::format("sampled at other positions than the reference's (seed {}, the "
                            "reference's {})",
                            cand.sample->seed, ref.sample->seed));
  if (ref.tensor.values.size() != ref.sample->elements ||
      cand.tensor.values.size() != cand.sample->elements)
    return fail("sample_mismatch", "a sample holds another number of elements than it says");
  const Comparison c = compare_tensors(ref.tensor, cand.tensor);
  v.status = std::string(compare_status_name(c.status));
  v.max_abs_error = c.max_abs_error;
  // Element indices in the detail count within the sample.
  if (!c.detail.empty()) v.detail = "in " + sample_text(ref) + ": " + c.detail;
  v.failed = !c.passed() && c.status != CompareStatus::bad_reference;
  return v;
}

EntryVerdict compare_entry(const OutputEntry& ref, const OutputEntry& cand) {
  EntryVerdict v;
  v.name = ref.name;
  if (ref.kind != cand.kind) {
    v.status = "kind_mismatch";
    v.failed = true;
    v.detail = fmt::format("the reference returned {}, the candidate {}",
                           output_kind_name(ref.kind), output_kind_name(cand.kind));
    return v;
  }
  switch (ref.kind) {
    case OutputKind::none:
      v.status = "none";
      return v;
    case OutputKind::text:
      // Strings in TritonBench results are messages (quantize_kv_copy returns an assertion's
      // text): the candidate's own wording is not an error.
      v.status = "text_not_compared";
      return v;
    case OutputKind::other:
      v.status = "not_comparable";
      v.detail = "reference: " + ref.text + "; candidate: " + cand.text;
      return v;
    case OutputKind::tensor:
      break;
  }
  if (ref.complex != cand.complex) {
    v.status = "complex_mismatch";
    v.failed = true;
    v.detail = ref.complex ? "the reference is complex, the candidate is not"
                           : "the candidate is complex, the reference is not";
    return v;
  }
  if (ref.sample || cand.sample) return compare_sampled(ref, cand);
  Comparison c = compare_tensors(ref.tensor, cand.tensor);
  v.status = std::string(compare_status_name(c.status));
  v.max_abs_error = c.max_abs_error;
  v.detail = c.detail;
  v.failed = !c.passed() && c.status != CompareStatus::bad_reference;
  return v;
}

}  // namespace

OutputsVerdict compare_outputs(const OutputSet& reference, const OutputSet& candidate) {
  OutputsVerdict out;
  for (const OutputEntry& ref : reference.entries) {
    const OutputEntry* cand = candidate.find(ref.name);
    EntryVerdict v;
    if (!cand) {
      v.name = ref.name;
      v.status = "missing";
      v.failed = true;
      v.detail = "the candidate's results have no '" + ref.name + "'";
    } else {
      v = compare_entry(ref, *cand);
    }
    if (ref.kind == OutputKind::tensor && v.status != "bad_reference") {
      ++out.compared;
      if (ref.sample || (cand && cand->sample)) ++out.sampled;
    }
    out.entries.push_back(std::move(v));
  }
  for (const OutputEntry& cand : candidate.entries) {
    if (reference.find(cand.name)) continue;
    out.entries.push_back({cand.name, "extra", true,
                           "the candidate returned '" + cand.name + "', the reference did not", 0});
  }
  for (const EntryVerdict& v : out.entries) {
    if (!v.failed) continue;
    if (out.failed++ == 0) out.detail = v.name + ": " + (v.detail.empty() ? v.status : v.detail);
  }
  if (out.failed > 0) {
    if (out.failed > 1) out.detail += fmt::format(" (and {} more)", out.failed - 1);
  } else if (out.compared == 0) {
    // Nothing was checked: passing here would reward an operator whose test returns nothing.
    out.detail = reference.entries.empty()
                     ? "the reference returned no results to compare"
                     : "no tensor could be compared (every entry is None, text, an object or "
                       "has NaN/Inf in the reference)";
  }
  out.passed = out.failed == 0 && out.compared > 0;
  return out;
}

}  // namespace kjudge::triton
