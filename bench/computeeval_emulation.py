#!/usr/bin/env python3
"""Re-creates how ComputeEval's local evaluator runs a problem pack, so that its wall time can be
set against `kjudge validate` on the same machine and the same pack.

What it does: evaluates every problem's `baseline_solution` from a ComputeEval problems pack
(`<release>-problems.tar.gz`) the way `compute-eval evaluate --mode local` would evaluate a
submitted solution, and times it. Only the Python standard library is used.

Emulated from NVIDIA/compute-eval (read from the public repository, re-expressed here, not
copied):

* compute_eval/evaluation.py -- `evaluate_functional_correctness`: all problems of the pack are
  read first, then a `ThreadPoolExecutor(max_workers=n_workers)` gets one task per task_id, and
  results are collected with `as_completed`. Here: `--workers` (default 16), one task per problem.
* compute_eval/data/data_pack.py -- a pack is a gzip tar holding `metadata.json` and
  `problems.jsonl` (one JSON problem per non-blank line), optionally filtered by group.
* compute_eval/evaluators/base.py -- `SolutionEvaluator._evaluate_internal`, in this order:
  skip when the installed CUDA toolkit (major, minor) is older than `min_cuda_toolkit`; skip when
  `compute_capability` is required (the model's default is "8.0" when the key is absent) and GPU 0
  is older, or no GPU is known, or a datacenter GPU is required and GPU 0 is not one; reject the
  solution (task id mismatch, no files, a file that collides with a test file); then, in a fresh
  `tempfile.TemporaryDirectory()`, write the context files, then the test files, then the
  solution's files (which may overwrite context files); check `source_references`; run
  `build_command` (when set) and then `test_command`, each with timeout `timeout_seconds or 60`;
  a non-zero exit or a timeout fails the solution. After a passing test, only problems with a
  `custom` timing mode run `benchmark_command` when no profiler is configured (timeout
  `timeout_seconds or 300`); none of the 2025 packs has one.
* compute_eval/evaluators/local_evaluator.py -- `LocalEvaluator`: each command runs through
  `subprocess.Popen(cmd, shell=True, start_new_session=True, cwd=workspace, stdout/stderr=PIPE,
  text=True)` and `communicate(timeout=...)`; on timeout the whole process group is killed with
  SIGKILL and the shell reaped. Build steps hold no GPU. Every other step takes a GPU from a
  process-wide pool -- a `queue.Queue` holding one id per GPU, so one step per GPU at a time --
  sets `CUDA_VISIBLE_DEVICES` to it for the command, and puts it back afterwards. The GPU count and
  GPU 0's compute capability and name come from `nvidia-smi --query-gpu=compute_cap,name
  --format=csv,noheader` (queried once, cached); the evaluator is rebuilt per problem, and each
  rebuild runs `nvcc --version` again, which is kept here too.
* compute_eval/utils/eval_utils.py -- version parsing (`V<major>.<minor>.<patch>` in the nvcc
  banner; "12.8" style requirements), the datacenter-GPU name heuristic.
* compute_eval/data/data_model.py -- `FileSolution.validate`, `setup_workspace`, and the
  `source_references` forms (a string or a list: all of them; `{any, all}`).

Deliberate differences, none of which changes the shape of the work:

* With no `nvidia-smi` (or no GPU listed) ComputeEval would run tests with no pool at all; here
  the pool gets one slot (or `--gpus N`), so the script also runs on a machine without a GPU.
  Problems that require a compute capability are still skipped there, as in ComputeEval.
* ComputeEval matches `source_references` on tree-sitter syntax trees; here comments and string
  literals are stripped and the reference must appear as a whole token sequence. Baselines
  normally pass either way.
* The evaluator's pydantic validation, tqdm progress bars, the graded-solutions file and pass@k
  printing are not reproduced; per-problem JSON lines and a timing summary are written instead.
* A solution whose benchmark runs would, in ComputeEval, also trigger a second evaluation of the
  baseline for speed-up numbers; with baselines as the solutions that re-run is left out.

Usage:
  bench/computeeval_emulation.py PACK.tar.gz [--workers 16] [--out results.jsonl]
                                 [--limit N] [--groups g1,g2] [--gpus N] [--solutions FILE]

With --solutions, the solutions in FILE (a ComputeEval solutions file, e.g. from
bench/make-hang-heavy.py) are graded instead of the baselines, one pool task per solution, as
`compute-eval evaluate` grades a model's samples.

Output: one JSON object per problem (or solution), in completion order, in --out (task_id,
sample, passed, skipped, build_s, test_s, gpu_wait_s, elapsed_s, timed_out = null | "build" |
"test" | "benchmark", failed_stage, and a short output tail for failures); a one-line JSON summary on stdout and a
readable summary on stderr (wall time, summed build and test time, pass/fail/skip counts, failed
task ids).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

DEFAULT_COMPUTE_CAPABILITY = "8.0"  # the problem model's default when the key is missing
DEFAULT_STEP_TIMEOUT = 60.0  # build and test: `timeout_seconds or 60`
DEFAULT_BENCH_TIMEOUT = 300.0  # custom-timing benchmark: `timeout_seconds or 300`
DATACENTER_NAME_PARTS = ("A100", "A40", "A30", "A16", "A10", "A2", "H100", "H200", "GH200", "B200",
                         "GB200", "B300", "GB300", "GB10", "V100", "L40S", "L40", "L4")
OUTPUT_TAIL_CHARS = 2000


# --------------------------------------------------------------------------- the problems pack

def read_pack(path: str, groups: set[str] | None) -> tuple[dict, list[dict]]:
    """Returns (metadata, problems) of a ComputeEval problems pack, problems in pack order."""
    with tarfile.open(os.path.expanduser(path), "r:gz") as tar:
        meta_member = tar.extractfile("metadata.json")
        metadata = json.loads(meta_member.read().decode("utf-8")) if meta_member else {}
        data = tar.extractfile("problems.jsonl")
        if data is None:
            raise SystemExit(f"{path}: no problems.jsonl in the pack")
        problems = []
        for raw in data.read().decode("utf-8").splitlines():
            if not raw.strip():
                continue
            problem = json.loads(raw, strict=False)
            if groups is None or problem.get("group") in groups:
                problems.append(problem)
    return metadata, problems


# --------------------------------------------------------------------------- machine facts

def version_triple(text: str | None) -> tuple[int, int, int] | None:
    """'12.8' -> (12, 8, 0); None or junk -> None."""
    if text is None:
        return None
    found = re.match(r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?", str(text))
    if not found:
        return None
    return tuple(int(part or 0) for part in found.groups())  # type: ignore[return-value]


def installed_toolkit() -> tuple[int, int]:
    """(major, minor) of the nvcc on PATH, (0, 0) when there is none. Run once per problem."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        return (0, 0)
    try:
        banner = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return (0, 0)
    found = re.search(r"(?i)\bV(\d+)\.(\d+)\.(\d+)\b", banner)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


