// The Triton judge's records as JSON: each job's results.jsonl line, each operator's
// references.jsonl line, the failure class and timing flags of a result, and summary.json
// (docs/json-schemas.md). Declared in triton/judge/eval.h.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "triton/judge/eval.h"
#include "triton/judge/eval_grade.h"
#include "triton/judge/eval_runs.h"
#include "triton/judge/failure.h"

namespace kjudge::triton {

namespace {

nlohmann::ordered_json sites_json(const std::vector<TritonCallSite>& sites) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const TritonCallSite& s : sites)
    arr.push_back({{"entry", s.entry}, {"samples_ms", s.samples_ms}});
  return arr;
}

nlohmann::ordered_json timed_check_json(const TritonTimedCheck& c) {
  return {{"complete", c.complete},
          {"timed", c.timed},
          {"checked", c.checked},
          {"sampled", c.sampled},
          {"failed", c.failed},
          {"unchecked", c.unchecked},
          {"reference_unstable", c.reference_unstable},
          {"reference_compared", c.reference_compared},
          {"reference_differs", c.reference_differs},
          {"perturb_seed", c.perturb_seed},
          {"sites", c.sites},
          {"first_failure", c.first_failure}};
}

nlohmann::ordered_json phase_json(const TritonRunOutcome& o) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [phase, s] : o.phase_seconds) j[phase] = std::round(s * 1000) / 1000;
  return j;
}

nlohmann::ordered_json run_json(const TritonRunOutcome& o) {
  nlohmann::ordered_json j = {{"status", triton_run_status_name(o.status)},
                              {"detail", o.detail},
                              {"seconds", std::round(o.seconds * 1000) / 1000},
                              {"phase_seconds", phase_json(o)},
                              {"exit_code", o.exit_code},
                              {"signal", o.signal},
                              {"memory_peak_bytes", o.memory_peak_bytes},
                              {"result_source", o.result_source},
                              {"entries", o.entries},
                              {"calls", o.calls},
                              {"shadowed", o.shadowed},
                              {"env", o.env},
                              {"log", o.log},
                              {"log_truncated", o.log_truncated}};
  if (!o.zero_fill.is_null()) j["zero_fill"] = o.zero_fill;
  if (!o.entry_args.is_null()) j["entry_args"] = o.entry_args;
  if (o.status == TritonRunStatus::error)
    j["error"] = {{"stage", o.error.stage},
                  {"exception_type", o.error.exception_type},
                  {"message", o.error.message},
                  {"traceback", o.error.traceback}};
  return j;
}

// Whether the zero fill the judge asked for was made, and how often each function was called
// (the runner's own report): `applied` false when the run reported none.
nlohmann::ordered_json zero_fill_json(const TritonRunOutcome& o) {
  return {
      {"requested", true},
      {"applied", !o.zero_fill.is_null()},
      {"calls", o.zero_fill.is_null() ? nlohmann::ordered_json::object() : o.zero_fill["calls"]}};
}

// What the runner kept of an entry_args row's entry calls: the entry and the arguments asked
// for, `applied` when the runner reported keeping just those, and its counts: the entry's calls,
// those whose arguments it recorded (the others went over its cap) and their bytes.
nlohmann::ordered_json entry_args_json(const TritonDefect& d, const TritonRunOutcome& o) {
  const nlohmann::ordered_json& k = o.entry_args;
  const bool applied = k.is_object() && k.value("entry", "") == d.entry && k.contains("args") &&
                       k["args"] == nlohmann::ordered_json(d.args);
  return {{"requested", true},
          {"entry", d.entry},
          {"kept", triton_kept_arg_names(d)},
          {"applied", applied},
          {"calls", applied ? k["calls"] : nlohmann::ordered_json(0)},
          {"recorded", applied ? k["recorded"] : nlohmann::ordered_json(0)},
          {"bytes", applied ? k["bytes"] : nlohmann::ordered_json(0)}};
}

// The fields that name an operator, first on every results.jsonl and references.jsonl line.
nlohmann::ordered_json operator_line_head(const TritonOperator& op) {
  return {{"schema_version", 1},
          {"operator", op.name},
          {"channel", channel_name(op.channel)},
          {"file", op.file},
          {"difficulty", op.difficulty}};
}

}  // namespace

