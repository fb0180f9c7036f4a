// The Triton judge's entry: every job through the runner's test-mode runs (on the queue, each
// operator graded as soon as its own runs have ended), then the timing of the correct ones, and
// the scores. Declared, and explained, in triton/judge/eval.h; its pieces are the eval_*.{h,cpp}
// files beside it (the queue, the runs, grading, timing, efficiency, the JSON records).
#include "triton/judge/eval.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <optional>

#include "core/random_secret.h"
#include "triton/judge/eval_grade.h"
#include "triton/judge/eval_queue.h"
#include "triton/judge/eval_runs.h"
#include "triton/judge/eval_timing.h"

namespace kjudge::triton {

TritonEvalResult evaluate_triton(const std::vector<TritonJob>& jobs,
                                 const TritonEvalOptions& options) {
  // One secret for every test-mode run of this evaluation: the reference's and the candidates'
  // sampled entry calls keep the same positions, which none of them knows before its call ends.
  TritonEvalOptions opt = options;
  if (opt.test_secret == 0) opt.test_secret = (random_u64() >> 1) | 1;
  TritonEvalResult res;
  res.results.resize(jobs.size());
  // What the caller is handed as soon as it is final (opt.on_reference, opt.on_result), one
  // call at a time.
  std::mutex out_mu;
  auto emit = [&](const TritonJobResult& r) {
    if (!opt.on_result) return;
    std::lock_guard<std::mutex> lock(out_mu);
    opt.on_result(r);
  };
  // Known test defects (triton/judge/defects.h): an excluded operator is not run at all, and its
  // candidates get the verdict `excluded`, which counts in no accuracy.
  std::vector<std::size_t> to_run;  // the jobs that are run
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const TritonJob& job = jobs[k];
    TritonJobResult& r = res.results[k];
    r.job = job;
    r.flags = triton_static_flags(job);
    r.graded.op = job.op->name;
    r.graded.channel = std::string(channel_name(job.op->channel));
    r.graded.difficulty = job.op->difficulty;
    if (const TritonDefect* d = find_triton_defect(opt.defects, *job.op)) {
      r.defect = *d;
      res.defects.emplace(op_key(*job.op), *d);
      if (d->action == TritonDefectAction::exclude) {
        r.graded.verdict = TritonVerdict::excluded;
        r.detail = "not run: the operator's own test is broken (a known test defect): " + d->reason;
        if (opt.speedup) r.speedup_note = "not timed: the operator is excluded";
        emit(r);
        continue;
      }
    }
    to_run.push_back(k);
  }

  // Per operator: its reference's run and its candidates' test runs, all independent; once they
  // have all ended, the reference's second run where one is needed, then the check and the
  // grades. So each operator is judged as soon as its own runs are done, not after everyone's.
  struct OperatorRuns {
    const TritonOperator* op = nullptr;
    std::vector<std::size_t> jobs;       // its jobs that run, in the jobs' order
    std::optional<std::size_t> self;     // the first of them running the reference's own code
    TritonRunOutcome reference, second;  // second: the reference's second run, where made
    std::size_t left = 0;                // test runs not yet ended
  };
  std::vector<OperatorRuns> ops;
  std::map<const TritonOperator*, std::size_t> op_index;
  for (std::size_t k : to_run) {
    auto [it, added] = op_index.emplace(jobs[k].op, ops.size());
    if (added) {
      ops.emplace_back();
      ops.back().op = jobs[k].op;
      ops.back().left = 1;  // the reference's run
    }
    OperatorRuns& o = ops[it->second];
    o.jobs.push_back(k);
    ++o.left;
    // A job running the reference's own code (--self) is the reference's second run already.
    if (!o.self && jobs[k].code == o.op->reference_code) o.self = k;
  }
  // The runs the progress lines count. A second reference run is counted in advance for each
  // operator without a self job, and taken out again when its reference fails.
  std::size_t total = ops.size() + to_run.size();
  if (opt.check_references)
    for (const OperatorRuns& o : ops) total += o.self ? 0 : 1;
  std::size_t done = 0;
  std::mutex progress_mu;
  auto report = [&](const std::string& what, const TritonRunOutcome& o) {
    if (!opt.progress) return;
    std::lock_guard<std::mutex> lock(progress_mu);
    opt.progress(fmt::format("[{}/{}] {} {} {:.1f}s{}{}", ++done, total, what,
                             triton_run_status_name(o.status), o.seconds, phases_text(o),
                             o.detail.empty() ? "" : ": " + o.detail.substr(0, 160)));
  };
  // What each call gave in test mode matters to the grading where the reference's test result
  // holds no tensor (compared_on entry_calls), and to the timed calls' check (not_compared): it
  // is let go as soon as nothing needs it.
  auto release = [](TritonRunOutcome& o) { std::vector<TritonCallOutput>().swap(o.call_outputs); };

