#!/usr/bin/env python3
"""How the run time of `kjudge evaluate --executor slurm` scales with nodes: a SIMULATION.

Reads the per-solution seconds a finished run measured (results.jsonl: each solution's
`seconds`, at least its build's plus its test's), cuts them into one shard per node with the same LPT
rule as src/slurm/shards.cpp (longest job first onto the least-loaded shard), and runs each
shard on a node of `--slots` parallel slots (LPT again inside the node, which is roughly what
the evaluator's build pool and test slots do). The run lasts as long as its slowest node plus a
fixed per-task overhead (queueing, kjudge start, loading the packs: --overhead seconds).

Not modelled: queue waits on a busy cluster, build-cache hits that one node's builds give
another (they only make the real run shorter), GPU contention inside a node, and the shard
expectation being wrong (LPT here uses the measured seconds; the real plan uses the cost
model's expectations, so real shards are less even on a first run).

  bench/slurm_scaling.py RUN_DIR/results.jsonl [--nodes 1,2,4,8,16] [--slots 1] [--overhead 10]
  bench/slurm_scaling.py --synthetic 500 ...   # a made-up lognormal workload instead
"""
import argparse
import heapq
import json
import random
import sys


def job_seconds(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                g = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line, as the judge itself skips
            # results.jsonl: "seconds" of the whole solution and of its build and test steps
            steps = sum((g.get(k) or {}).get("seconds", 0) or 0 for k in ("build", "test"))
            out.append(max(steps, g.get("seconds", 0) or 0))
    return out


def lpt(jobs, bins):
    """Longest first onto the least-loaded bin; returns the bins' job lists."""
    heap = [(0.0, 0, i) for i in range(bins)]  # (load, jobs, bin): fewer jobs wins a tie
    parts = [[] for _ in range(bins)]
    for s in sorted(jobs, reverse=True):
        load, n, i = heapq.heappop(heap)
        parts[i].append(s)
        heapq.heappush(heap, (load + s, n + 1, i))
    return parts


def makespan(jobs, slots):
    if not jobs:
        return 0.0
    return max(sum(p) for p in lpt(jobs, slots))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="?", help="a run's results.jsonl")
    ap.add_argument("--synthetic", type=int, default=0, help="N lognormal jobs instead of a run")
    ap.add_argument("--nodes", default="1,2,4,8,16")
    ap.add_argument("--slots", type=int, default=1, help="jobs a node runs at once")
    ap.add_argument("--overhead", type=float, default=10.0, help="seconds per array task")
    a = ap.parse_args()
    if a.synthetic:
        rnd = random.Random(11)
        jobs = [rnd.lognormvariate(2.0, 1.0) for _ in range(a.synthetic)]
        source = f"synthetic: {a.synthetic} lognormal(2, 1) jobs"
    elif a.results:
        jobs = job_seconds(a.results)
        source = a.results
    else:
        ap.error("give a results.jsonl or --synthetic N")
    total = sum(jobs)
    print(f"# SIMULATION from {source}: {len(jobs)} jobs, {total:.1f} s of work, "
          f"longest {max(jobs, default=0):.1f} s, {a.slots} slot(s)/node, {a.overhead:.0f} s overhead/task")
    print(f"{'nodes':>5} {'makespan_s':>11} {'speedup':>8} {'efficiency':>10} {'imbalance':>9}")
    base = base_n = None
    for n in [int(x) for x in a.nodes.split(",")]:
        shards = lpt(jobs, n)
        spans = [makespan(s, a.slots) for s in shards if s]
        t = (max(spans) if spans else 0.0) + a.overhead
        mean = sum(spans) / len(spans) if spans else 0.0
        if base is None:
            base, base_n = t, n  # speedup and efficiency are relative to the first count
        speed = base / t if t else 0.0
        print(f"{n:>5} {t:>11.1f} {speed:>8.2f} {speed * base_n / n:>10.2f} "
              f"{(max(spans) / mean if mean else 1.0):>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