nlohmann::ordered_json triton_timing_flags(const TritonJobResult& r) {
  auto join = [](const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& line : lines) out += (out.empty() ? "" : "; ") + line;
    return out;
  };
  nlohmann::ordered_json flags = nlohmann::ordered_json::array();
  // Flags, not verdicts. side_work: those calls were timed to the device-wide end, so the work
  // counts. runtime_hook: work there may have escaped every event, which one process cannot
  // rule out; a person looks.
  if (!r.side_work.empty())
    flags.push_back({{"check", "side_work"},
                     {"detail",
                      "GPU work went on after the timed call returned (another stream or "
                      "thread); timed to the end of all the device's work: " +
                          join(r.side_work)}});
  if (!r.runtime_hooks.empty())
    flags.push_back({{"check", "runtime_hook"},
                     {"detail",
                      "the operator code left running beside its timed calls what the "
                      "reference's did not (work there can escape the events): " +
                          join(r.runtime_hooks)}});
  // cupti_*: what the profiler saw that the events did not, or a record that cannot be trusted.
  for (const auto& [check, lines] : r.cupti_flags)
    flags.push_back({{"check", check}, {"detail", join(lines)}});
  return flags;
}

nlohmann::ordered_json triton_result_json(const TritonJobResult& r) {
  const TritonOperator& op = *r.job.op;
  nlohmann::ordered_json j = operator_line_head(op);
  j.update(nlohmann::ordered_json{
      {"sample", r.job.sample},
      {"origin", r.job.origin},
      {"verdict", triton_verdict_name(r.graded.verdict)},
      {"call_ok", r.graded.call_ok},
      {"exec_ok", r.graded.verdict == TritonVerdict::pass},
      {"detail", r.detail},
      {"failure", triton_failure_json(r)},
      {"defect", r.defect ? triton_defect_json(*r.defect) : nlohmann::ordered_json(nullptr)}});
  if (skips_entries(r.defect)) j["skipped_entries"] = triton_skipped_entries_json(*r.defect);
  // The exception, flat, for the failure classifier (stage, type, message, traceback).
  if (r.run.status == TritonRunStatus::error) {
    j["stage"] = r.run.error.stage;
    j["exception_type"] = r.run.error.exception_type;
    j["message"] = r.run.error.message;
    j["traceback"] = r.run.error.traceback;
  }
  // An excluded operator's candidate never ran.
  j["run"] = r.graded.verdict == TritonVerdict::excluded ? nlohmann::ordered_json(nullptr)
                                                         : run_json(r.run);
  if (r.defect && r.defect->action == TritonDefectAction::zero_fill &&
      r.graded.verdict != TritonVerdict::excluded)
    j["zero_fill"] = zero_fill_json(r.run);
  if (r.defect && r.defect->action == TritonDefectAction::entry_args &&
      r.graded.verdict != TritonVerdict::excluded)
    j["entry_args"] = entry_args_json(*r.defect, r.run);
  j["compared_on"] = r.outputs ? nlohmann::ordered_json(r.compared_on) : nullptr;
  if (r.outputs) {
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    for (const EntryVerdict& e : r.outputs->entries) {
      nlohmann::ordered_json ej = {{"name", e.name}, {"status", e.status}, {"failed", e.failed}};
      if (!e.detail.empty()) ej["detail"] = e.detail;
      if (e.max_abs_error > 0) ej["max_abs_error"] = e.max_abs_error;
      entries.push_back(std::move(ej));
    }
    j["comparison"] = {{"passed", r.outputs->passed},
                       {"compared", r.outputs->compared},
                       {"failed", r.outputs->failed},
                       {"entries", std::move(entries)}};
  }
  if (r.entry_call_check) {
    // Only the entries that failed: a test makes hundreds of calls.
    nlohmann::ordered_json failed = nlohmann::ordered_json::array();
    for (const EntryVerdict& e : r.entry_call_check->entries) {
      if (!e.failed || failed.size() >= 16) continue;
      nlohmann::ordered_json ej = {{"name", e.name}, {"status", e.status}};
      if (!e.detail.empty()) ej["detail"] = e.detail;
      if (e.max_abs_error > 0) ej["max_abs_error"] = e.max_abs_error;
      failed.push_back(std::move(ej));
    }
    j["entry_call_check"] = {{"passed", r.entry_call_check->failed == 0},
                             {"compared", r.entry_call_check->compared},
                             {"failed", r.entry_call_check->failed},
                             {"failures", std::move(failed)}};
  }
  if (r.speedup) {
    j["speedup"] = {{"estimate", r.speedup->estimate},
                    {"low", r.speedup->low},
                    {"high", r.speedup->high},
                    {"confidence", r.speedup->confidence},
                    {"reference_ms", r.speedup->reference_ms},
                    {"candidate_ms", r.speedup->candidate_ms},
                    {"sites", r.speedup->sites},
                    {"rounds", r.speedup->round_ratios.size()},
                    {"round_ratios", r.speedup->round_ratios},
                    {"resamples", r.speedup->resamples}};
    if (r.speedup->t_high > 0)  // [low, high] is the union of these two
      j["speedup"]["intervals"] = {
          {"bootstrap", {r.speedup->bootstrap_low, r.speedup->bootstrap_high}},
          {"student_t", {r.speedup->t_low, r.speedup->t_high}}};
  }
  if (!r.rounds.empty()) {
    nlohmann::ordered_json rounds = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < r.rounds.size(); ++k) {
      const TritonRound& round = r.rounds[k];
      std::vector<TritonCallSite> ref, cand;
      auto site = [](const std::string& entry, const std::vector<double>& samples) {
        TritonCallSite s;
        s.entry = entry;
        s.samples_ms = samples;
        return s;
      };
      for (std::size_t i = 0; i < round.reference.size(); ++i)
        ref.push_back(site(r.round_entries[0][k][i], round.reference[i]));
      for (std::size_t i = 0; i < round.candidate.size(); ++i)
        cand.push_back(site(r.round_entries[1][k][i], round.candidate[i]));
      rounds.push_back({{"round", k},
                        {"first", round.reference_first ? "reference" : "candidate"},
                        {"reference", sites_json(ref)},
                        {"candidate", sites_json(cand)}});
    }
    j["timing"] = {{"rounds", std::move(rounds)}};
    // How each site's calls were held (python/kjudge_triton_runner.py, CudaTimer): what a reader
    // needs to know that a small operator's time is its GPU work, not its Python wrapper's.
    for (int who = 0; who < 2; ++who) {
      const char* side = who == 0 ? "reference" : "candidate";
      j["timing"]["hold_ms"][side] = r.hold_ms[who];
      j["timing"]["host_bound"][side] = r.host_bound[who];
    }
    j["timing"]["persisting_l2"] = r.persisting_l2;
  }
  if (r.timed_check) j["timing_check"] = timed_check_json(*r.timed_check);
  if (!r.flags.empty()) j["cheat_flags"] = flags_json(r.flags);
  const nlohmann::ordered_json timing_flags = triton_timing_flags(r);
  if (!timing_flags.empty()) j["timing_flags"] = timing_flags;
  if (!r.cupti.is_null()) j["cupti"] = r.cupti;
  if (r.speedup) {
    j["gpu_efficiency"] = r.efficiency;
    if (!r.efficiency_note.empty()) j["gpu_efficiency_note"] = r.efficiency_note;
  }
  if (!r.speedup) {
    j["speedup"] = nullptr;
    if (!r.speedup_note.empty()) j["speedup_note"] = r.speedup_note;
  }
  return j;
}