class GpuFacts:
    def __init__(self, count: int, capability: tuple[int, int] | None, datacenter: bool):
        self.count = count
        self.capability = capability
        self.datacenter = datacenter


_gpu_facts: GpuFacts | None = None
_gpu_facts_queried = False
_gpu_facts_lock = threading.Lock()


def gpu_facts() -> GpuFacts | None:
    """What nvidia-smi says of the GPUs (count, GPU 0's capability and class); None without one.
    Asked once per process, like the evaluator's module-level cache."""
    global _gpu_facts, _gpu_facts_queried
    with _gpu_facts_lock:
        if _gpu_facts_queried:
            return _gpu_facts
        _gpu_facts_queried = True
        try:
            listing = subprocess.run(
                ["nvidia-smi", "--query-gpu=compute_cap,name", "--format=csv,noheader"],
                capture_output=True, text=True, check=True, timeout=5).stdout
        except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
            return None
        rows = [row.strip() for row in listing.splitlines()
                if re.match(r"^\d+\.\d+,", row.strip())]
        if not rows:
            return None
        cap_text, _, name = rows[0].partition(",")
        try:
            major, minor = (int(x) for x in cap_text.strip().split("."))
            capability: tuple[int, int] | None = (major, minor)
        except ValueError:
            capability = None
        datacenter = any(part in name.upper() for part in DATACENTER_NAME_PARTS)
        _gpu_facts = GpuFacts(len(rows), capability, datacenter)
        return _gpu_facts


