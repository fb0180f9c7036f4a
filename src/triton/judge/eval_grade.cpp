// Grading in the Triton judge: a candidate's verdict from its test-mode run against the
// reference's, and whether the reference agrees with itself. Declared in triton/judge/eval_grade.h.
#include "triton/judge/eval_grade.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace kjudge::triton {

bool skips_entries(const std::optional<TritonDefect>& d) {
  return d && d->action == TritonDefectAction::skip_entries;
}

OutputSet without(const OutputSet& o, const std::set<std::string>& names) {
  OutputSet out;
  for (const OutputEntry& e : o.entries)
    if (!names.count(e.name)) out.entries.push_back(e);
  return out;
}

namespace {

bool has_tensor(const OutputSet& o) {
  for (const OutputEntry& e : o.entries)
    if (e.kind == OutputKind::tensor) return true;
  return false;
}

// What a run is compared on (docs/triton.md, "Self-inconsistent references"): the test's result
// where it holds a tensor, else what the entry calls gave (their results and the arguments they
// wrote: in-place operators whose test keeps only the None they return) where that does, else
// nothing (""). Where a known test defect's entries were taken out of the test's result, the
// entry calls are no fallback: they hold the calls of the skipped cases too.
std::string comparison_basis(const TritonRunOutcome& ref, bool entries_skipped) {
  if (has_tensor(ref.outputs)) return "test_result";
  if (entries_skipped) return "";
  for (const TritonCallOutput& c : ref.call_outputs)
    if (c.outputs && has_tensor(*c.outputs)) return "entry_calls";
  return "";
}

// The entry calls' outputs of two runs, call by call in the order they were made, each call
// by compare_outputs (the rules of the test's outputs), its entries named "calls[i].NAME". A
// different number of calls, or another function at the same place, is a failure of its own.
OutputsVerdict compare_entry_calls(const std::vector<TritonCallOutput>& ref,
                                   const std::vector<TritonCallOutput>& cand) {
  OutputsVerdict out;
  auto fail = [&](std::string name, std::string status, std::string detail) {
    out.entries.push_back({std::move(name), std::move(status), true, std::move(detail), 0});
  };
  if (ref.size() != cand.size())
    fail("calls", "call_count_mismatch",
         fmt::format("the candidate made {} entry call{}, the reference {}", cand.size(),
                     cand.size() == 1 ? "" : "s", ref.size()));
  for (std::size_t i = 0; i < std::min(ref.size(), cand.size()); ++i) {
    const std::string at = fmt::format("calls[{}]", i);
    if (ref[i].entry != cand[i].entry) {
      fail(at, "entry_mismatch",
           fmt::format("entry call {} is {} in the reference, {} in the candidate", i, ref[i].entry,
                       cand[i].entry));
      continue;
    }
    if (!ref[i].outputs) {  // over the runner's cap: nothing to compare with
      out.entries.push_back({at, "not_recorded", false,
                             "the reference's output of " + ref[i].entry +
                                 " was not recorded (over the runner's cap)",
                             0});
      continue;
    }
    if (!cand[i].outputs) {
      fail(at, "not_recorded",
           "the candidate's output of " + cand[i].entry +
               " was not recorded (over the runner's cap), the reference's was");
      continue;
    }
    OutputsVerdict v = compare_outputs(*ref[i].outputs, *cand[i].outputs);
    out.compared += v.compared;
    for (EntryVerdict& e : v.entries) {
      e.name = at + "." + e.name;
      out.entries.push_back(std::move(e));
    }
  }
  for (const EntryVerdict& v : out.entries) {
    if (!v.failed) continue;
    if (out.failed++ == 0) out.detail = v.name + ": " + (v.detail.empty() ? v.status : v.detail);
  }
  if (out.failed > 1) out.detail += fmt::format(" (and {} more)", out.failed - 1);
  if (out.failed == 0 && out.compared == 0)
    out.detail = "no tensor could be compared in the entry calls' outputs";
  out.passed = out.failed == 0 && out.compared > 0;
  return out;
}

// What the operator's own calls gave in two test-mode runs, where the test's result was the
// basis: call by call, each call's result entries ("result", "result[1]", "result.key"), and,
// where the reference's call returned no tensor, its argument entries too (an in-place operator's
// output is an argument; a call that returns its output may be handed scratch buffers the test
// never reads, whose contents are the candidate's business). Entries named in `unstable` (the
// reference's own two runs differ there) are not compared. Names "calls[i].NAME".
OutputsVerdict compare_call_results(const std::vector<TritonCallOutput>& ref,
                                    const std::vector<TritonCallOutput>& cand,
                                    const std::set<std::string>& unstable) {
  auto is_result = [](const std::string& name) {
    return name == "result" || name.rfind("result[", 0) == 0 || name.rfind("result.", 0) == 0;
  };
  std::vector<TritonCallOutput> r = ref, c = cand;
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (!r[i].outputs) continue;
    bool returns_tensor = false;
    for (const OutputEntry& e : r[i].outputs->entries)
      returns_tensor = returns_tensor || (is_result(e.name) && e.kind == OutputKind::tensor);
    std::set<std::string> drop;
    const std::string at = fmt::format("calls[{}].", i);
    auto collect = [&](const OutputSet& o) {
      for (const OutputEntry& e : o.entries)
        if ((returns_tensor && !is_result(e.name)) || unstable.count(at + e.name))
          drop.insert(e.name);
    };
    collect(*r[i].outputs);
    if (i < c.size() && c[i].outputs) collect(*c[i].outputs);
    r[i].outputs = without(*r[i].outputs, drop);
    if (i < c.size() && c[i].outputs) c[i].outputs = without(*c[i].outputs, drop);
  }
  OutputsVerdict v = compare_entry_calls(r, c);
  // A call with nothing left to compare (its result None, scratch set apart) is no failure.
  if (v.failed == 0) v.passed = true;
  return v;
}