namespace {

RunnerErrorReport error_report(const TritonJobResult& r) {
  RunnerErrorReport e;
  if (r.run.status == TritonRunStatus::error) {
    e.stage = r.run.error.stage;
    e.exception_type = r.run.error.exception_type;
    e.message = r.run.error.message;
  }
  e.mismatch = r.graded.verdict == TritonVerdict::mismatch;
  return e;
}

}  // namespace

nlohmann::ordered_json triton_failure_json(const TritonJobResult& r) {
  const auto c = classify_triton_verdict(triton_verdict_name(r.graded.verdict), error_report(r));
  if (!c) return nullptr;
  return {{"class", failure_class_name(c->cls)},
          {"title", failure_class_title(c->cls)},
          {"cause", c->cause},
          {"rule", c->rule}};
}

namespace {

nlohmann::ordered_json reference_check_json(const TritonReferenceCheck& c) {
  nlohmann::ordered_json j = {
      {"status", c.status},
      {"detail", c.detail},
      {"second_run", c.second_run},
      {"compared_on", c.compared_on.empty() ? nlohmann::ordered_json(nullptr)
                                            : nlohmann::ordered_json(c.compared_on)}};
  if (c.outputs) {
    nlohmann::ordered_json differ = nlohmann::ordered_json::array();
    for (const EntryVerdict& e : c.outputs->entries) {
      if (!e.failed) continue;
      nlohmann::ordered_json ej = {{"name", e.name}, {"status", e.status}};
      if (!e.detail.empty()) ej["detail"] = e.detail;
      if (e.max_abs_error > 0) ej["max_abs_error"] = e.max_abs_error;
      differ.push_back(std::move(ej));
    }
    j["compared"] = c.outputs->compared;
    j["differ"] = std::move(differ);
  }
  return j;
}

}  // namespace