class GpuSlots:
    """One slot per GPU; a test step blocks until a slot is free and holds it exclusively."""

    def __init__(self, count: int):
        self._free: queue.Queue[int] = queue.Queue()
        for gpu in range(count):
            self._free.put(gpu)

    @contextlib.contextmanager
    def take(self):
        gpu = self._free.get()
        try:
            yield gpu
        finally:
            self._free.put(gpu)


# --------------------------------------------------------------------------- checks before running

def toolkit_too_old(problem: dict, toolkit: tuple[int, int]) -> bool:
    needed = problem.get("min_cuda_toolkit")
    if needed is None:
        return False
    triple = version_triple(needed)
    if triple is None:
        return False
    return toolkit < triple[:2]


def gpu_unsuitable(problem: dict, facts: GpuFacts | None) -> bool:
    wanted = problem["compute_capability"] if "compute_capability" in problem \
        else DEFAULT_COMPUTE_CAPABILITY
    if wanted is None:
        return False
    triple = version_triple(wanted)
    if triple is None:
        return False
    if facts is None:
        return True
    if (facts.capability or (0, 0)) < triple[:2]:
        return True
    return bool(problem.get("requires_datacenter_gpu")) and not facts.datacenter


def solution_rejected(problem: dict, solution: dict) -> bool:
    if solution.get("task_id") != problem.get("task_id"):
        return True
    files = solution.get("files") or []
    if not files:
        return True
    test_paths = {f["path"] for f in problem.get("test_files") or []}
    return any(f["path"] in test_paths for f in files)


_COMMENT_OR_LITERAL = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


def references_present(solution: dict, refs) -> bool:
    """Approximates the tree-sitter check: all of `all`, and one of `any`, must occur in code."""
    if refs is None:
        return True
    if isinstance(refs, str):
        need_all, need_any = [refs], []
    elif isinstance(refs, list):
        need_all, need_any = list(refs), []
    else:
        need_all, need_any = list(refs.get("all") or []), list(refs.get("any") or [])
    if not need_all and not need_any:
        return True
    code = "\n".join(_COMMENT_OR_LITERAL.sub(" ", f.get("content", ""))
                     for f in solution.get("files") or [])

    def occurs(ref: str) -> bool:
        return re.search(r"(?<![\w:])" + re.escape(ref) + r"(?!\w)", code) is not None

    return all(occurs(r) for r in need_all) and (not need_any or any(occurs(r) for r in need_any))


