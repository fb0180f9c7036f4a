"""The stopping rule and the statistics are kj::should_stop's and kj::summarize_runs'
(harness/kjudge/bench_stats.h)."""

import unittest

import helpers  # noqa: F401
from kjudge_gpumode.stats import StopRule, parse_rule, should_stop, summarize


class StatsTest(unittest.TestCase):
    def test_summary(self):
        s = summarize([3.0, 1.0, 2.0, 4.0])
        self.assertEqual(s["runs"], 4)
        self.assertAlmostEqual(s["mean"], 2.5)
        self.assertAlmostEqual(s["median"], 2.5)
        self.assertAlmostEqual(s["std"], (5 / 3) ** 0.5)
        self.assertAlmostEqual(s["err"], (5 / 3) ** 0.5 / 2)
        self.assertEqual((s["best"], s["worst"]), (1.0, 4.0))
        self.assertEqual(summarize([])["runs"], 0)

    def test_rule(self):
        r = StopRule(min_runs=10, max_runs=20, target_rel_err=0.001, max_timed_s=1,
                     max_wall_s=5)
        same = [100.0] * 10
        self.assertEqual(should_stop(r, same[:9], 0, 0), "")
        self.assertEqual(should_stop(r, same, 0, 0), "precise")
        noisy = [100.0, 200.0] * 5
        self.assertEqual(should_stop(r, noisy, 0.5, 1), "")
        self.assertEqual(should_stop(r, noisy, 1.0, 1), "timed_budget")
        self.assertEqual(should_stop(r, noisy, 0.5, 5), "wall_budget")
        self.assertEqual(should_stop(r, [100.0, 200.0] * 10, 0, 0), "max_runs")
        # Below the minimum only the budgets end it: the wall one at once, the timed from 3.
        self.assertEqual(should_stop(r, [1.0], 0, 6), "wall_budget")
        self.assertEqual(should_stop(r, [1.0, 2.0], 2, 0), "")
        self.assertEqual(should_stop(r, [1.0, 2.0, 3.0], 2, 0), "timed_budget")

    def test_judge_arguments(self):
        rule, warmup = parse_rule({"min_runs": "5", "max_runs": "50", "target_rel_err": "0.01",
                                   "max_timed_s": "2", "max_wall_s": "28.8",
                                   "warmup_ms": "100", "submission": "x.py"})
        self.assertEqual((rule.min_runs, rule.max_runs), (5, 50))
        self.assertEqual((rule.target_rel_err, rule.max_timed_s, rule.max_wall_s),
                         (0.01, 2.0, 28.8))
        self.assertEqual(warmup, 100.0)


if __name__ == "__main__":
    unittest.main()
