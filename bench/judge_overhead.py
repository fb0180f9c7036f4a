#!/usr/bin/env python3
"""The judge's own time per solution beyond its build and test (issue 35: target < 5 ms).

`kjudge evaluate` grades N and then 2N solutions of one host-only problem whose build comes
from a warm build cache and whose test does nothing (`true`), pinned to one CPU (taskset).
Reported per solution, as slopes between the two runs (which cancel what a run pays once:
start-up, reading the pack, the summary):
  - judge CPU: the CPU time of the kjudge process itself, its children's left out (sampled from
    /proc every 5 ms): the judge's own work for a solution (the workspace, the solution's
    files, the static checks, the cache restore, scheduling, the journal line);
  - wall: what a solution costs end to end on one CPU, the test step's fork and exec included
    (and with --sandbox bwrap the sandbox's start).

Usage: bench/judge_overhead.py [--kjudge build/kjudge] [--n 200] [--sandbox none|bwrap]
                               [--repeat 3] [--tmp DIR]
--tmp puts the workspaces, build cache and output under DIR (default: the system's temporary
directory). The file system counts: creating a file is judge CPU, and on an ext4 without a
journal (the development machine's disk) each new inode first skips every one deleted in the
last minutes, so there the same judge costs more the more files the machine has just removed.
Runs on any machine (no GPU needed).
"""
import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

PROBLEM = {
    "type": "cuda_cpp", "schema_version": 2, "task_id": "overhead/noop", "group": "overhead",
    "date": "2026-11-28",
    "prompt": "Nothing: the bench measures the judge, not the solution.",
    "metadata": {"difficulty": "easy", "host_only": True},
    "context_files": [], "test_files": [{"path": "test/check.sh", "content": "true\n"}],
    "build_command": "cp solution.sh run.sh", "test_command": "true",
    "timeout_seconds": 30.0,
}


def write_pack(path: str) -> None:
    files = {"metadata.json": json.dumps({"release": "overhead-bench", "total_count": 1}),
             "problems.jsonl": json.dumps(PROBLEM) + "\n"}
    with tarfile.open(path, "w:gz") as t:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


def write_solutions(path: str, n: int) -> None:
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"type": "file", "task_id": "overhead/noop", "sample": i,
                                "files": [{"path": "solution.sh", "content": "true\n"}]}) + "\n")


def self_cpu_s(pid: int) -> float | None:
    """utime + stime of the process itself (not its children), in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(args, work: str, n: int, tag: str) -> tuple[float, float]:
    """Wall seconds of one evaluate of n solutions, and the judge process's own CPU seconds."""
    sols = os.path.join(work, f"sols-{n}.jsonl")
    write_solutions(sols, n)
    out = os.path.join(work, f"out-{tag}")
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["taskset", "-c", "0", args.kjudge, "evaluate", "--problems", os.path.join(work, "p.tar.gz"),
           "--solutions", sols, "--out", out, "--cache-dir", os.path.join(work, "cache"),
           "--work-dir", os.path.join(work, "ws"), "--sandbox", args.sandbox, "-q"]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    cpu = 0.0
    while proc.poll() is None:
        # taskset execs kjudge in place: the pid is the judge's once the exec is done.
        got = self_cpu_s(proc.pid)
        if got is not None:
            cpu = got
        time.sleep(0.005)
    wall = time.monotonic() - t0
    err = proc.stderr.read()
    if proc.returncode != 0:
        sys.exit(f"judge_overhead: {' '.join(cmd)} exited {proc.returncode}: {err[-800:]}")
    rows = [json.loads(l) for l in open(os.path.join(out, "results.jsonl"))]
    bad = [x for x in rows if x["verdict"] != "pass"]
    if len(rows) != n or bad:
        sys.exit(f"judge_overhead: {len(rows)} graded, {len(bad)} not passing: {bad[:1]}")
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kjudge", default="build/kjudge")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--sandbox", default="none", choices=["none", "bwrap"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tmp", default=None, help="where the work goes (default: system temp)")
    args = ap.parse_args()
    if not shutil.which("taskset"):
        sys.exit("judge_overhead: needs taskset (util-linux)")
    with tempfile.TemporaryDirectory(prefix="kjudge-overhead-", dir=args.tmp) as work:
        write_pack(os.path.join(work, "p.tar.gz"))
        run(args, work, 2, "warm")  # the build cache holds the one build from here on
        cpus, walls = [], []
        for i in range(args.repeat):
            w1, c1 = run(args, work, args.n, f"{i}a")
            w2, c2 = run(args, work, 2 * args.n, f"{i}b")
            cpus.append((c2 - c1) / args.n)
            walls.append((w2 - w1) / args.n)
            print(f"run {i}: {args.n} solutions {w1:.2f} s wall, {c1:.2f} s judge CPU; "
                  f"{2 * args.n} solutions {w2:.2f} s, {c2:.2f} s: judge CPU "
                  f"{1000 * cpus[-1]:.2f} ms, wall {1000 * walls[-1]:.2f} ms a solution")
        print(f"per solution (--sandbox {args.sandbox}, one CPU, median of {args.repeat}): "
              f"judge CPU {1000 * statistics.median(cpus):.2f} ms, "
              f"wall {1000 * statistics.median(walls):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
