// Timing in the Triton judge: a correct candidate and its reference in interleaved timing
// processes, every timed call's output checked, the speedup and the checks that withhold it.
// Declared in triton/judge/eval_timing.h.
#include "triton/judge/eval_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/random_secret.h"
#include "perf/interleave.h"
#include "triton/judge/eval_efficiency.h"
#include "triton/judge/eval_grade.h"
#include "triton/judge/eval_runs.h"
#include "triton/timing/cupti.h"

namespace kjudge::triton {
namespace fs = std::filesystem;

namespace {

// The job's secret for new content: the option's, else one nobody can know in advance.
std::uint64_t job_secret(const TritonEvalOptions& opt) {
  if (opt.timing.perturb_seed != 0) return opt.timing.perturb_seed;
  return (random_u64() >> 1) | 1;  // positive as a JSON integer anywhere, and never "none given"
}

// Per call site, what the candidate's calls in its test-mode run already gave otherwise than
// the reference's, although the test passed: outputs the test never looks at (an auxiliary
// result, a scratch buffer handed in), which the timed calls are not judged by either. Taken
// from the test-mode runs, whose results are checked, so that a candidate cannot widen it by
// behaving otherwise once timed.
std::vector<std::set<std::string>> not_compared(const TritonRunOutcome& ref,
                                                const TritonRunOutcome& cand) {
  std::vector<std::set<std::string>> out;
  const std::size_t n = std::min(ref.call_outputs.size(), cand.call_outputs.size());
  for (std::size_t i = 0; i < n; ++i) {
    std::set<std::string> names;
    const TritonCallOutput& a = ref.call_outputs[i];
    const TritonCallOutput& b = cand.call_outputs[i];
    if (a.entry == b.entry && a.outputs && b.outputs)
      for (const EntryVerdict& e : compare_outputs(*a.outputs, *b.outputs).entries)
        if (e.failed) names.insert(e.name);
    out.push_back(std::move(names));
  }
  return out;
}

// One timing process's calls against the reference's first process (`expected`): a candidate's
// differences are failures (unless the reference is found to disagree with itself there), a
// later reference process's differences mark where it does.
void check_process(
    const std::vector<TritonCallSite>& expected, const std::vector<TritonCallSite>& got,
    bool reference, const std::vector<std::set<std::string>>& skip,
    const std::set<std::size_t>& unjudged, const std::string& process, TritonTimedCheck& tc,
    std::set<std::pair<std::size_t, std::size_t>>& unstable,
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, nlohmann::ordered_json>>& failures) {
  for (std::size_t s = 0; s < got.size(); ++s) {
    const std::vector<OutputSet>& calls = got[s].check.outputs;
    if (unjudged.count(s)) {  // a known defect of the test: timed, not compared
      if (!reference) {
        tc.timed += calls.size();
        tc.unchecked += calls.size();
      }
      continue;
    }
    const bool skips = !reference && s < skip.size() && !skip[s].empty();
    for (std::size_t i = 0; i < calls.size(); ++i) {
      // A call the reference did not make (another entry at this place, or a call more) has
      // nothing to be compared with; the speedup is refused for it anyway.
      const bool known = s < expected.size() && expected[s].entry == got[s].entry &&
                         i < expected[s].check.outputs.size();
      if (!reference) ++tc.timed;
      if (!known) {
        if (!reference) ++tc.unchecked;
        continue;
      }
      const OutputsVerdict v = skips
                                   ? compare_outputs(without(expected[s].check.outputs[i], skip[s]),
                                                     without(calls[i], skip[s]))
                                   : compare_outputs(expected[s].check.outputs[i], calls[i]);
      if (reference) {
        if (v.compared > 0 || v.failed > 0) ++tc.reference_compared;
        if (v.failed > 0) {
          ++tc.reference_differs;
          unstable.insert({s, i});
        }
        continue;
      }
      if (v.failed > 0) {
        failures.push_back({{s, i},
                            {{"process", process},
                             {"site", s},
                             {"call", i},
                             {"entry", got[s].entry},
                             {"detail", v.detail},
                             {"sampled", v.sampled > 0}}});
      } else if (v.compared == 0) {
        ++tc.unchecked;  // nothing to compare: no tensor in the reference's output
      } else {
        ++tc.checked;
        if (v.sampled > 0) ++tc.sampled;
      }
    }
  }
}

// The timing processes of one job, in plan order. With opt.prestart, process i + 1 is started
// while process i runs: it imports torch and triton, then waits on its gate (TritonGate) for
// its request and the go, which it gets once process i has ended; so no two processes ever use
// the GPU at once. Without it, or where a gate cannot be made, each starts on its turn.
class TimedProcesses {
 public:
  TimedProcesses(const TritonEvalOptions& opt, const TritonJobResult& r, const std::string& base,
                 const std::vector<PlannedRun>& plan)
      : opt_(opt), r_(r), base_(base), plan_(plan), runner_(opt.runner) {
    runner_.profiler = opt.profiler;  // timing processes only: test-mode runs go without
  }
  TimedProcesses(const TimedProcesses&) = delete;
  TimedProcesses& operator=(const TimedProcesses&) = delete;
  ~TimedProcesses() {
    if (!next_) return;
    next_->gate->cancel();
    next_->out.wait();
    forget_workspace(opt_, next_->ws);
  }