def write_files(root: Path, files) -> None:
    for f in files or []:
        target = root / f["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f["content"])


# --------------------------------------------------------------------------- running commands

def run_step(command: str, workspace: Path, timeout: float, slots: GpuSlots | None,
             needs_gpu: bool) -> dict:
    """One build/test/benchmark command the way the local evaluator runs it."""
    env = os.environ.copy()
    waited = 0.0
    took = 0.0
    holder = slots.take() if (needs_gpu and slots is not None) else contextlib.nullcontext(None)
    asked = time.monotonic()
    try:
        with holder as gpu:
            started = time.monotonic()
            waited = started - asked
            if gpu is not None:
                env["CUDA_VISIBLE_DEVICES"] = str(gpu)
            child = subprocess.Popen(command, shell=True, start_new_session=True, cwd=workspace,
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
            try:
                out, err = child.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                took = time.monotonic() - started
                return {"rc": -1, "timed_out": True, "wait_s": waited, "run_s": took,
                        "output": f"[TIMEOUT EXPIRED after {timeout} seconds]"}
            took = time.monotonic() - started
            return {"rc": child.returncode, "timed_out": False, "wait_s": waited, "run_s": took,
                    "output": f"{out}\n{err}"}
    except Exception as exc:  # the evaluator turns any surprise into a failed step
        return {"rc": -1, "timed_out": False, "wait_s": waited, "run_s": took,
                "output": f"[UNEXPECTED ERROR] {exc}"}


def evaluate_problem(problem: dict, slots: GpuSlots | None, given: dict | None = None) -> dict:
    """Grades `given` (a solution of the problem), or the problem's baseline as if it were a
    submitted solution."""
    began = time.monotonic()
    result = {"task_id": problem.get("task_id"), "passed": False, "skipped": False,
              "sample": (given or {}).get("sample", 0),
              "build_s": 0.0, "test_s": 0.0, "gpu_wait_s": 0.0, "elapsed_s": 0.0,
              "timed_out": None, "failed_stage": None}

    def finish(**fields) -> dict:
        result.update(fields)
        result["elapsed_s"] = round(time.monotonic() - began, 3)
        for key in ("build_s", "test_s", "gpu_wait_s"):
            result[key] = round(result[key], 3)
        return result

    # The evaluator is rebuilt for every problem; that asks nvcc for its version each time.
    toolkit = installed_toolkit()
    facts = gpu_facts()
    if toolkit_too_old(problem, toolkit):
        return finish(skipped=True, failed_stage="toolkit")
    if gpu_unsuitable(problem, facts):
        return finish(skipped=True, failed_stage="compute_capability")

    solution = given if given is not None else problem.get("baseline_solution")
    if not solution or solution.get("type", "file") != "file" or solution_rejected(problem, solution):
        return finish(failed_stage="invalid_solution")

    step_timeout = problem.get("timeout_seconds") or DEFAULT_STEP_TIMEOUT
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        write_files(workspace, problem.get("context_files"))
        write_files(workspace, problem.get("test_files"))
        write_files(workspace, solution.get("files"))

        if not references_present(solution, problem.get("source_references")):
            return finish(failed_stage="source_references")

        if problem.get("build_command"):
            step = run_step(problem["build_command"], workspace, step_timeout, slots, False)
            result["build_s"] = step["run_s"]
            if step["rc"] or step["timed_out"]:
                return finish(failed_stage="build", timed_out="build" if step["timed_out"] else None,
                              output_tail=step["output"][-OUTPUT_TAIL_CHARS:])

        step = run_step(problem["test_command"], workspace, step_timeout, slots, True)
        result["test_s"] = step["run_s"]
        result["gpu_wait_s"] += step["wait_s"]
        if step["rc"] or step["timed_out"]:
            return finish(failed_stage="test", timed_out="test" if step["timed_out"] else None,
                          output_tail=step["output"][-OUTPUT_TAIL_CHARS:])

        timing = problem.get("timing_mode") or {}
        if problem.get("benchmark_command") and timing.get("type") == "custom":
            bench = run_step(problem["benchmark_command"], workspace,
                             problem.get("timeout_seconds") or DEFAULT_BENCH_TIMEOUT, slots, True)
            result["bench_s"] = round(bench["run_s"], 3)
            result["gpu_wait_s"] += bench["wait_s"]
            if bench["timed_out"]:
                result["timed_out"] = "benchmark"  # a failed benchmark does not fail the solution

        return finish(passed=True)


# --------------------------------------------------------------------------- driver

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Evaluate every baseline of a ComputeEval problems pack the way ComputeEval's "
                    "local evaluator does, and time it.")
    parser.add_argument("pack", help="problems pack, e.g. 2025-1-problems.tar.gz")
    parser.add_argument("--workers", type=int, default=16, help="thread pool size (default 16)")
    parser.add_argument("--out", default="results.jsonl", help="per-problem JSON lines")
    parser.add_argument("--limit", type=int, default=None, help="only the first N problems")
    parser.add_argument("--groups", default=None, help="comma-separated groups to keep")
    parser.add_argument("--solutions", default=None,
                        help="a solutions file (JSON lines: task_id, sample, files) to grade, one "
                             "pool task per solution, instead of the baselines")
    parser.add_argument("--gpus", type=int, default=None,
                        help="GPU slots in the pool (default: nvidia-smi's count, 1 without it)")
    args = parser.parse_args(argv)

    groups = set(args.groups.split(",")) if args.groups else None
    metadata, problems = read_pack(args.pack, groups)
    if args.limit is not None:
        problems = problems[: args.limit]
    if not problems:
        print("no problems to evaluate", file=sys.stderr)
        return 2

    facts = gpu_facts()
    gpu_count = args.gpus if args.gpus is not None else (facts.count if facts else 1)
    slots = GpuSlots(max(1, gpu_count))
    print(f"computeeval-emulation: {len(problems)} problems from {args.pack} "
          f"(release {metadata.get('release', '?')}), {args.workers} workers, "
          f"{max(1, gpu_count)} GPU slot(s), nvcc {'.'.join(map(str, installed_toolkit()))}, "
          f"GPU 0 capability {facts.capability if facts else 'unknown'}", file=sys.stderr)

    results: list[dict] = []
    write_lock = threading.Lock()
    wall_began = time.monotonic()
    with open(args.out, "w", encoding="utf-8") as out, \
            ThreadPoolExecutor(max_workers=args.workers) as pool:
        if args.solutions:
            by_id = {p["task_id"]: p for p in problems}
            futures = []
            with open(args.solutions, encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        sol = json.loads(line)
                        if sol.get("task_id") in by_id:
                            futures.append(pool.submit(evaluate_problem, by_id[sol["task_id"]],
                                                       slots, sol))
        else:
            futures = [pool.submit(evaluate_problem, p, slots) for p in problems]
        for future in as_completed(futures):
            graded = future.result()
            with write_lock:
                out.write(json.dumps(graded) + "\n")
                out.flush()
            results.append(graded)
            print(f"  {'PASS' if graded['passed'] else 'SKIP' if graded['skipped'] else 'FAIL'} "
                  f"{graded['task_id']} build {graded['build_s']:.1f}s test {graded['test_s']:.1f}s"
                  + (f" ({graded['failed_stage']})" if graded["failed_stage"] else ""),
                  file=sys.stderr)
    wall = time.monotonic() - wall_began

    passed = [r for r in results if r["passed"]]
    skipped = [r for r in results if r["skipped"]]
    failed = [r for r in results if not r["passed"] and not r["skipped"]]
    summary = {
        "pack": args.pack,
        "problems": len(results),
        "workers": args.workers,
        "gpu_slots": max(1, gpu_count),
        "wall_s": round(wall, 3),
        "build_s_sum": round(sum(r["build_s"] for r in results), 3),
        "test_s_sum": round(sum(r["test_s"] for r in results), 3),
        "gpu_wait_s_sum": round(sum(r["gpu_wait_s"] for r in results), 3),
        "passed": len(passed),
        "failed": len(failed),
        "skipped": len(skipped),
        "failed_task_ids": sorted(r["task_id"] for r in failed),
        "skipped_task_ids": sorted(r["task_id"] for r in skipped),
    }
    print(json.dumps(summary))
    print(f"wall {summary['wall_s']:.1f}s | build sum {summary['build_s_sum']:.1f}s | "
          f"test sum {summary['test_s_sum']:.1f}s | gpu wait sum {summary['gpu_wait_s_sum']:.1f}s | "
          f"passed {summary['passed']} failed {summary['failed']} skipped {summary['skipped']}",
          file=sys.stderr)
    if failed:
        print("failed: " + " ".join(summary["failed_task_ids"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
