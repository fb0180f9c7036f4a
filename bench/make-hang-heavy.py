#!/usr/bin/env python3
"""Writes a hang-heavy set of solutions for a ComputeEval problems pack (issue 35): what model
outputs look like in an RL loop, where some kernels never end. For --problems problems of one
group whose baselines define CUDA kernels, --solutions solutions in all, of three kinds:

  baseline  the problem's own baseline, unchanged: it must pass;
  wrong     every __global__ function returns at once (`if (1) return;` first), so no kernel
            writes its output: the test must fail (or, where the output needs no write, pass);
  endless   every __global__ function first spins forever (on clock64()) in every thread
            (--endless of them, each on a different problem): the test must time out.

Each problem gets one baseline and one wrong solution; the endless ones go to the first
--endless problems; the rest are more baselines, round-robin. Samples number from 0 per problem.

Usage: make-hang-heavy.py PACK.tar.gz OUT.jsonl [--group G] [--problems N] [--solutions N]
                          [--endless N]
Writes a ComputeEval solutions file (one JSON object per line: type "file", task_id, sample, files) and
OUT.kinds.tsv beside it (task_id, sample, kind) for checking that two judges agree.
"""
import argparse
import json
import re
import sys
import tarfile

GLOBAL = re.compile(r"__global__[^;{]*\{")
WRONG = "if (1) return;  /* kjudge bench: wrong on purpose */"
# clock64() is volatile to the compiler, so the loop stays (a spin on a local volatile flag was
# optimised away on the H100: all 12 such kernels passed in both judges).
ENDLESS = "while (clock64() != -1) { }  /* kjudge bench: endless on purpose */"


def rewrite(files, body_head):
    """The files with body_head first in every __global__ body; None when there is none."""
    out, hit = [], False
    for f in files:
        f = dict(f)
        if f["path"].endswith((".cu", ".cuh")):
            new, n = GLOBAL.subn(lambda m: m.group(0) + " " + body_head, f["content"])
            if n:
                f["content"], hit = new, True
        out.append(f)
    return out if hit else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pack")
    ap.add_argument("out")
    ap.add_argument("--group", default="cuda-kernels")
    ap.add_argument("--problems", type=int, default=40)
    ap.add_argument("--solutions", type=int, default=150)
    ap.add_argument("--endless", type=int, default=12)
    args = ap.parse_args()

    with tarfile.open(args.pack) as t:
        rows = [json.loads(line) for m in t.getmembers() if m.name.endswith("problems.jsonl")
                for line in t.extractfile(m) if line.strip()]
    chosen = []
    for p in sorted(rows, key=lambda p: p["task_id"]):
        if len(chosen) == args.problems:
            break
        base = p.get("baseline_solution") or {}
        if p.get("group") != args.group or base.get("type", "file") != "file":
            continue
        if rewrite(base.get("files") or [], WRONG) is None:
            continue  # no kernel to break
        chosen.append(p)
    if len(chosen) < args.problems:
        print(f"make-hang-heavy: only {len(chosen)} problems of group {args.group} define kernels "
              f"in their baseline (asked {args.problems})", file=sys.stderr)
        return 2
    if args.endless > len(chosen) or args.solutions < 2 * len(chosen) + args.endless:
        print(f"make-hang-heavy: --solutions must be at least {2 * len(chosen) + args.endless} "
              f"and --endless at most {len(chosen)}", file=sys.stderr)
        return 2

    plan = []  # (problem, kind)
    for p in chosen:
        plan += [(p, "baseline"), (p, "wrong")]
    plan += [(p, "endless") for p in chosen[: args.endless]]
    i = 0
    while len(plan) < args.solutions:
        plan.append((chosen[i % len(chosen)], "baseline"))
        i += 1

    samples = {}
    with open(args.out, "w") as out, open(args.out + ".kinds.tsv", "w") as kinds:
        for p, kind in plan:
            files = p["baseline_solution"]["files"]
            if kind == "wrong":
                files = rewrite(files, WRONG)
            elif kind == "endless":
                files = rewrite(files, ENDLESS)
            sample = samples.get(p["task_id"], 0)
            samples[p["task_id"]] = sample + 1
            out.write(json.dumps({"type": "file", "task_id": p["task_id"], "sample": sample,
                                  "files": files}) + "\n")
            kinds.write(f"{p['task_id']}\t{sample}\t{kind}\n")
    counts = {k: sum(1 for _, kind in plan if kind == k) for k in ("baseline", "wrong", "endless")}
    print(f"make-hang-heavy: {len(plan)} solutions of {len(chosen)} problems to {args.out} "
          f"({counts['baseline']} baseline, {counts['wrong']} wrong, {counts['endless']} endless)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