  // Runs process i of the plan with `req` (its code must be process i's).
  TritonRunOutcome run(std::size_t i, const TritonRunRequest& req) {
    std::optional<Started> cur;
    if (next_ && next_index_ == i) cur.swap(next_);
    next_.reset();
    if (opt_.prestart && !cur) cur = start(i);
    if (opt_.prestart && i + 1 < plan_.size()) {
      next_ = start(i + 1);
      next_index_ = i + 1;
    }
    TritonRunOutcome o;
    const fs::path ws = cur ? cur->ws : workspace(i);
    if (!cur) {
      clear_workspace(ws);
      o = run_triton(runner_, req, ws);
    } else if (!cur->gate->release(req)) {
      cur->out.wait();
      o.status = TritonRunStatus::judge_error;
      o.detail = "judge: cannot hand the timing process its request";
    } else {
      o = cur->out.get();
    }
    forget_workspace(opt_, ws);
    return o;
  }

 private:
  struct Started {
    std::unique_ptr<TritonGate> gate;
    std::future<TritonRunOutcome> out;
    fs::path ws;
  };

  fs::path workspace(std::size_t i) const {
    const PlannedRun& p = plan_[i];
    return opt_.work_dir / fmt::format("{}-{}-time-{}{}", base_,
                                       p.who == 0 ? "ref" : fmt::format("s{}", r_.job.sample),
                                       p.warmup ? "w" : "r", p.index);
  }
  // Process i started and waiting at its gate; nullopt where the gate could not be made.
  std::optional<Started> start(std::size_t i) const {
    Started s;
    s.ws = workspace(i);
    clear_workspace(s.ws);
    try {
      const TritonOperator& op = *r_.job.op;
      s.gate = std::make_unique<TritonGate>(
          s.ws, plan_[i].who == 0 ? op.reference_code : r_.job.code, op.test_code);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    s.out = std::async(std::launch::async, [runner = &runner_, gate = s.gate.get()] {
      return run_triton_gated(*runner, *gate);
    });
    return s;
  }

  const TritonEvalOptions& opt_;
  const TritonJobResult& r_;
  std::string base_;
  const std::vector<PlannedRun>& plan_;
  TritonRunner runner_;  // the options' runner, with the profiler where asked for
  std::optional<Started> next_;
  std::size_t next_index_ = 0;
};

// The event speedup held against the one CUPTI gives (issue 31): a timer, a report or a
// sample forged in the runner's process moves the events' figure, not the spans CUPTI recorded
// of the same calls. For an honest candidate the two differ only by the events' own overhead
// (a few us a call, the same on both sides), which pulls the event speedup towards 1: above 1
// it is the smaller. So an event speedup above 1.10 that is also above 1.10 x max(1, CUPTI's)
// is a `cupti_speedup` flag, which withholds the speedup. Compared on the sites neither side
// held host-bound (their samples hold host waits CUPTI does not see) or timed to the
// device-wide end, in any round, and where every call launched GPU work.
void cupti_speedup_check(TritonJobResult& r, const std::vector<TritonRound>& rounds,
                         const std::vector<std::vector<std::vector<double>>> (&spans)[2],
                         const std::set<std::size_t>& device_end) {
  constexpr double kSlack = 1.10;
  if (!r.cupti.is_object() || !r.cupti.value("used", false)) return;
  std::size_t n_sites = 0;
  for (const TritonRound& round : rounds)
    n_sites = std::max({n_sites, round.reference.size(), round.candidate.size()});
  std::vector<bool> keep(n_sites, true);
  for (int who = 0; who < 2; ++who)
    for (std::size_t s = 0; s < n_sites; ++s)
      if (s >= r.host_bound[who].size() || r.host_bound[who][s]) keep[s] = false;
  for (std::size_t k = 0; k < rounds.size(); ++k)
    for (int who = 0; who < 2; ++who) {
      const auto& side = spans[who][k];
      const auto& samples = who == 0 ? rounds[k].reference : rounds[k].candidate;
      for (std::size_t s = 0; s < n_sites; ++s) {
        if (s >= side.size() || s >= samples.size() || side[s].size() != samples[s].size()) {
          keep[s] = false;
          continue;
        }
        for (double v : side[s])
          if (v <= 0) keep[s] = false;
      }
    }
  for (std::size_t s : device_end)
    if (s < n_sites) keep[s] = false;
  std::vector<TritonRound> events, cupti;
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    TritonRound e, c;
    e.reference_first = c.reference_first = rounds[k].reference_first;
    for (std::size_t s = 0; s < n_sites; ++s) {
      if (!keep[s]) continue;
      e.reference.push_back(rounds[k].reference[s]);
      e.candidate.push_back(rounds[k].candidate[s]);
      c.reference.push_back(spans[0][k][s]);
      c.candidate.push_back(spans[1][k][s]);
    }
    events.push_back(std::move(e));
    cupti.push_back(std::move(c));
  }
  std::size_t kept = 0;
  for (bool b : keep) kept += b ? 1 : 0;
  nlohmann::ordered_json j = {{"sites", kept}, {"of", n_sites}};
  if (kept == 0) {
    j["note"] = "no site both sides timed without a host-bound call or an empty one";
    r.cupti["speedup_check"] = j;
    return;
  }
  try {
    const double e = triton_round_speedup(events, 0.95, 200).estimate;
    const double c = triton_round_speedup(cupti, 0.95, 200).estimate;
    j["events"] = e;
    j["cupti"] = c;
    j["slack"] = kSlack;
    r.cupti["speedup_check"] = j;
    if (e > kSlack && e > kSlack * std::max(1.0, c))
      r.cupti_flags.push_back(
          {"cupti_speedup",
           {fmt::format("the events give a speedup of {:.3f} on {} site(s), the GPU work CUPTI "
                        "recorded in the same calls {:.3f}: the timed calls' times are not the "
                        "GPU's",
                        e, kept, c)}});
  } catch (const std::invalid_argument& e) {
    j["note"] = e.what();
    r.cupti["speedup_check"] = j;
  }
}

}  // namespace

// Times reference and candidate in interleaved rounds (perf/interleave.h: pairs alternating
// which side goes first, warm-up pairs first and discarded), one process each, and computes the
// speedup over the timed rounds. Both sides' processes pay the same per-process costs (a fresh
// Triton cache, the JIT, the allocator); the order alternating is what removes the bias of
// always timing one side first. Every timed call's output is checked (TritonTimedCheck): the
// reference's first process, always the first of the plan, decides which arguments get new
// content and hands that plan, with the job's secret, to every later process; a candidate whose
// timed outputs differ from the reference's on the same inputs gets no speedup, and the verdict
// timed_mismatch.
void time_job(const TritonEvalOptions& opt, TritonJobResult& r, const TritonRunOutcome& reference,
              const std::string& base,
              const std::function<void(const std::string&, const TritonRunOutcome&)>& report) {
  const std::vector<PlannedRun> plan = interleave_plan(opt.rounds, opt.warmup_rounds);
  std::vector<TritonRound> rounds(static_cast<std::size_t>(opt.rounds));
  std::vector<std::vector<std::string>> entries[2];
  nlohmann::ordered_json env;  // the last timing run's: the GPU it ran on
  for (auto& side : entries) side.resize(rounds.size());
  TritonTimedCheck& tc = r.timed_check.emplace();
  tc.perturb_seed = job_secret(opt);
  TimedProcesses processes(opt, r, base, plan);
  nlohmann::json check_plan;             // from the reference's first process
  std::vector<TritonCallSite> expected;  // its sites: their outputs are the expected ones
  std::set<std::pair<std::size_t, std::size_t>> unstable;
  std::vector<std::pair<std::pair<std::size_t, std::size_t>, nlohmann::ordered_json>> failures;
  const std::vector<std::set<std::string>> skip = not_compared(reference, r.run);
  std::set<std::size_t> unjudged;  // the defect table's sites (triton/judge/defects.h)
  // What the processes had running beside their timed calls (TritonCallSite::watch): the
  // reference's, and the candidate's with the line each would make; only what the reference's
  // never showed is held against the candidate (a thread torch or triton starts on their own
  // shows on both sides).
  std::set<std::string> reference_watch;
  std::vector<std::pair<std::string, std::string>> candidate_watch;
  TritonCuptiJudge cupti;  // with --cupti: every timing process's record against its marks
  // Per side and timed round, per site, the CUPTI span of each timed call (ms): empty where that
  // process's record was not used.
  std::vector<std::vector<std::vector<double>>> cupti_spans[2];
  std::set<std::size_t> device_end;  // sites some timed round timed to the device-wide end
  for (auto& side : cupti_spans) side.resize(static_cast<std::size_t>(opt.rounds));
  if (skips_entries(r.defect))
    for (int s : r.defect->sites) unjudged.insert(static_cast<std::size_t>(s));
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedRun& p = plan[i];
    const bool ref = p.who == 0;
    const std::string what = fmt::format("{} {}{}", ref ? "reference" : "candidate",
                                         p.warmup ? "warm-up " : "round ", p.index);
    TritonRunOutcome o =
        processes.run(i, make_request(opt, *r.job.op, ref ? r.job.op->reference_code : r.job.code,
                                      true, tc.perturb_seed, check_plan));
    report(what + " timing", o);
    if (o.status != TritonRunStatus::ok) {
      r.speedup_note = fmt::format("the {} timing run failed: {}", what, o.detail);
      // A candidate's timing report refused (its channel forged, its report saying otherwise
      // than it committed call by call, the runner's own code rebound) is the candidate's
      // doing: its verdict, not only a missing speedup.
      if (!ref && o.status == TritonRunStatus::refused) {
        r.graded.verdict = TritonVerdict::refused;
        r.detail = fmt::format("the {} timing run: {}", what, o.detail);
      }
      return;
    }
    env = o.env;
    r.persisting_l2.insert(o.env.is_object() && o.env.contains("persisting_l2") &&
                                   o.env["persisting_l2"].is_string()
                               ? o.env["persisting_l2"].get<std::string>()
                               : std::string("not reported"));
    if (o.profiled) {
      std::vector<std::string> names;
      for (const TritonCallSite& site : o.sites) names.push_back(site.entry);
      TritonCuptiProcess cp = triton_cupti_process(o);
      if (!p.warmup && cp.used) {
        // Each timed call's CUPTI span, in ms, site by site: the speedup CUPTI gives.
        auto& spans = cupti_spans[p.who][static_cast<std::size_t>(p.index)];
        for (const TritonCuptiSite& site : cp.sites) {
          spans.emplace_back();
          for (double ns : site.span_ns) spans.back().push_back(ns / 1e6);
        }
      }
      cupti.add(std::move(cp), ref, what, std::move(names));
      o.profile.clear();
      o.profile.shrink_to_fit();
    }
    if (check_plan.is_null()) {
      if (!ref) {  // interleave_plan starts every job with a reference-first pair
        r.speedup_note = "judge: the first timing process was not the reference's";
        return;
      }
      check_plan = triton_check_plan(o.sites);
      for (std::size_t s = 0; s < check_plan.size(); ++s) {
        const auto& site = check_plan[s];
        tc.sites.push_back({{"entry", site["entry"]},
                            {"mode", site["mode"]},
                            {"reason", site["reason"]},
                            {"perturbed", site["perturb"]},
                            {"observed", site["observe"]},
                            {"calls", site["reps"]},
                            {"whole", site["whole"]},
                            {"sample", site["sample"]},
                            {"not_compared", s < skip.size() ? skip[s] : std::set<std::string>{}}});
        if (unjudged.count(s)) tc.sites.back()["defect_skipped"] = true;
      }
      expected = o.sites;
    } else {
      check_process(expected, o.sites, ref, skip, unjudged, what, tc, unstable, failures);
    }
    for (TritonCallSite& site : o.sites) site.check.outputs.clear();  // compared: not kept
    for (const TritonCallSite& site : o.sites)
      for (const std::string& w : site.watch) {
        if (ref)
          reference_watch.insert(w);
        else
          candidate_watch.emplace_back(w, fmt::format("{}: {}: {}", what, site.entry, w));
      }
    if (p.warmup) continue;
    if (p.index == 0) {
      r.bytes[p.who] = bytes_of(o.sites);
      if (ref) r.reference_sites = o.sites;
    }
    TritonRound& round = rounds[static_cast<std::size_t>(p.index)];
    // The first of a pair in the plan decides the round's order.
    if (i % 2 == 0) round.reference_first = ref;
    std::vector<std::vector<double>>& side = ref ? round.reference : round.candidate;
    for (std::size_t s = 0; s < o.sites.size(); ++s) {
      const TritonCallSite& site = o.sites[s];
      if (r.hold_ms[p.who].size() <= s) {
        r.hold_ms[p.who].resize(s + 1, 0.0);
        r.host_bound[p.who].resize(s + 1, false);
      }
      r.hold_ms[p.who][s] = std::max(r.hold_ms[p.who][s], site.hold_ms);
      if (site.host_bound) r.host_bound[p.who][s] = true;
      side.push_back(site.samples_ms);
      entries[p.who][static_cast<std::size_t>(p.index)].push_back(site.entry);
      if (site.end == "device") device_end.insert(s);
      if (!ref && site.end == "device")
        r.side_work.push_back(fmt::format("round {}: {} ran {:.3f} ms past its call", p.index,
                                          site.entry, site.tail_ms));
    }
  }
  for (const auto& [item, line] : candidate_watch)
    if (!reference_watch.count(item)) r.runtime_hooks.push_back(line);
  if (!opt.profiler.empty()) {
    r.cupti_flags = cupti.flags();
    r.cupti = cupti.json();
    cupti_speedup_check(r, rounds, cupti_spans, device_end);
  }
  // Where the reference's own processes disagree, a difference says nothing about the candidate.
  for (const auto& [at, failure] : failures) {
    if (unstable.count(at)) {
      ++tc.unchecked;
      ++tc.reference_unstable;
      continue;
    }
    ++tc.checked;
    if (failure["sampled"].get<bool>()) ++tc.sampled;
    if (tc.failed++ == 0) tc.first_failure = failure;
  }
  tc.complete = true;
  r.rounds = rounds;
  r.round_entries[0] = entries[0];
  r.round_entries[1] = entries[1];
  // Evidence the operator code cannot touch decides (issue 31): where the profiler's record
  // contradicts the timing, there is no speedup. A wrong timed output (below) is the stronger
  // verdict and takes precedence.
  std::string evidence;
  for (const auto& [check, lines] : r.cupti_flags)
    if (TritonCuptiJudge::decides(check) && evidence.empty())
      evidence = check + ": " + (lines.empty() ? std::string() : lines.front());
  if (tc.failed > 0) {
    const auto& f = tc.first_failure;
    r.graded.verdict = TritonVerdict::timed_mismatch;
    r.detail = fmt::format(
        "{} of {} checked timed calls differ from the reference's output on the same inputs; "
        "first: {}, call {} of {} (site {}): {}",
        tc.failed, tc.checked, f["process"].get<std::string>(), f["call"].get<std::size_t>(),
        f["entry"].get<std::string>(), f["site"].get<std::size_t>(),
        f["detail"].get<std::string>());
    r.speedup_note = "not counted: " + r.detail;
    return;
  }
  if (!evidence.empty()) {
    r.graded.verdict = TritonVerdict::timing_refused;
    r.detail = "the CUPTI profiler's record contradicts the timing: " + evidence;
    r.speedup_note = "not counted: " + r.detail;
    return;
  }
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    const auto& re = entries[0][k];
    const auto& ce = entries[1][k];
    for (std::size_t i = 0; i < std::min(re.size(), ce.size()); ++i)
      if (re[i] != ce[i]) {
        r.speedup_note = fmt::format("timed call {} is {} in the reference, {} in the candidate", i,
                                     re[i], ce[i]);
        return;
      }
  }
  try {
    r.speedup = triton_round_speedup(rounds);
    r.graded.speedup = r.speedup->estimate;
  } catch (const std::invalid_argument& e) {
    r.speedup_note = e.what();
    return;
  }
  r.efficiency = efficiency_json(opt, r, env);
}

}  // namespace kjudge::triton
