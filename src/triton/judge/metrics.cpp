// Call and execution accuracy, speedups and their summary for a Triton run.
// Declared, and explained, in triton/judge/metrics.h.
#include "triton/judge/metrics.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "core/enum_names.h"
#include "perf/stats.h"

namespace kjudge::triton {
namespace {

double median(std::vector<double> xs) {
  const std::size_t n = xs.size();
  std::sort(xs.begin(), xs.end());
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

void check_side(const std::vector<std::vector<double>>& sites, const char* side) {
  for (std::size_t i = 0; i < sites.size(); ++i) {
    if (sites[i].empty())
      throw std::invalid_argument(std::string(side) + " call " + std::to_string(i) +
                                  " has no samples");
    for (double x : sites[i])
      if (!std::isfinite(x) || x <= 0)
        throw std::invalid_argument(std::string(side) + " call " + std::to_string(i) +
                                    " has a time that is not finite and positive");
  }
}

double sum_of_medians(const std::vector<std::vector<double>>& sites) {
  double s = 0;
  for (const auto& site : sites) s += median(site);
  return s;
}

// One bootstrap draw of a side: each call's samples drawn again with replacement, and the
// medians of the draws summed, as sum_of_medians does for the estimate itself.
double resampled_sum_of_medians(const std::vector<std::vector<double>>& sites,
                                std::mt19937_64& rng) {
  double sum = 0;
  std::vector<double> draw;
  for (const auto& site : sites) {
    std::uniform_int_distribution<std::size_t> pick(0, site.size() - 1);
    draw.resize(site.size());
    for (double& x : draw) x = site[pick(rng)];
    sum += median(draw);
  }
  return sum;
}

// Type 7 quantile of sorted values.
double quantile(const std::vector<double>& sorted, double p) {
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

double rounded(double x) { return std::round(x * 1e6) / 1e6; }

}  // namespace

TritonSpeedup triton_speedup(const std::vector<std::vector<double>>& reference,
                             const std::vector<std::vector<double>>& candidate, double confidence,
                             int resamples, std::uint64_t seed) {
  if (reference.empty() || candidate.empty()) throw std::invalid_argument("no timed calls");
  if (reference.size() != candidate.size())
    throw std::invalid_argument("the reference made " + std::to_string(reference.size()) +
                                " timed calls, the candidate " + std::to_string(candidate.size()));
  if (!(confidence > 0 && confidence < 1) || resamples < 1)
    throw std::invalid_argument("confidence must lie in (0, 1) and resamples be positive");
  check_side(reference, "reference");
  check_side(candidate, "candidate");
  TritonSpeedup s;
  s.reference_ms = sum_of_medians(reference);
  s.candidate_ms = sum_of_medians(candidate);
  s.estimate = s.reference_ms / s.candidate_ms;
  s.sites = reference.size();
  s.confidence = confidence;
  s.resamples = resamples;

  std::mt19937_64 rng(seed);
  auto resampled_sum = [&](const std::vector<std::vector<double>>& sites) {
    return resampled_sum_of_medians(sites, rng);
  };
  std::vector<double> ratios(static_cast<std::size_t>(resamples));
  for (double& r : ratios) {
    const double ref = resampled_sum(reference);
    r = ref / resampled_sum(candidate);
  }
  std::sort(ratios.begin(), ratios.end());
  const double alpha = (1 - confidence) / 2;
  s.low = quantile(ratios, alpha);
  s.high = quantile(ratios, 1 - alpha);
  return s;
}

TritonSpeedup triton_round_speedup(const std::vector<TritonRound>& rounds, double confidence,
                                   int resamples, std::uint64_t seed) {
  if (rounds.empty()) throw std::invalid_argument("no timing rounds");
  if (!(confidence > 0 && confidence < 1) || resamples < 1)
    throw std::invalid_argument("confidence must lie in (0, 1) and resamples be positive");
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    const TritonRound& r = rounds[k];
    if (r.reference.empty() || r.candidate.empty())
      throw std::invalid_argument("round " + std::to_string(k) + ": no timed calls");
    if (r.reference.size() != r.candidate.size())
      throw std::invalid_argument("round " + std::to_string(k) + ": the reference made " +
                                  std::to_string(r.reference.size()) +
                                  " timed calls, the candidate " +
                                  std::to_string(r.candidate.size()));
    if (r.reference.size() != rounds[0].reference.size())
      throw std::invalid_argument("round " + std::to_string(k) + " made " +
                                  std::to_string(r.reference.size()) + " timed calls, round 0 " +
                                  std::to_string(rounds[0].reference.size()));
    check_side(r.reference, "reference");
    check_side(r.candidate, "candidate");
  }
  TritonSpeedup s;
  s.sites = rounds[0].reference.size();
  s.confidence = confidence;
  s.resamples = resamples;
  double log_sum = 0, log_ref = 0, log_cand = 0;
  for (const TritonRound& r : rounds) {
    const double ref = sum_of_medians(r.reference), cand = sum_of_medians(r.candidate);
    s.round_ratios.push_back(ref / cand);
    s.round_reference_first.push_back(r.reference_first);
    log_sum += std::log(ref / cand);
    log_ref += std::log(ref);
    log_cand += std::log(cand);
  }
  const double n = static_cast<double>(rounds.size());
  s.estimate = std::exp(log_sum / n);
  // Geometric means, so that reference_ms / candidate_ms is the estimate.
  s.reference_ms = std::exp(log_ref / n);
  s.candidate_ms = std::exp(log_cand / n);

  std::vector<std::size_t> strata[2];
  for (std::size_t k = 0; k < rounds.size(); ++k)
    strata[rounds[k].reference_first ? 0 : 1].push_back(k);
  std::mt19937_64 rng(seed);
  auto resampled_sum = [&](const std::vector<std::vector<double>>& sites) {
    return resampled_sum_of_medians(sites, rng);
  };
  std::vector<double> estimates(static_cast<std::size_t>(resamples));
  for (double& e : estimates) {
    double logs = 0;
    for (const auto& stratum : strata) {
      if (stratum.empty()) continue;
      std::uniform_int_distribution<std::size_t> pick(0, stratum.size() - 1);
      for (std::size_t i = 0; i < stratum.size(); ++i) {
        const TritonRound& r = rounds[stratum[pick(rng)]];
        const double ref = resampled_sum(r.reference);
        logs += std::log(ref / resampled_sum(r.candidate));
      }
    }
    e = std::exp(logs / n);
  }
  std::sort(estimates.begin(), estimates.end());
  const double alpha = (1 - confidence) / 2;
  s.low = quantile(estimates, alpha);
  s.high = quantile(estimates, 1 - alpha);
  s.bootstrap_low = s.low;
  s.bootstrap_high = s.high;
  // With the few rounds a run can afford (3-4), a stratum holds one or two rounds, and the
  // bootstrap sees little of the drift between processes: on the H100 a reference timed against
  // itself came out at 1.0099 [1.0019, 1.0147] from round ratios 1.011, 1.016, 1.002. The
  // Student-t interval of the mean log ratio accounts for that drift at any n; the interval
  // reported is the union of the two. Its variance is taken around each order's own mean (one
  // degree of freedom per order used), so a constant first-process effect, which the balanced
  // rounds cancel in the estimate, does not count as noise.
  double ss = 0;
  std::size_t orders = 0;
  for (const auto& stratum : strata) {
    if (stratum.empty()) continue;
    ++orders;
    double m = 0;
    for (std::size_t k : stratum) m += std::log(s.round_ratios[k]);
    m /= static_cast<double>(stratum.size());
    for (std::size_t k : stratum)
      ss += (std::log(s.round_ratios[k]) - m) * (std::log(s.round_ratios[k]) - m);
  }
  const double df = n - static_cast<double>(orders);
  if (df >= 1) {
    const double mean_log = log_sum / n;
    const double half = student_t_quantile(1 - alpha, df) * std::sqrt(ss / df) / std::sqrt(n);
    s.t_low = std::exp(mean_log - half);
    s.t_high = std::exp(mean_log + half);
    s.low = std::min(s.low, s.t_low);
    s.high = std::max(s.high, s.t_high);
  }
  return s;
}

std::string_view triton_verdict_name(TritonVerdict v) {
  switch (v) {
    case TritonVerdict::pass:
      return "pass";
    case TritonVerdict::mismatch:
      return "mismatch";
    case TritonVerdict::timed_mismatch:
      return "timed_mismatch";
    case TritonVerdict::timing_refused:
      return "timing_refused";
    case TritonVerdict::call_error:
      return "call_error";
    case TritonVerdict::timeout:
      return "timeout";
    case TritonVerdict::crash:
      return "crash";
    case TritonVerdict::refused:
      return "refused";
    case TritonVerdict::reference_failed:
      return "reference_failed";
    case TritonVerdict::reference_unstable:
      return "reference_unstable";
    case TritonVerdict::no_output:
      return "no_output";
    case TritonVerdict::judge_error:
      return "judge_error";
    case TritonVerdict::excluded:
      return "excluded";
  }
  return "?";
}

std::optional<TritonVerdict> triton_verdict_from_name(std::string_view name) {
  return enum_from_name<TritonVerdict>(name, triton_verdict_name);
}

void TritonTally::add(const TritonGraded& g) {
  ++verdicts[std::string(triton_verdict_name(g.verdict))];
  if (g.verdict == TritonVerdict::judge_error) {
    ++judge_errors;
    return;
  }
  if (g.verdict == TritonVerdict::excluded) {  // never run: in no denominator
    ++excluded;
    return;
  }
  ++judged;
  if (g.call_ok) ++call_ok;
  if (g.verdict == TritonVerdict::reference_failed) {
    ++reference_failed;
    return;
  }
  // Nothing the candidate could be judged against: not in execution accuracy either way.
  if (g.verdict == TritonVerdict::reference_unstable) {
    ++reference_unstable;
    return;
  }
  if (g.verdict == TritonVerdict::no_output) {
    ++no_output;
    return;
  }
  ++exec_judged;
  if (g.verdict == TritonVerdict::pass) ++exec_ok;
  if (g.speedup) speedups.push_back(*g.speedup);
}

nlohmann::ordered_json TritonTally::to_json() const {
  auto share = [](std::size_t a, std::size_t b) -> nlohmann::ordered_json {
    if (b == 0) return nullptr;
    return rounded(static_cast<double>(a) / static_cast<double>(b));
  };
  nlohmann::ordered_json j = {{"judged", judged},
                              {"call_ok", call_ok},
                              {"call_accuracy", share(call_ok, judged)},
                              {"exec_judged", exec_judged},
                              {"exec_ok", exec_ok},
                              {"exec_accuracy", share(exec_ok, exec_judged)},
                              {"reference_failed", reference_failed},
                              {"reference_unstable", reference_unstable},
                              {"no_output", no_output},
                              {"judge_errors", judge_errors},
                              {"excluded", excluded},
                              {"verdicts", verdicts}};
  if (speedups.empty()) {
    j["speedup"] = nullptr;
  } else {
    double sum = 0;
    for (double x : speedups) sum += x;
    Spread sp = describe(speedups);
    // Both means: the geometric one is the right summary of ratios; the arithmetic one is what
    // TritonBench's own scripts report, kept for comparison.
    j["speedup"] = {{"n", speedups.size()},
                    {"geomean", rounded(geometric_mean(speedups))},
                    {"mean", rounded(sum / static_cast<double>(speedups.size()))},
                    {"median", rounded(sp.median)},
                    {"min", rounded(sp.min)},
                    {"max", rounded(sp.max)}};
  }
  return j;
}

TritonScores score_triton(const std::vector<TritonGraded>& graded) {
  TritonScores s;
  for (const TritonGraded& g : graded) {
    s.all.add(g);
    s.by_channel[g.channel].add(g);
    s.by_difficulty[g.channel + "/" + std::to_string(g.difficulty)].add(g);
    s.by_operator[g.channel + "/" + g.op].add(g);
  }
  return s;
}

}  // namespace kjudge::triton
