#include "eval/triton_eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <mutex>
#include <thread>

namespace kjudge {
namespace fs = std::filesystem;

namespace {

std::string op_key(const TritonOperator& op) {
  return std::string(channel_name(op.channel)) + "/" + op.name;
}

// A folder name from an operator name ("torch.div" stays readable, "../x" cannot escape).
std::string slug(const std::string& s) {
  std::string out;
  for (char c : s)
    out +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
  if (out.empty() || out[0] == '.') out = "_" + out;
  return out;
}

// Runs fn(0..n-1) on `workers` threads.
void parallel(std::size_t n, int workers, const std::function<void(std::size_t)>& fn) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  const std::size_t count = std::max<std::size_t>(1, std::min<std::size_t>(workers, n));
  for (std::size_t t = 0; t < count; ++t)
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < n; i = next++) fn(i);
    });
  for (auto& t : threads) t.join();
}

TritonRunOutcome run_one(const TritonEvalOptions& opt, const TritonOperator& op,
                         const std::string& code, bool time, const std::string& ws_name) {
  TritonRunRequest req;
  req.code = code;
  req.test_code = op.test_code;
  req.seed = opt.seed;
  req.test = !time;
  req.time = time;
  req.timing = opt.timing;
  req.require_torch = opt.require_torch;
  const fs::path ws = opt.work_dir / ws_name;
  std::error_code ec;
  fs::remove_all(ws, ec);  // a leftover of an earlier run must not leak into this one
  TritonRunOutcome out = run_triton(opt.runner, req, ws);
  if (!opt.keep_workspaces) fs::remove_all(ws, ec);
  return out;
}

// The candidate's verdict from its own run and the reference's.
void grade(TritonJobResult& r, const TritonRunOutcome& ref) {
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
  r.outputs = compare_outputs(ref.outputs, c.outputs);
  r.graded.verdict = r.outputs->passed ? TritonVerdict::pass : TritonVerdict::mismatch;
  r.detail = r.outputs->detail;
}

std::vector<std::vector<double>> samples_of(const std::vector<TritonCallSite>& sites) {
  std::vector<std::vector<double>> out;
  for (const TritonCallSite& s : sites) out.push_back(s.samples_ms);
  return out;
}

void time_job(const TritonEvalOptions& opt, TritonJobResult& r, const TritonRunOutcome& ref_time,
              const std::string& ws_name) {
  if (ref_time.status != TritonRunStatus::ok) {
    r.speedup_note = "the reference's timing run failed: " + ref_time.detail;
    return;
  }
  TritonRunOutcome cand = run_one(opt, *r.job.op, r.job.code, true, ws_name);
  if (cand.status != TritonRunStatus::ok) {
    r.speedup_note = "the timing run failed: " + cand.detail;
    return;
  }
  r.reference_sites = ref_time.sites;
  r.candidate_sites = cand.sites;
  for (std::size_t i = 0; i < std::min(ref_time.sites.size(), cand.sites.size()); ++i)
    if (ref_time.sites[i].entry != cand.sites[i].entry) {
      r.speedup_note = fmt::format("timed call {} is {} in the reference, {} in the candidate", i,
                                   ref_time.sites[i].entry, cand.sites[i].entry);
      return;
    }
  try {
    r.speedup = triton_speedup(samples_of(ref_time.sites), samples_of(cand.sites));
    r.graded.speedup = r.speedup->estimate;
  } catch (const std::invalid_argument& e) {
    r.speedup_note = e.what();
  }
}

nlohmann::ordered_json sites_json(const std::vector<TritonCallSite>& sites) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const TritonCallSite& s : sites)
    arr.push_back({{"entry", s.entry}, {"samples_ms", s.samples_ms}});
  return arr;
}

nlohmann::ordered_json run_json(const TritonRunOutcome& o) {
  nlohmann::ordered_json j = {{"status", triton_run_status_name(o.status)},
                              {"detail", o.detail},
                              {"seconds", std::round(o.seconds * 1000) / 1000},
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
  if (o.status == TritonRunStatus::error)
    j["error"] = {{"stage", o.error.stage},
                  {"exception_type", o.error.exception_type},
                  {"message", o.error.message},
                  {"traceback", o.error.traceback}};
  return j;
}

}  // namespace

