#!/usr/bin/env python3
"""Compares validate runs of one release problem by problem (tests/gpu/run-release-proof.sh).

    release-proof-compare.py RUN_DIR...          verdicts per group of each run, and every
                                                 problem whose verdict differs between runs
    release-proof-compare.py --memcheck RUN_DIR  what memcheck found in each baseline

Exit 0 when the runs agree on every problem (or, with --memcheck, when no baseline is flagged),
1 otherwise, 2 when a run directory lacks its journal.
"""
import collections
import json
import os
import sys


def load(run):
    path = os.path.join(run, "results.jsonl")
    if not os.path.exists(path):
        print("%s: no results.jsonl" % run)
        sys.exit(2)
    rows = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                rows[(r["task_id"], r["sample"])] = r
    return rows


def by_group(rows):
    groups = collections.defaultdict(collections.Counter)
    for r in rows.values():
        groups[r.get("group", "?")][r["verdict"]] += 1
    return groups


def compare(runs):
    loaded = [(run, load(run)) for run in runs]
    for run, rows in loaded:
        print("%s: %d graded" % (run, len(rows)))
        for group, counts in sorted(by_group(rows).items()):
            print("  %-14s %s" % (group, ", ".join("%d %s" % (n, v) for v, n in counts.most_common())))
        slow = sorted((r for r in rows.values() if r["verdict"] not in ("pass", "skipped")),
                      key=lambda r: r["task_id"])
        for r in slow:
            print("  not pass: %s %s %s" % (r["task_id"], r["verdict"], r.get("detail", "")[:160]))
        scaled = [r for r in rows.values()
                  if (r.get("build") or {}).get("attempts", 1) > 1 or (r.get("test") or {}).get("attempts", 1) > 1]
        print("  retried steps: %d (%s)" % (len(scaled), ", ".join(sorted(r["task_id"] for r in scaled))[:600]))
        wall = [r.get("seconds", 0) for r in rows.values()]
        print("  solution seconds: sum %.0f" % sum(wall))
    keys = set()
    for _, rows in loaded:
        keys |= set(rows)
    differ = []
    for key in sorted(keys):
        verdicts = [rows[key]["verdict"] if key in rows else "(missing)" for _, rows in loaded]
        if len(set(verdicts)) > 1:
            differ.append((key, verdicts))
    for key, verdicts in differ:
        print("DIFFERS %s#%d: %s" % (key[0], key[1], " / ".join(verdicts)))
    if differ:
        print("%d of %d problems differ between the runs" % (len(differ), len(keys)))
        return 1
    print("identical: %d problems, the same verdict in all %d runs" % (len(keys), len(loaded)))
    return 0


def memcheck(run):
    rows = load(run)
    print("%s (memcheck): %d graded, %s" % (
        run, len(rows), dict(collections.Counter(r["verdict"] for r in rows.values()))))
    outcomes = collections.Counter(s["outcome"] for r in rows.values() for s in r.get("sanitizer", []))
    print("  sanitizer runs: %s" % dict(outcomes))
    secs = sorted(s["run"]["seconds"] for r in rows.values() for s in r.get("sanitizer", [])
                  if s.get("run"))
    if secs:
        print("  memcheck run seconds: median %.2f, max %.2f" % (secs[len(secs) // 2], secs[-1]))
    flagged = 0
    for key in sorted(rows):
        r = rows[key]
        for s in r.get("sanitizer", []):
            if s["outcome"] != "clean":
                flagged += s["outcome"] == "errors"
                first = (s.get("report") or [s.get("detail", "")])[0]
                print("  %s %s: %s %s, %s" % (r["task_id"], r["verdict"], s["tool"], s["outcome"],
                                               first[:200]))
        if r["verdict"] not in ("pass", "skipped", "sanitizer_error") and not r.get("sanitizer"):
            print("  %s %s (no sanitizer run): %s" % (r["task_id"], r["verdict"], r.get("detail", "")[:160]))
    print("baselines with memcheck errors of their own: %d" % flagged)
    return 1 if flagged else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        sys.exit(2)
    if args[0] == "--memcheck":
        sys.exit(memcheck(args[1]))
    sys.exit(compare(args))