  std::mutex res_mu;  // res.references and res.checks, filled as operators end
  // The operator's check and grades, handed out as soon as they are known: its reference line
  // first, then each candidate that is not to be timed (the timed ones once timed, below).
  auto finish = [&](OperatorRuns& o, const TritonRunOutcome* second, const std::string& name) {
    const std::string key = op_key(*o.op);
    const TritonDefect* d = find_triton_defect(opt.defects, *o.op);
    TritonReferenceCheck check =
        check_reference(o.reference, second, name,
                        d ? std::optional<TritonDefect>(*d) : std::optional<TritonDefect>());
    release(o.second);
    TritonRunOutcome* ref = nullptr;
    TritonReferenceCheck* checked = nullptr;
    {
      // std::map: what other operators insert meanwhile moves none of these.
      std::lock_guard<std::mutex> lock(res_mu);
      ref = &(res.references[key] = std::move(o.reference));
      checked = &(res.checks[key] = std::move(check));
    }
    for (std::size_t k : o.jobs) {
      TritonJobResult& r = res.results[k];
      grade(r, *ref, *checked);
      if (!opt.speedup || r.graded.verdict != TritonVerdict::pass) release(r.run);
      if (opt.speedup && r.graded.verdict != TritonVerdict::pass)
        r.speedup_note = "not timed: only correct candidates are";
    }
    {
      std::lock_guard<std::mutex> lock(out_mu);
      if (opt.on_reference) opt.on_reference(*o.op, *ref, *checked, d);
      for (std::size_t k : o.jobs) {
        const TritonJobResult& r = res.results[k];
        if (!opt.speedup || r.graded.verdict != TritonVerdict::pass)
          if (opt.on_result) opt.on_result(r);
      }
    }
    if (!opt.speedup) release(*ref);
  };

  RunQueue queue(opt.workers);
  // The second run of a reference that ran: a job running the reference's own code (--self) is
  // one already; otherwise, with check_references, one more test-mode run.
  auto settle = [&](OperatorRuns& o) {
    if (o.self) {
      finish(o, &res.results[*o.self].run, "self candidate");
      return;
    }
    if (opt.check_references && o.reference.status == TritonRunStatus::ok) {
      queue.push_front([&] {
        o.second =
            run_one(opt, *o.op, o.op->reference_code,
                    fmt::format("{}-{}-ref2", channel_name(o.op->channel), slug(o.op->name)));
        report(op_key(*o.op) + " reference (second run)", o.second);
        finish(o, &o.second, "second reference run");
      });
      return;
    }
    finish(o, nullptr, "");
  };
  std::mutex left_mu;
  auto ended = [&](OperatorRuns& o) {  // one of the operator's test runs has ended
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(left_mu);
      last = --o.left == 0;
    }
    if (last) settle(o);
  };
  for (OperatorRuns& o : ops)
    queue.push_back([&] {
      o.reference =
          run_one(opt, *o.op, o.op->reference_code,
                  fmt::format("{}-{}-ref", channel_name(o.op->channel), slug(o.op->name)));
      if (opt.check_references && !o.self && o.reference.status != TritonRunStatus::ok) {
        std::lock_guard<std::mutex> lock(progress_mu);
        --total;  // its second run, counted in advance, is not made: the reference failed
      }
      report(op_key(*o.op) + " reference", o.reference);
      ended(o);
    });
  for (std::size_t k : to_run)
    queue.push_back([&, k] {
      const TritonJob& job = jobs[k];
      TritonJobResult& r = res.results[k];
      r.run = run_one(
          opt, *job.op, job.code,
          fmt::format("{}-{}-s{}", channel_name(job.op->channel), slug(job.op->name), job.sample));
      report(fmt::format("{} sample {}", op_key(*job.op), job.sample), r.run);
      ended(ops[op_index.at(job.op)]);
    });
  queue.run();

  if (opt.speedup) {
    // One process at a time, after every test run: a timed run holds the GPU alone.
    for (TritonJobResult& r : res.results) {
      if (r.graded.verdict != TritonVerdict::pass) continue;  // handed out above
      const std::string key = op_key(*r.job.op);
      time_job(opt, r, res.references[key],
               fmt::format("{}-{}", channel_name(r.job.op->channel), slug(r.job.op->name)),
               [&](const std::string& what, const TritonRunOutcome& o) {
                 if (opt.progress)
                   opt.progress(fmt::format("{} sample {} {} {} {:.1f}s{}", key, r.job.sample, what,
                                            triton_run_status_name(o.status), o.seconds,
                                            phases_text(o)));
               });
      release(r.run);
      if (opt.progress)
        opt.progress(fmt::format("{} sample {} speedup {}", key, r.job.sample,
                                 r.speedup
                                     ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", r.speedup->estimate,
                                                   r.speedup->low, r.speedup->high)
                                     : r.speedup_note));
      emit(r);
    }
  }
  std::vector<TritonGraded> graded;
  for (const TritonJobResult& r : res.results) graded.push_back(r.graded);
  res.scores = score_triton(graded);
  return res;
}

StaticContext triton_context(const TritonOperator& op) {
  StaticContext ctx;
  ctx.path = TimedPath::triton;
  ctx.problem_text = op.simple_instruction + "\n" + op.complex_instruction;
  collect_seeds(op.test_code, ctx.public_seeds);
  return ctx;
}

std::vector<StaticFlag> triton_static_flags(const TritonJob& job) {
  return static_flags({{job.op->file, job.code}}, triton_context(*job.op));
}

}  // namespace kjudge::triton
