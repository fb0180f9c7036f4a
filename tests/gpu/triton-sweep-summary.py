#!/usr/bin/env python3
"""Gathers the self-speedups of tests/gpu/run-triton-sweep.sh runs: every results.jsonl under the
folders given, and the progress lines (*.err) of invocations cut before they wrote one. One row
per operator (the latest run of it wins, folders in the order given): the speedup with its
interval and whether the interval holds 1.00, or why there is no speedup. Prints a Markdown
table and the counts; --json FILE writes the rows; --timed prints only the names of the operators
with a speedup, one a line (what run-triton-sweep.sh's DONE skips).

Usage: triton-sweep-summary.py [--json FILE] FOLDER..."""
import argparse
import gzip
import json
import os
import re
import sys

LINE = re.compile(r"^(?P<ch>[GT])/(?P<op>\S+) sample \d+ speedup (?P<rest>.*)$")
FIGURE = re.compile(r"^(?P<e>[0-9.]+) \[(?P<lo>[0-9.]+), (?P<hi>[0-9.]+)\]")


EVER_TIMED = set()  # operators with a speedup in any run read, whichever run wins the row


def natural(path):
    """A sort key that orders the numbers in a path by value: c2 < c10, sweep/9 < sweep/38."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"([0-9]+)", path)]


def from_results(path, rows):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            s = r.get("speedup") or {}
            t = r.get("timing") or {}
            hb = t.get("host_bound") or {}
            row = {"operator": r["operator"], "channel": r.get("channel"),
                   "verdict": r.get("verdict"), "source": path,
                   "host_bound": any(any(v) for v in hb.values()) if hb else False,
                   # A run-time flag on an operator judged against itself is a false positive.
                   "flags": sorted({f["check"] for f in r.get("timing_flags") or []})}
            if s.get("estimate") is not None:
                EVER_TIMED.add(r["operator"])
                row.update(estimate=s["estimate"], low=s["low"], high=s["high"],
                           round_ratios=s.get("round_ratios"),
                           reference_ms=s.get("reference_ms"))
            else:
                row["why"] = (r.get("speedup_note") or r.get("detail") or
                              "no speedup in the result")
            rows[r["operator"]] = row


def from_progress(path, rows):
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            op, rest = m.group("op"), m.group("rest")
            row = {"operator": op, "channel": m.group("ch"), "verdict": None, "source": path,
                   "host_bound": None}
            f2 = FIGURE.match(rest)
            if f2:
                EVER_TIMED.add(op)
                row.update(estimate=float(f2.group("e")), low=float(f2.group("lo")),
                           high=float(f2.group("hi")))
            else:
                row["why"] = rest
            rows[op] = row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--json")
    ap.add_argument("--timed", action="store_true")
    a = ap.parse_args()
    rows = {}
    for folder in a.folders:
        found = []
        for root, _, files in os.walk(folder):
            for name in files:
                # Runs with --prestart are not one process at a time: not counted here.
                if "prestart" in name:
                    continue
                if name in ("results.jsonl", "results.jsonl.gz") or name.endswith((".err", ".log")):
                    found.append(os.path.join(root, name))
        # Progress lines first, then the results that supersede them, each in name order with
        # numbers as numbers (c2/ before c10/, sweep/9 before sweep/38): within a folder, name
        # order must be run order (a/, a2/, b/; c1/, c2/, …).
        for p in sorted((x for x in found if x.endswith((".err", ".log"))), key=natural):
            from_progress(p, rows)
        for p in sorted((x for x in found if not x.endswith((".err", ".log"))), key=natural):
            from_results(p, rows)
    timed = [r for r in rows.values() if "estimate" in r]
    if a.timed:
        for op in sorted(EVER_TIMED):
            print(op)
        return 0
    holds = [r for r in timed if r["low"] <= 1.0 <= r["high"]]
    print("| operator | speedup | interval | holds 1.00 | note |")
    print("|---|---|---|---|---|")
    for r in sorted(rows.values(), key=lambda r: r["operator"]):
        if "estimate" in r:
            ok = r["low"] <= 1.0 <= r["high"]
            note = ", ".join((["host-bound"] if r.get("host_bound") else []) +
                             ["flag " + f for f in r.get("flags") or []])
            print(f"| {r['operator']} | {r['estimate']:.3f} | [{r['low']:.3f}, {r['high']:.3f}] "
                  f"| {'yes' if ok else '**no**'} | {note} |")
        else:
            print(f"| {r['operator']} | – | – | – | {str(r['why'])[:120]} |")
    flagged = [r for r in rows.values() if r.get("flags")]
    print(f"\n{len(rows)} operators: {len(timed)} timed, {len(holds)} hold 1.00, "
          f"{len(timed) - len(holds)} do not, {len(rows) - len(timed)} without a speedup, "
          f"{len(flagged)} with a run-time flag")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(sorted(rows.values(), key=lambda r: r["operator"]), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
