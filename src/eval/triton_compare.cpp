#include "eval/triton_compare.h"

#include <fmt/format.h>

namespace kjudge {
namespace {

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
    if (ref.kind == OutputKind::tensor && v.status != "bad_reference") ++out.compared;
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

}  // namespace kjudge