nlohmann::ordered_json triton_reference_json(const TritonOperator& op, const TritonRunOutcome& ref,
                                             const TritonReferenceCheck* check,
                                             const TritonDefect* defect) {
  nlohmann::ordered_json j = operator_line_head(op);
  j["defect"] = defect ? triton_defect_json(*defect) : nlohmann::ordered_json(nullptr);
  if (defect && defect->action == TritonDefectAction::skip_entries)
    j["skipped_entries"] = triton_skipped_entries_json(*defect);
  j["run"] = run_json(ref);
  nlohmann::ordered_json outs = nlohmann::ordered_json::array();
  for (const OutputEntry& e : ref.outputs.entries) {
    nlohmann::ordered_json ej = {{"name", e.name}, {"kind", output_kind_name(e.kind)}};
    if (e.kind == OutputKind::tensor) {
      ej["dtype"] = dtype_name(e.tensor.dtype);
      ej["shape"] = e.tensor.shape;
    }
    outs.push_back(std::move(ej));
  }
  j["outputs"] = std::move(outs);
  j["self_check"] = check ? reference_check_json(*check) : nlohmann::ordered_json(nullptr);
  return j;
}

nlohmann::ordered_json triton_summary_json(const TritonEvalResult& res,
                                           const nlohmann::ordered_json& run_info) {
  nlohmann::ordered_json j = {{"schema_version", 1}, {"kind", "kjudge-triton-summary"}};
  for (auto it = run_info.begin(); it != run_info.end(); ++it) j[it.key()] = it.value();
  // The software the references ran on (python, torch, triton, GPU), from the first that said.
  nlohmann::ordered_json env = nlohmann::ordered_json::object();
  for (const auto& [key, ref] : res.references)
    if (ref.env.size() > env.size()) env = ref.env;
  // Whether the timing processes took persisting L2 back before every timed repetition: what
  // they all said, or every distinct answer (a GPU without persisting L2 says why).
  std::set<std::string> persisting_l2;
  for (const TritonJobResult& r : res.results)
    persisting_l2.insert(r.persisting_l2.begin(), r.persisting_l2.end());
  if (persisting_l2.size() == 1)
    env["persisting_l2"] = *persisting_l2.begin();
  else if (!persisting_l2.empty())
    env["persisting_l2"] = fmt::format("{}", fmt::join(persisting_l2, "; "));
  j["env"] = env;
  j["totals"] = res.scores.all.to_json();
  auto group = [](const std::map<std::string, TritonTally>& m) {
    nlohmann::ordered_json g = nlohmann::ordered_json::object();
    for (const auto& [key, tally] : m) g[key] = tally.to_json();
    return g;
  };
  j["by_channel"] = group(res.scores.by_channel);
  j["by_difficulty"] = group(res.scores.by_difficulty);
  j["by_operator"] = group(res.scores.by_operator);
  // Operators whose reference does not run here (this torch/triton, this GPU), each with why.
  nlohmann::ordered_json failed = nlohmann::ordered_json::array();
  for (const auto& [key, ref] : res.references) {
    if (ref.status == TritonRunStatus::ok) continue;
    nlohmann::ordered_json f = {
        {"operator", key}, {"status", triton_run_status_name(ref.status)}, {"detail", ref.detail}};
    if (ref.status == TritonRunStatus::error) {
      f["stage"] = ref.error.stage;
      f["exception_type"] = ref.error.exception_type;
      f["message"] = ref.error.message;
    }
    failed.push_back(std::move(f));
  }
  j["reference_failures"] = std::move(failed);
  // References that cannot judge anyone although they run: each with what differed or what
  // they returned (docs/triton.md, "Self-inconsistent references").
  nlohmann::ordered_json unstable = nlohmann::ordered_json::array(),
                         no_output = nlohmann::ordered_json::array(),
                         unchecked = nlohmann::ordered_json::array();
  for (const auto& [key, check] : res.checks) {
    nlohmann::ordered_json c = {{"operator", key}};
    const nlohmann::ordered_json body = reference_check_json(check);
    for (auto it = body.begin(); it != body.end(); ++it) c[it.key()] = it.value();
    if (check.status == "unstable") unstable.push_back(std::move(c));
    if (check.status == "no_output") no_output.push_back(std::move(c));
    if (check.status == "unchecked") unchecked.push_back(key);
  }
  j["reference_unstable"] = std::move(unstable);
  j["reference_no_output"] = std::move(no_output);
  j["reference_unchecked"] = std::move(unchecked);
  // Known test defects (triton/judge/defects.h): the operators not run, each with why, and the
  // rows applied to the others (entries not compared, the zero fill).
  nlohmann::ordered_json excluded = nlohmann::ordered_json::array(),
                         applied = nlohmann::ordered_json::array();
  for (const auto& [key, d] : res.defects) {
    if (d.action == TritonDefectAction::exclude)
      excluded.push_back({{"operator", key}, {"reason", d.reason}});
    else
      applied.push_back(triton_defect_json(d));
  }
  j["excluded"] = std::move(excluded);
  j["defects_applied"] = std::move(applied);
  // Candidates the static pass flagged, with the checks: where a reviewer should look first.
  nlohmann::ordered_json flagged = nlohmann::ordered_json::array();
  for (const TritonJobResult& r : res.results) {
    std::set<std::string> checks;
    for (const StaticFlag& f : r.flags) checks.insert(f.code);
    for (const auto& f : triton_timing_flags(r)) checks.insert(f["check"].get<std::string>());
    if (checks.empty()) continue;
    flagged.push_back({{"operator", op_key(*r.job.op)},
                       {"sample", r.job.sample},
                       {"origin", r.job.origin},
                       {"checks", checks}});
  }
  j["flagged"] = std::move(flagged);
  // Failure classes (src/triton/judge/failure.h) per channel and difficulty.
  std::map<std::string, FailureCounts> counts;
  for (const TritonJobResult& r : res.results) {
    const auto c = classify_triton_verdict(triton_verdict_name(r.graded.verdict), error_report(r));
    if (c) counts[r.graded.channel].add(r.graded.difficulty, c->cls);
  }
  nlohmann::ordered_json classes = nlohmann::ordered_json::object();
  for (const auto& [channel, fc] : counts) classes[channel] = fc.to_json();
  j["failure_classes"] = std::move(classes);
  // Which basis each timed operator's GPU efficiency rests on (docs/triton.md, "GPU
  // efficiency"): stated formulas, or the runner's lower bound and why.
  nlohmann::ordered_json work = nlohmann::ordered_json::object();
  for (const TritonJobResult& r : res.results) {
    if (!r.efficiency.is_object()) continue;
    const std::string key = op_key(*r.job.op);
    if (work.contains(key)) continue;
    work[key] = {{"basis", r.work.basis},
                 {"bytes", r.work.bytes},
                 {"flops", r.work.flops ? nlohmann::ordered_json(*r.work.flops) : nullptr},
                 {"formulas", r.work.formulas},
                 {"note", r.work.note}};
  }
  j["work"] = std::move(work);
  return j;
}

}  // namespace kjudge::triton
