#pragma once
// TritonBench's metrics, computed properly: call accuracy (the test ran to the end without an
// exception, within the time limit), execution accuracy (its outputs match the reference run's
// on the same seed) and speedup (sum of the reference's per-call medians over the candidate's,
// with a bootstrap interval), per operator, per channel and per difficulty.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kjudge::triton {

struct TritonSpeedup {
  double estimate = 0;  // sum(ref medians) / sum(candidate medians)
  double low = 0, high = 0, confidence = 0.95;
  double reference_ms = 0, candidate_ms = 0;  // the two sums
  std::size_t sites = 0;
  int resamples = 0;
  // triton_round_speedup: the per-round ratios in run order; empty for triton_speedup.
  std::vector<double> round_ratios;
  std::vector<bool> round_reference_first;
  // triton_round_speedup: the two intervals [low, high] joins (0 where not computed).
  double bootstrap_low = 0, bootstrap_high = 0, t_low = 0, t_high = 0;
};

// One entry per call site (the n-th operator call the test makes), the same count on both
// sides. The interval is a percentile bootstrap: each resample draws every site's samples with
// replacement, on both sides independently, and takes the ratio of the sums of medians.
// Deterministic (a fixed seed). Throws std::invalid_argument when the sides have different site
// counts, no sites, a site without samples, or a time that is not finite and positive.
TritonSpeedup triton_speedup(const std::vector<std::vector<double>>& reference,
                             const std::vector<std::vector<double>>& candidate,
                             double confidence = 0.95, int resamples = 2000,
                             std::uint64_t seed = 0x6b6a75646765ull);

// One interleaved timing round: one reference process and one candidate process, each with its
// call sites' samples (the same site count on both sides).
struct TritonRound {
  std::vector<std::vector<double>> reference, candidate;
  bool reference_first = true;  // the order the two processes ran in this round
};

// The speedup over interleaved rounds (docs/triton.md, "Timing"). Per round, the ratio of the
// sums of per-site medians; the estimate is the geometric mean of those ratios, so a constant
// per-position factor (the first process of a round slower by f) multiplies half the rounds by
// f and half by 1/f and cancels exactly when the rounds are balanced. The interval is a
// two-level percentile bootstrap: the rounds are drawn with replacement within each order
// (reference-first among reference-first, the others among the others, so every resample stays
// balanced), then every drawn round's samples per site, on both sides. Drift between processes
// is thus in the interval, not only the noise within one. With 2 or more rounds the interval is
// widened to hold the Student-t interval of the mean log round ratio too, which the bootstrap
// undercovers when each order holds only a round or two. Deterministic (a fixed seed). Throws
// std::invalid_argument on no rounds or on a round triton_speedup would refuse.
TritonSpeedup triton_round_speedup(const std::vector<TritonRound>& rounds, double confidence = 0.95,
                                   int resamples = 2000, std::uint64_t seed = 0x6b6a75646765ull);

enum class TritonVerdict {
  pass,      // ran, and every output matches the reference's
  mismatch,  // ran, and some output differs (or nothing could be compared)
  // The test's outputs matched, but a timed call's output differs from the reference's on the
  // same inputs (a result cached, or computed only for the test's own call): no speedup.
  timed_mismatch,
  // The test's outputs matched, but evidence the candidate cannot touch contradicts its timing
  // (the CUPTI profiler's record: a timed call reported faster than the GPU work in it, a timed
  // call with no GPU work where the reference's had some, the work done outside the calls or
  // before their inputs existed, a record cut or written early; docs/triton.md, "Timing"): no
  // speedup. Counted as a failure in execution accuracy, like timed_mismatch.
  timing_refused,
  call_error,        // the runner reported an exception (stage in the result)
  timeout,           // over the wall-clock limit
  crash,             // died, exited without a report, or stopped at a memory/disk limit
  refused,           // its report was malformed or forged
  reference_failed,  // the candidate ran, but the reference did not: nothing to compare with
  // The reference disagrees with itself (two processes, same seed): a candidate's outputs
  // cannot be judged against it. Counted like reference_failed.
  reference_unstable,
  // The reference's outputs hold no tensor (only None, text, objects): nothing to compare.
  no_output,
  judge_error,  // the judge or the machine failed: not counted against anyone
  // The operator's own test is broken (triton/judge/defects.h): not run, counted in no accuracy.
  excluded,
};

std::string_view triton_verdict_name(TritonVerdict v);
// The verdict of a name triton_verdict_name gives; nullopt for any other.
std::optional<TritonVerdict> triton_verdict_from_name(std::string_view name);

struct TritonGraded {
  std::string op;       // operator name
  std::string channel;  // G or T
  int difficulty = 0;
  TritonVerdict verdict = TritonVerdict::judge_error;
  bool call_ok = false;           // the candidate's own run ended without an exception
  std::optional<double> speedup;  // exec-correct and timed
};

// Counts for one group. Denominators: judge errors and excluded operators (a broken test) count
// nowhere; execution accuracy leaves out the candidates whose reference failed here, is unstable
// or has no output (each counted separately), call accuracy does not.
struct TritonTally {
  std::size_t judged = 0, call_ok = 0;
  std::size_t exec_judged = 0, exec_ok = 0;
  std::size_t reference_failed = 0, judge_errors = 0, excluded = 0;
  std::size_t reference_unstable = 0, no_output = 0;
  std::map<std::string, std::size_t> verdicts;
  std::vector<double> speedups;

  void add(const TritonGraded& g);
  nlohmann::ordered_json to_json() const;
};

struct TritonScores {
  TritonTally all;
  std::map<std::string, TritonTally> by_channel;     // "G", "T"
  std::map<std::string, TritonTally> by_difficulty;  // "G/3", "T/1"
  std::map<std::string, TritonTally> by_operator;    // "G/add_example"
};

TritonScores score_triton(const std::vector<TritonGraded>& graded);

}  // namespace kjudge::triton
