"""Statistics of one benchmark's timed calls and the rule that decides when to stop: the same
as kjudge's CUDA harness (harness/kjudge/bench_stats.h, kj::summarize_runs and kj::should_stop),
so a Python task's benchmark stops exactly where a CUDA task's would."""

import math


class StopRule:
    def __init__(self, min_runs=10, max_runs=1000, target_rel_err=0.001, max_timed_s=10.0,
                 max_wall_s=60.0):
        self.min_runs = int(min_runs)
        self.max_runs = int(max_runs)
        self.target_rel_err = float(target_rel_err)
        self.max_timed_s = float(max_timed_s)
        self.max_wall_s = float(max_wall_s)


def summarize(xs):
    """{runs, mean, median, std (n - 1), err (std / sqrt(n)), best, worst}."""
    xs = sorted(xs)
    n = len(xs)
    s = {"runs": n, "mean": 0.0, "median": 0.0, "std": 0.0, "err": 0.0, "best": 0.0,
         "worst": 0.0}
    if n == 0:
        return s
    s["mean"] = sum(xs) / n
    s["median"] = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    s["best"], s["worst"] = xs[0], xs[-1]
    if n > 1:
        ss = sum((x - s["mean"]) ** 2 for x in xs)
        s["std"] = math.sqrt(ss / (n - 1))
        s["err"] = s["std"] / math.sqrt(n)
    return s


def should_stop(rule, times, timed_s, wall_s):
    """"" to go on, else why to stop: precise, max_runs, timed_budget, wall_budget."""
    n = len(times)
    if n >= rule.max_runs:
        return "max_runs"
    if n < rule.min_runs:
        # Even the minimum yields to the budgets: the wall budget at once, the timed one from
        # 3 runs, so one very slow kernel cannot hang a run.
        if wall_s > rule.max_wall_s and n >= 1:
            return "wall_budget"
        if timed_s >= rule.max_timed_s and n >= 3:
            return "timed_budget"
        return ""
    s = summarize(times)
    if s["mean"] > 0 and s["err"] / s["mean"] < rule.target_rel_err:
        return "precise"
    if timed_s >= rule.max_timed_s:
        return "timed_budget"
    if wall_s >= rule.max_wall_s:
        return "wall_budget"
    return ""


def parse_rule(options):
    """The judge's k=v arguments (src/task/run.cpp's rule_args) -> (StopRule, warmup_ms)."""
    rule = StopRule()
    warmup_ms = 200.0
    for key, value in options.items():
        if key in ("min_runs", "max_runs"):
            setattr(rule, key, int(float(value)))
        elif key in ("target_rel_err", "max_timed_s", "max_wall_s"):
            setattr(rule, key, float(value))
        elif key == "warmup_ms":
            warmup_ms = float(value)
    return rule, warmup_ms
