#!/usr/bin/env python3
"""Writes solutions that are each a problem's baseline made deliberately slower (issue 4's
check that the benchmark sees a slowdown): every `__global__` function of the baseline first
spins for SPIN clock cycles in every thread (a busy wait on clock64(), which changes no
result). ComputeEval's baselines mostly define kernels that the hidden harness launches, so
the slowdown has to live inside the kernel; a copy that fails its tests is reported as failing
and not timed.

Usage: make-slowed-solutions.py PACK.tar.gz OUT.jsonl [--group G] [--limit N] [--spin CYCLES]
Writes a ComputeEval solutions file (one JSON object per line: task_id, sample, files).
"""
import argparse
import json
import re
import tarfile

GLOBAL = re.compile(r"__global__[^;{]*\{")

ap = argparse.ArgumentParser()
ap.add_argument("pack")
ap.add_argument("out")
ap.add_argument("--group", default="cuda-kernels")
ap.add_argument("--limit", type=int, default=10)
ap.add_argument("--spin", type=int, default=2000)
args = ap.parse_args()

with tarfile.open(args.pack) as t:
    rows = [json.loads(line) for m in t.getmembers() if m.name.endswith("problems.jsonl")
            for line in t.extractfile(m)]
written = 0
with open(args.out, "w") as out:
    for p in rows:
        if written >= args.limit:
            break
        if p["group"] != args.group or not p.get("benchmark_command") or not p.get("baseline_solution"):
            continue
        files = [dict(f) for f in p["baseline_solution"]["files"]]
        spin = ("{ long long kj_t0 = clock64(); while (clock64() - kj_t0 < %d) { } }  "
                "/* kjudge: deliberately slowed */" % args.spin)
        done = False
        for f in files:
            if not f["path"].endswith((".cu", ".cuh")):
                continue
            new, n = GLOBAL.subn(lambda m: m.group(0) + " " + spin, f["content"])
            if n:
                f["content"] = new
                done = True
        if not done:
            continue
        out.write(json.dumps({"type": "file", "task_id": p["task_id"], "sample": 0, "files": files}) + "\n")
        written += 1
print(f"wrote {written} slowed solutions to {args.out}")
