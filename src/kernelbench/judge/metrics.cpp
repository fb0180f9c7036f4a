// KernelBench's metrics from kjudge's paired timing.
// Declared, and explained, in kernelbench/judge/metrics.h.
#include "kernelbench/judge/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>

#include "eval/pass_at_k.h"
#include "perf/stats.h"

namespace kjudge::kernelbench {
namespace {

using nlohmann::ordered_json;

// The two-sided normal quantile for `confidence`, by bisection on erfc (no table needed).
double normal_quantile(double confidence) {
  const double tail = (1 - confidence) / 2;
  double lo = 0, hi = 10;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > tail ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ordered_json speedup_stats(const std::vector<double>& xs) {
  if (xs.empty()) return nullptr;
  const double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
  return {
      {"n", xs.size()}, {"mean", mean}, {"geomean", geometric_mean(xs)}, {"median", median_of(xs)}};
}

struct Tally {
  std::size_t solutions = 0, charged = 0, compiled = 0, correct = 0, hacks_found = 0;
  std::map<std::string, std::size_t> verdicts;
  // Per problem (level, id): its samples' verdicts and the greedy one's result.
  std::map<std::pair<int, int>, std::vector<const Graded*>> problems;

  void add(const Graded& g) {
    ++solutions;
    ++verdicts[std::string(verdict_name(g.verdict))];
    if (g.hack_found) ++hacks_found;
    problems[{g.level, g.problem}].push_back(&g);
    if (!kernelbench::charged(g.verdict)) return;
    ++charged;
    if (g.verdict != Verdict::compile_error) ++compiled;
    if (g.verdict == Verdict::correct) ++correct;
  }

  ordered_json json() const {
    auto rate = [](std::size_t a, std::size_t b) -> ordered_json {
      return b == 0 ? ordered_json(nullptr) : ordered_json(static_cast<double>(a) / b);
    };
    // The greedy sample of each problem with a charged result.
    std::vector<const Graded*> greedy;
    std::vector<std::pair<int, int>> per_problem;  // (n, c) over charged samples, for pass@k
    for (const auto& [key, gs] : problems) {
      const Graded* pick = nullptr;
      int n = 0, c = 0;
      for (const Graded* g : gs) {
        if (!kernelbench::charged(g->verdict)) continue;
        ++n;
        c += g->verdict == Verdict::correct;
        if (!pick || g->sample < pick->sample) pick = g;
      }
      if (pick) greedy.push_back(pick);
      if (n > 0) per_problem.emplace_back(n, c);
    }
    const std::size_t n = greedy.size();
    std::vector<double> eager, compiled_sp;
    for (const Graded* g : greedy) {
      if (g->verdict != Verdict::correct) continue;
      if (g->eager) eager.push_back(g->eager->estimate);
      if (g->compiled) compiled_sp.push_back(g->compiled->estimate);
    }
    // fast_p over the greedy samples. p = 0 is correctness, timed or not; above it a correct
    // solution without a time is not known to be faster.
    auto fast = [&](bool over_compile, bool confident) {
      ordered_json j = ordered_json::object();
      for (double p : kFastP) {
        std::size_t hits = 0, untimed = 0;
        for (const Graded* g : greedy) {
          if (g->verdict != Verdict::correct) continue;
          const std::optional<Speedup>& s = over_compile ? g->compiled : g->eager;
          if (p == 0 && !over_compile) {
            ++hits;
            continue;
          }
          if (!s) {
            ++untimed;
            continue;
          }
          if ((confident ? s->low : s->estimate) > p) ++hits;
        }
        j[fmt::format("{:g}", p)] =
            n == 0 ? ordered_json(nullptr) : ordered_json(static_cast<double>(hits) / n);
      }
      return j;
    };
    ordered_json j = {{"solutions", solutions},
                      {"charged", charged},
                      {"problems", n},
                      {"compiled", compiled},
                      {"correct", correct},
                      {"compiled_rate", rate(compiled, charged)},
                      {"correct_rate", rate(correct, charged)},
                      {"verdicts", verdicts},
                      {"hacks_found", hacks_found},
                      {"speedup_eager", speedup_stats(eager)},
                      {"speedup_compile", speedup_stats(compiled_sp)},
                      {"fast_p", fast(false, false)},
                      {"fast_p_confident", fast(false, true)},
                      {"fast_p_compile", fast(true, false)},
                      {"fast_p_compile_confident", fast(true, true)}};
    // pass@k of correctness, where every problem has at least k samples.
    int most = 0;
    for (const auto& [pn, pc] : per_problem) most = std::max(most, pn);
    if (most > 1) {
      ordered_json pk = ordered_json::object();
      for (int k : {1, 5, 10, 100})
        if (k <= most)
          if (auto v = mean_pass_at_k(per_problem, k)) pk[fmt::format("pass@{}", k)] = *v;
      j["pass_at_k"] = pk;
    }
    return j;
  }
};

}  // namespace

Speedup paired_speedup(const std::vector<double>& baseline, const std::vector<double>& solution,
                       double confidence) {
  if (baseline.empty() || baseline.size() != solution.size())
    throw std::invalid_argument("paired speedup: the two sides need the same, non-zero count");
  if (baseline.size() > 5000) throw std::invalid_argument("paired speedup: more than 5000 pairs");
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument("paired speedup: confidence outside (0, 1)");
  const std::size_t n = baseline.size();
  std::vector<double> d(n);
  Speedup s;
  s.pairs = n;
  s.confidence = confidence;
  for (std::size_t i = 0; i < n; ++i) {
    const double b = baseline[i], x = solution[i];
    if (!(std::isfinite(b) && b > 0 && std::isfinite(x) && x > 0))
      throw std::invalid_argument("paired speedup: a time that is not finite and positive");
    d[i] = std::log(b) - std::log(x);
    s.baseline_mean_ms += b;
    s.solution_mean_ms += x;
  }
  s.baseline_mean_ms /= static_cast<double>(n);
  s.solution_mean_ms /= static_cast<double>(n);
  s.mean_ratio = s.baseline_mean_ms / s.solution_mean_ms;
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i; j < n; ++j) walsh.push_back((d[i] + d[j]) / 2);
  std::sort(walsh.begin(), walsh.end());
  const double m = static_cast<double>(walsh.size());
  s.estimate = std::exp(median_of(walsh));
  // Wilcoxon signed-rank: C = N/2 - z * sqrt(n(n+1)(2n+1)/24), the interval from the C-th
  // smallest to the C-th largest Walsh average.
  const double nn = static_cast<double>(n);
  const double c = std::floor(m / 2 - normal_quantile(confidence) *
                                          std::sqrt(nn * (nn + 1) * (2 * nn + 1) / 24));
  if (c >= 1) {
    const auto k = static_cast<std::size_t>(c);
    s.low = std::exp(walsh[k - 1]);
    s.high = std::exp(walsh[walsh.size() - k]);
  } else {
    s.low = std::exp(walsh.front());
    s.high = std::exp(walsh.back());
  }
  return s;
}

ordered_json summarize(const std::vector<Graded>& graded) {
  std::map<int, Tally> levels;
  Tally all;
  for (const Graded& g : graded) {
    levels[g.level].add(g);
    all.add(g);
  }
  ordered_json by_level = ordered_json::object();
  for (const auto& [level, t] : levels) by_level[fmt::format("level{}", level)] = t.json();
  return {{"levels", by_level}, {"all", all.json()}};
}

}  // namespace kjudge::kernelbench
