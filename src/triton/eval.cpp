// The Triton judge: jobs through the runner, test mode and timing, verdicts and the summary.
// Declared, and explained, in triton/eval.h.
#include "triton/eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/input_error.h"
#include "core/random_secret.h"
#include "core/read_file.h"
#include "perf/interleave.h"
#include "triton/cupti.h"
#include "triton/failure.h"

namespace kjudge::triton {
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

// Test-mode runs on up to `workers` threads, in the order queued. A task may queue more while
// the queue runs (an operator's second reference run, once its first batch has ended): in front,
// so that what was begun ends, and is written, before more is started.
class RunQueue {
 public:
  explicit RunQueue(int workers) : workers_(std::max(1, workers)) {}

  void push_back(std::function<void()> task) { push(std::move(task), false); }
  void push_front(std::function<void()> task) { push(std::move(task), true); }

  // Runs every task, those queued meanwhile included, and returns when all have ended. The
  // first exception a task throws is rethrown here, once the tasks in flight have ended; no
  // task starts after it.
  void run() {
    std::size_t threads;
    {
      std::lock_guard<std::mutex> lock(mu_);
      threads = std::min<std::size_t>(static_cast<std::size_t>(workers_), tasks_.size());
    }
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t) pool.emplace_back([this] { work(); });
    for (auto& t : pool) t.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void push(std::function<void()> task, bool front) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (front)
        tasks_.push_front(std::move(task));
      else
        tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        // Idle while others run: one of them may queue more.
        cv_.wait(lock, [&] { return error_ || !tasks_.empty() || running_ == 0; });
        if (error_ || tasks_.empty()) break;
        task = std::move(tasks_.front());
        tasks_.pop_front();
        ++running_;
      }
      try {
        task();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!error_) error_ = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        --running_;
      }
      cv_.notify_all();
    }
    cv_.notify_all();
  }

  int workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  std::size_t running_ = 0;
  std::exception_ptr error_;
};

TritonRunRequest make_request(const TritonEvalOptions& opt, const TritonOperator& op,
                              const std::string& code, bool time, std::uint64_t perturb_seed = 0,
                              const nlohmann::json& plan = nlohmann::json()) {
  TritonRunRequest req;
  req.code = code;
  req.test_code = op.test_code;
  req.seed = opt.seed;
  req.test = !time;
  req.time = time;
  req.timing = opt.timing;
  req.timing.perturb_seed = perturb_seed;
  req.timing.cupti = time && !opt.profiler.empty();
  req.plan = plan;
  req.require_torch = opt.require_torch;
  req.test_secret = opt.test_secret;
  // A known test defect (triton/defects.h) applies to every run of the operator, the
  // reference's and every candidate's alike. The zero fill applies to timed runs too: their
  // outputs are checked, and memory never set differs between processes (on the H100,
  // mul_exponent_compensator's timed check failed 1 call in 600 against itself without it).
  const TritonDefect* defect = find_triton_defect(opt.defects, op);
  req.zero_fill = defect && defect->action == TritonDefectAction::zero_fill;
  if (!time && defect && defect->action == TritonDefectAction::entry_args)
    req.entry_args = TritonEntryArgs{defect->entry, defect->args};
  return req;
}

// The workspace of a run: emptied before (a leftover of an earlier run must not leak into this
// one), and removed after unless kept.
void clear_workspace(const fs::path& ws) {
  std::error_code ec;
  fs::remove_all(ws, ec);
}
void forget_workspace(const TritonEvalOptions& opt, const fs::path& ws) {
  if (!opt.keep_workspaces) clear_workspace(ws);
}

// One test-mode run of `code` against the operator's test, in work_dir/ws_name.
TritonRunOutcome run_one(const TritonEvalOptions& opt, const TritonOperator& op,
                         const std::string& code, const std::string& ws_name) {
  const fs::path ws = opt.work_dir / ws_name;
  clear_workspace(ws);
  TritonRunOutcome out = run_triton(opt.runner, make_request(opt, op, code, false), ws);
  forget_workspace(opt, ws);
  const TritonDefect* defect = find_triton_defect(opt.defects, op);
  if (defect && defect->action == TritonDefectAction::skip_entries)
    remove_skipped_entries(defect->entries, out.outputs);
  return out;
}