// Two runs' outputs on the basis the reference gives.
OutputsVerdict compare_on(const std::string& basis, const TritonRunOutcome& ref,
                          const TritonRunOutcome& other) {
  return basis == "entry_calls" ? compare_entry_calls(ref.call_outputs, other.call_outputs)
                                : compare_outputs(ref.outputs, other.outputs);
}

}  // namespace

// The candidate's verdict from its own run, the reference's, and whether the reference agrees
// with itself.
void grade(TritonJobResult& r, const TritonRunOutcome& ref, const TritonReferenceCheck& check) {
  const TritonRunOutcome& c = r.run;
  r.graded.call_ok = c.status == TritonRunStatus::ok;
  auto environment_fault = [](const TritonRunOutcome& o) {
    return o.status == TritonRunStatus::judge_error ||
           (o.status == TritonRunStatus::error &&
            (o.error.stage == "setup" || o.error.stage == "runner"));
  };
  if (environment_fault(c)) {
    r.graded.verdict = TritonVerdict::judge_error;
    r.detail = "judge: " + c.detail;
    return;
  }
  if (ref.status != TritonRunStatus::ok) {
    // Nothing to compare with. The candidate's own call still counts for call accuracy.
    r.graded.verdict =
        environment_fault(ref) ? TritonVerdict::judge_error : TritonVerdict::reference_failed;
    r.detail = "the reference failed here: " + ref.detail;
    return;
  }
  switch (c.status) {
    case TritonRunStatus::ok:
      break;
    case TritonRunStatus::error:
      r.graded.verdict = TritonVerdict::call_error;
      r.detail = c.detail;
      return;
    case TritonRunStatus::timeout:
      r.graded.verdict = TritonVerdict::timeout;
      r.detail = c.detail;
      return;
    case TritonRunStatus::crashed:
    case TritonRunStatus::limit:
      r.graded.verdict = TritonVerdict::crash;
      r.detail = c.detail;
      return;
    case TritonRunStatus::refused:
      r.graded.verdict = TritonVerdict::refused;
      r.detail = c.detail;
      return;
    case TritonRunStatus::judge_error:
      r.graded.verdict = TritonVerdict::judge_error;
      r.detail = c.detail;
      return;
  }
  // The reference decides the basis; with neither a tensor in its test result nor in its entry
  // calls, the test results' comparison is kept for the record, and the verdict is no_output.
  const std::string basis = comparison_basis(ref, skips_entries(r.defect));
  r.compared_on = basis.empty() ? "test_result" : basis;
  r.outputs = compare_on(r.compared_on, ref, c);
  // A reference with nothing to compare, or one that differs from itself, cannot say whether
  // the candidate is right: the outputs' comparison is kept, the verdict is the reference's.
  if (check.status == "no_output") {
    r.graded.verdict = TritonVerdict::no_output;
    r.detail = "the reference gives nothing to compare with: " + check.detail;
    return;
  }
  if (check.status == "unstable") {
    r.graded.verdict = TritonVerdict::reference_unstable;
    r.detail = "the reference disagrees with itself: " + check.detail;
    return;
  }
  r.graded.verdict = r.outputs->passed ? TritonVerdict::pass : TritonVerdict::mismatch;
  r.detail = r.outputs->detail;
  if (basis == "entry_calls" && !r.detail.empty())
    r.detail = "on the entry calls (the test's result holds no tensor): " + r.detail;
  // The test's own verdict is code the candidate can reach (a patched torch.allclose returns
  // True): what the operator's calls gave is compared by the judge too.
  if (basis == "test_result" && check.calls_comparable && !skips_entries(r.defect)) {
    r.entry_call_check =
        compare_call_results(ref.call_outputs, c.call_outputs, check.unstable_calls);
    if (r.graded.verdict == TritonVerdict::pass && r.entry_call_check->failed > 0) {
      r.graded.verdict = TritonVerdict::mismatch;
      r.detail =
          "the test's result matched, but the operator's own calls gave otherwise than the "
          "reference's on the same inputs: " +
          r.entry_call_check->detail;
    }
  }
}