TritonEvalResult evaluate_triton(const std::vector<TritonJob>& jobs, const TritonEvalOptions& opt) {
  TritonEvalResult res;
  res.results.resize(jobs.size());
  // One task per operator's reference and one per candidate, all independent in test mode.
  std::vector<const TritonOperator*> ops;
  for (const TritonJob& j : jobs)
    if (std::find(ops.begin(), ops.end(), j.op) == ops.end()) ops.push_back(j.op);
  std::vector<TritonRunOutcome> refs(ops.size());
  const std::size_t total = ops.size() + jobs.size();
  std::atomic<std::size_t> done{0};
  std::mutex progress_mu;
  auto report = [&](const std::string& what, const TritonRunOutcome& o) {
    if (!opt.progress) return;
    std::lock_guard<std::mutex> lock(progress_mu);
    opt.progress(fmt::format("[{}/{}] {} {} {:.1f}s{}", ++done, total, what,
                             triton_run_status_name(o.status), o.seconds,
                             o.detail.empty() ? "" : ": " + o.detail.substr(0, 160)));
  };
  parallel(total, opt.workers, [&](std::size_t i) {
    if (i < ops.size()) {
      const TritonOperator& op = *ops[i];
      refs[i] = run_one(opt, op, op.reference_code, false,
                        fmt::format("{}-{}-ref", channel_name(op.channel), slug(op.name)));
      report(op_key(op) + " reference", refs[i]);
      return;
    }
    const std::size_t k = i - ops.size();
    const TritonJob& job = jobs[k];
    TritonJobResult& r = res.results[k];
    r.job = job;
    r.graded.op = job.op->name;
    r.graded.channel = std::string(channel_name(job.op->channel));
    r.graded.difficulty = job.op->difficulty;
    r.run = run_one(
        opt, *job.op, job.code, false,
        fmt::format("{}-{}-s{}", channel_name(job.op->channel), slug(job.op->name), job.sample));
    report(fmt::format("{} sample {}", op_key(*job.op), job.sample), r.run);
  });
  for (std::size_t i = 0; i < ops.size(); ++i) res.references[op_key(*ops[i])] = refs[i];
  for (TritonJobResult& r : res.results) grade(r, res.references[op_key(*r.job.op)]);

  if (opt.speedup) {
    // One at a time: a timed run holds the GPU alone. The reference is timed once per operator.
    std::map<std::string, TritonRunOutcome> ref_times;
    for (TritonJobResult& r : res.results) {
      if (r.graded.verdict != TritonVerdict::pass) {
        r.speedup_note = "not timed: only correct candidates are";
        continue;
      }
      const std::string key = op_key(*r.job.op);
      const std::string base =
          fmt::format("{}-{}", channel_name(r.job.op->channel), slug(r.job.op->name));
      if (!ref_times.count(key)) {
        ref_times[key] =
            run_one(opt, *r.job.op, r.job.op->reference_code, true, base + "-ref-time");
        report(key + " reference timing", ref_times[key]);
      }
      time_job(opt, r, ref_times[key], fmt::format("{}-s{}-time", base, r.job.sample));
      if (opt.progress)
        opt.progress(fmt::format("{} sample {} speedup {}", key, r.job.sample,
                                 r.speedup
                                     ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", r.speedup->estimate,
                                                   r.speedup->low, r.speedup->high)
                                     : r.speedup_note));
    }
  }
  std::vector<TritonGraded> graded;
  for (const TritonJobResult& r : res.results) graded.push_back(r.graded);
  res.scores = score_triton(graded);
  return res;
}

nlohmann::ordered_json triton_result_json(const TritonJobResult& r) {
  const TritonOperator& op = *r.job.op;
  nlohmann::ordered_json j = {{"schema_version", 1},
                              {"operator", op.name},
                              {"channel", channel_name(op.channel)},
                              {"file", op.file},
                              {"difficulty", op.difficulty},
                              {"sample", r.job.sample},
                              {"origin", r.job.origin},
                              {"verdict", triton_verdict_name(r.graded.verdict)},
                              {"call_ok", r.graded.call_ok},
                              {"exec_ok", r.graded.verdict == TritonVerdict::pass},
                              {"detail", r.detail}};
  // The exception, flat, for the failure classifier (stage, type, message, traceback).
  if (r.run.status == TritonRunStatus::error) {
    j["stage"] = r.run.error.stage;
    j["exception_type"] = r.run.error.exception_type;
    j["message"] = r.run.error.message;
    j["traceback"] = r.run.error.traceback;
  }
  j["run"] = run_json(r.run);
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
  if (r.speedup) {
    j["speedup"] = {{"estimate", r.speedup->estimate},
                    {"low", r.speedup->low},
                    {"high", r.speedup->high},
                    {"confidence", r.speedup->confidence},
                    {"reference_ms", r.speedup->reference_ms},
                    {"candidate_ms", r.speedup->candidate_ms},
                    {"sites", r.speedup->sites},
                    {"resamples", r.speedup->resamples}};
    j["timing"] = {{"reference", sites_json(r.reference_sites)},
                   {"candidate", sites_json(r.candidate_sites)}};
  } else {
    j["speedup"] = nullptr;
    if (!r.speedup_note.empty()) j["speedup_note"] = r.speedup_note;
  }
  return j;
}

nlohmann::ordered_json triton_reference_json(const TritonOperator& op,
                                             const TritonRunOutcome& ref) {
  nlohmann::ordered_json j = {{"schema_version", 1},
                              {"operator", op.name},
                              {"channel", channel_name(op.channel)},
                              {"file", op.file},
                              {"difficulty", op.difficulty}};
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
  return j;
}

}  // namespace kjudge