bool skips_entries(const std::optional<TritonDefect>& d) {
  return d && d->action == TritonDefectAction::skip_entries;
}

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

OutputSet without(const OutputSet& o, const std::set<std::string>& names) {
  OutputSet out;
  for (const OutputEntry& e : o.entries)
    if (!names.count(e.name)) out.entries.push_back(e);
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

// The sum of the sites' byte counts, or -1 when a site has none.
std::int64_t bytes_of(const std::vector<TritonCallSite>& sites) {
  std::int64_t sum = 0;
  for (const TritonCallSite& s : sites) {
    if (s.bytes < 0) return -1;
    sum += s.bytes;
  }
  return sum;
}

// The matmul peak for FLOPs in `dtype`, and the peak's own key: float32 inputs are read against
// the TF32 peak where measured, since Triton's tl.dot computes float32 in TF32 by default (the
// float32 peak, TF32 off, would put such kernels above 100 %).
std::optional<std::pair<std::string, double>> flops_peak(const GpuPeaks& p,
                                                         const std::string& dtype) {
  std::vector<std::string> keys = {dtype};
  if (dtype == "float32") keys.insert(keys.begin(), "tfloat32");
  for (const std::string& k : keys) {
    auto it = p.matmul_flops_per_s.find(k);
    if (it != p.matmul_flops_per_s.end() && it->is_number() && it->get<double>() > 0)
      return std::make_pair(k, it->get<double>());
  }
  return std::nullopt;
}

// Achieved bytes/s and FLOP/s of both sides: the operator's work (stated, or the runner's lower
// bound on bytes) over the geometric mean of the per-round sums of medians; over the measured
// peaks when they were measured on the GPU these runs report. The fraction of a side is the
// larger of its bytes and FLOPs fractions (the resource it comes closest to exhausting).
nlohmann::ordered_json efficiency_json(const TritonEvalOptions& opt, TritonJobResult& r,
                                       const nlohmann::ordered_json& env) {
  r.work = triton_operator_work(r.job.op->name, r.reference_sites);
  if (r.work.basis == "none") {
    r.efficiency_note = "the runner did not count the bytes of every call";
    return nullptr;
  }
  const double seconds[2] = {r.speedup->reference_ms / 1000, r.speedup->candidate_ms / 1000};
  const double bytes = static_cast<double>(r.work.bytes);
  nlohmann::ordered_json formulas = r.work.formulas;
  nlohmann::ordered_json j = {
      {"basis", r.work.basis},
      {"formulas", formulas},
      {"work_note", r.work.note},
      {"bytes", r.work.bytes},
      {"flops", r.work.flops ? nlohmann::ordered_json(*r.work.flops) : nullptr},
      {"flops_dtype", r.work.flops_dtype.empty() ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json(r.work.flops_dtype)},
      {"reference_bytes", r.bytes[0]},
      {"candidate_bytes", r.bytes[1]},
      {"reference_bytes_per_s", bytes / seconds[0]},
      {"candidate_bytes_per_s", bytes / seconds[1]},
      {"reference_flops_per_s", nullptr},
      {"candidate_flops_per_s", nullptr},
      {"gpu", env.value("gpu", "")},
      {"peak_bytes_per_s", nullptr},
      {"peak_flops_per_s", nullptr},
      {"peak_flops_dtype", nullptr},
      {"reference_fraction", nullptr},
      {"candidate_fraction", nullptr},
      {"bound_by", nullptr}};
  if (r.work.flops) {
    j["reference_flops_per_s"] = *r.work.flops / seconds[0];
    j["candidate_flops_per_s"] = *r.work.flops / seconds[1];
  }
  if (!opt.peaks) {
    r.efficiency_note = "no peaks given (--peaks)";
    return j;
  }
  if (opt.peaks->gpu != env.value("gpu", "")) {
    // Peaks of another GPU would make a fraction that means nothing.
    r.efficiency_note = fmt::format("the peaks are of {}, the runs reported {}", opt.peaks->gpu,
                                    env.value("gpu", "no GPU"));
    return j;
  }
  const double bw = opt.peaks->memory_bandwidth_bytes_per_s;
  j["peak_bytes_per_s"] = bw;
  std::optional<double> fpeak;
  if (r.work.flops && !r.work.flops_dtype.empty()) {
    if (auto p = flops_peak(*opt.peaks, r.work.flops_dtype)) {
      fpeak = p->second;
      j["peak_flops_per_s"] = p->second;
      j["peak_flops_dtype"] = p->first;
    } else {
      r.efficiency_note = "no matmul peak measured for " + r.work.flops_dtype;
    }
  }
  const char* sides[2] = {"reference", "candidate"};
  std::string bound = "memory";
  for (int s = 0; s < 2; ++s) {
    const double bf = bytes / seconds[s] / bw;
    j[fmt::format("{}_bytes_fraction", sides[s])] = bf;
    double best = bf;
    if (fpeak) {
      const double ff = *r.work.flops / seconds[s] / *fpeak;
      j[fmt::format("{}_flops_fraction", sides[s])] = ff;
      if (ff > best) {
        best = ff;
        if (s == 0) bound = "compute";
      }
    }
    j[fmt::format("{}_fraction", sides[s])] = best;
  }
  // Both sides do the same work, so the same resource is the nearer one for both.
  j["bound_by"] = bound;
  return j;
}

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
  std::set<std::size_t> unjudged;  // the defect table's sites (triton/defects.h)
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

// " (setup 2.1, time 3.9 s)": where a run's seconds went, for the progress lines.
std::string phases_text(const TritonRunOutcome& o) {
  if (o.phase_seconds.empty()) return "";
  std::string t;
  for (const auto& [phase, s] : o.phase_seconds)
    t += fmt::format("{}{} {:.1f}", t.empty() ? " (" : ", ", phase, s);
  return t + " s)";
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

}  // namespace

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
  // Known test defects (triton/defects.h): an excluded operator is not run at all, and its
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

GpuPeaks read_gpu_peaks(const std::filesystem::path& file) {
  const nlohmann::ordered_json j =
      nlohmann::ordered_json::parse(read_input_file(file, std::uintmax_t{1} << 20), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError(file.string(), 0, "", "not a JSON object");
  if (j.value("kind", "") != "kjudge-gpu-peaks")
    throw InputError(file.string(), 0, "kind", "not kjudge-gpu-peaks (python/kjudge_gpu_peaks.py)");
  GpuPeaks p;
  if (!j.contains("gpu") || !j["gpu"].is_string() || j["gpu"].get<std::string>().empty())
    throw InputError(file.string(), 0, "gpu", "missing or not a name");
  p.gpu = j["gpu"].get<std::string>();
  const auto bw = j.find("memory_bandwidth_bytes_per_s");
  if (bw == j.end() || !bw->is_number() || !std::isfinite(bw->get<double>()) ||
      bw->get<double>() <= 0)
    throw InputError(file.string(), 0, "memory_bandwidth_bytes_per_s", "not a positive number");
  p.memory_bandwidth_bytes_per_s = bw->get<double>();
  if (j.contains("matmul_flops_per_s")) p.matmul_flops_per_s = j["matmul_flops_per_s"];
  return p;
}

namespace {

// The fields that name an operator, first on every results.jsonl and references.jsonl line.
nlohmann::ordered_json operator_line_head(const TritonOperator& op) {
  return {{"schema_version", 1},
          {"operator", op.name},
          {"channel", channel_name(op.channel)},
          {"file", op.file},
          {"difficulty", op.difficulty}};
}

}  // namespace

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
  // Known test defects (triton/defects.h): the operators not run, each with why, and the
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
  // Failure classes (src/triton/failure.h) per channel and difficulty.
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