namespace {

// "3 entries: 2 none, 1 text" for a reference without tensors.
std::string kinds_of(const OutputSet& o) {
  if (o.entries.empty()) return "no entries";
  std::map<std::string, int> n;
  for (const OutputEntry& e : o.entries) ++n[std::string(output_kind_name(e.kind))];
  std::string out =
      fmt::format("{} entr{}:", o.entries.size(), o.entries.size() == 1 ? "y" : "ies");
  bool first = true;
  for (const auto& [kind, count] : n) {
    out += fmt::format("{} {} {}", first ? "" : ",", count, kind);
    first = false;
  }
  return out;
}

}  // namespace

TritonReferenceCheck check_reference(const TritonRunOutcome& ref, const TritonRunOutcome* second,
                                     const std::string& second_name,
                                     const std::optional<TritonDefect>& defect) {
  TritonReferenceCheck c;
  if (ref.status != TritonRunStatus::ok) {
    c.status = "failed";
    c.detail = ref.detail;
    return c;
  }
  c.compared_on = comparison_basis(ref, skips_entries(defect));
  if (c.compared_on.empty()) {
    c.status = "no_output";
    std::size_t recorded = 0;
    for (const TritonCallOutput& call : ref.call_outputs) recorded += call.outputs ? 1 : 0;
    std::string skipped;
    if (skips_entries(defect))
      for (const std::string& e : defect->entries) skipped += (skipped.empty() ? "" : ", ") + e;
    if (!skipped.empty())
      skipped = "with " + skipped + " not compared (a known test defect), nothing is left: ";
    c.detail =
        skipped + kinds_of(ref.outputs) + " (" + ref.result_source + "); " +
        (ref.call_outputs.empty() ? std::string("no entry call recorded")
                                  : fmt::format("{} entry call{} ({} recorded), none with a tensor",
                                                ref.call_outputs.size(),
                                                ref.call_outputs.size() == 1 ? "" : "s", recorded));
    return c;
  }
  if (!second) {
    c.detail = "no second run";
    c.calls_comparable = !ref.call_outputs.empty();
    return c;
  }
  c.second_run = second_name;
  if (second->status == TritonRunStatus::judge_error) {
    c.detail = "the second run could not start: " + second->detail;
    return c;
  }
  if (second->status != TritonRunStatus::ok) {
    c.status = "unstable";
    c.detail = fmt::format("the {} ended {}: {}", second_name,
                           triton_run_status_name(second->status), second->detail);
    return c;
  }
  c.outputs = compare_on(c.compared_on, ref, *second);
  // The entry calls of the two runs: where they differ, the reference says nothing there.
  {
    const OutputsVerdict calls = compare_entry_calls(ref.call_outputs, second->call_outputs);
    bool same_calls =
        ref.call_outputs.size() == second->call_outputs.size() && !ref.call_outputs.empty();
    for (const EntryVerdict& e : calls.entries) {
      if (!e.failed) continue;
      if (e.status == "call_count_mismatch" || e.status == "entry_mismatch")
        same_calls = false;
      else
        c.unstable_calls.insert(e.name);
    }
    c.calls_comparable = same_calls;
  }
  if (c.outputs->passed) {
    c.status = "stable";
    return c;
  }
  // Nothing compared because none of the reference's tensors is finite (NaN or Inf in each):
  // not a reference that disagrees with itself, one that gives nothing to judge by.
  const bool none_finite =
      c.outputs->compared == 0 && c.outputs->failed == 0 &&
      std::any_of(c.outputs->entries.begin(), c.outputs->entries.end(),
                  [](const EntryVerdict& e) { return e.status == "bad_reference"; });
  if (none_finite) {
    c.status = "no_output";
    std::string what;
    for (const EntryVerdict& e : c.outputs->entries)
      if (e.status == "bad_reference")
        what += fmt::format("{}{}: {}", what.empty() ? "" : "; ", e.name, e.detail);
    c.detail = "no finite tensor to compare: " + what;
    return c;
  }
  c.status = "unstable";
  // Every entry that differed, so the report says what to look at.
  std::string what;
  for (const EntryVerdict& e : c.outputs->entries) {
    if (!e.failed) continue;
    what += fmt::format("{}{} {}", what.empty() ? "" : "; ", e.name, e.status);
    if (e.max_abs_error > 0) what += fmt::format(" (max abs error {:.3g})", e.max_abs_error);
  }
  c.detail = fmt::format("{} of {} compared entries{} differ between two runs on the same seed: {}",
                         c.outputs->failed, c.outputs->compared + c.outputs->failed,
                         c.compared_on == "entry_calls" ? " of the entry calls" : "", what);
  return c;
}

}  // namespace kjudge::triton
