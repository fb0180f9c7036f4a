#!/usr/bin/env bash
# The cheat corpus on the GPU machine (issue 9), after scripts/gpu-bundle: every manifest line
# whose `where` names the device. Task programs run in benchmark mode and leaderboard mode (both
# re-check every timed output; leaderboard on secret seeds), with the bundle's CUPTI profiler
# preloaded (timing_gap, cupti_undercount and cupti_outside show there); the honest fast.cu of
# the same task runs alongside for the no_gain comparison (a cheat's score at least 0.8 of it: no
# gain over honest work of the same kind), and must carry no run-time flag with
# the profiler used (the line "honest runs: ..." says so). ComputeEval programs are evaluated with
# --benchmark against the corpus problem (the honest solution is sample 0). Triton programs go
# to tests/gpu/run-triton-checks.sh cheats (kjudge triton eval --speedup against their target
# operator, whose reference is the control; $OUT/triton-cheats.json). Prints one line per
# program: what the manifest expects, what the run showed, ok/DIFF; everything lands in
# $OUT/cheats.json. Task programs run in one process (--no-isolate), where the manifest's
# run-time verdicts were taken (the CUPTI profiler is used only there);
# tests/gpu/run-isolate-check.sh runs the cheats isolated.
# Usage: tests/cheats/run-device.sh [KJUDGE]   (MAXT: seconds of timed calls per benchmark, 2;
#        ONLY: a regex on the manifest's file column to run part of the corpus; NO_CE=1 skips the
#        ComputeEval part, NO_TRITON=1 the Triton part; PY: the Python with torch and triton)
set -uo pipefail
cd "$(dirname "$0")/../.."
k=${1:-$PWD/${BUNDLE:-bundle}/kjudge}
export PATH="$PWD/${BUNDLE:-bundle}/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
export KJUDGE_CACHE_DIR=/tmp/kc-cache
runs=/tmp/cheat-runs
rm -rf "$runs"
mkdir -p "$runs" "${OUT:-/tmp}"
maxt=${MAXT:-2}

# DEADLINE: seconds after which no new run starts, so the summary below always comes back within
# a device call (runs not made show as "not_run").
deadline=$(($(date +%s) + ${DEADLINE:-100000}))

task_run() {  # NAME TASK_DIR FILE MODE [options]
  local name=$1 t=$2 f=$3 mode=$4
  shift 4
  [ "$(date +%s)" -lt "$deadline" ] || { echo "$name not run (DEADLINE)"; return; }
  "$k" task run "$t" "$f" --mode "$mode" --out "$runs/$name" -q --no-isolate --max-time "$maxt" "$@" \
    > /dev/null 2> "$runs/$name.err"
  echo "$name exit $?"
}

# Every task program is built first, in parallel into the shared cache, so the timed runs
# below (one at a time: the GPU held alone) do not wait on nvcc in turn.
{
  for t in vectoradd vectorsum; do echo "examples/tasks/$t examples/tasks/$t/submissions/fast.cu"; done
  grep -v '^#' tests/cheats/manifest.tsv | while IFS=$'\t' read -r file path target _ _ _ where; do
    [[ $where == *device* && $path == task ]] || continue
    [[ -n ${ONLY:-} && ! $file =~ $ONLY ]] && continue
    echo "$target tests/cheats/$file"
  done
} | xargs -P "$(nproc)" -L 1 sh -c '"$0" task build "$1" "$2" --no-isolate --out "/tmp/cheat-builds/$(basename "$2")-$$" -q > /dev/null 2>&1' "$k"
echo "prebuilt in ${SECONDS} s"

for t in vectoradd vectorsum; do
  task_run "honest-$t-benchmark" examples/tasks/$t examples/tasks/$t/submissions/fast.cu benchmark --max-runs 200
  task_run "honest-$t-leaderboard" examples/tasks/$t examples/tasks/$t/submissions/fast.cu leaderboard --max-runs 50
done
grep -v '^#' tests/cheats/manifest.tsv | while IFS=$'\t' read -r file path target forbidden flags verdict where; do
  [[ $where == *device* ]] || continue
  [[ -n ${ONLY:-} && ! $file =~ $ONLY ]] && continue
  name=$(echo "$file" | tr '/' '_')
  if [ "$path" = task ]; then
    task_run "$name-benchmark" "$target" "tests/cheats/$file" benchmark --max-runs 200
    task_run "$name-leaderboard" "$target" "tests/cheats/$file" leaderboard --max-runs 50
  fi
done
ce=tests/cheats/computeeval
[ -n "${NO_CE:-}" ] || {
"$k" problems pack "$ce/problem" -o "$runs/ce-problems.tar.gz" > /dev/null
"$k" solutions pack "$ce/solutions" -o "$runs/ce-solutions.tar.gz" > /dev/null
"$k" evaluate --problems "$runs/ce-problems.tar.gz" --solutions "$runs/ce-solutions.tar.gz" \
  --benchmark --runs 5 --tests-per-gpu 1 --out "$runs/ce" -q
echo "ce evaluate exit $?"
}

[ -n "${NO_TRITON:-}" ] || {
  if [ "$(date +%s)" -lt "$deadline" ]; then
    OUT=${OUT:-/tmp} KJUDGE=$k tests/gpu/run-triton-checks.sh cheats
    echo "triton cheats exit $?"
  else
    echo "triton cheats not run (DEADLINE)"
  fi
}

NO_CE=${NO_CE:-} ONLY=${ONLY:-} python3 - "$runs" tests/cheats/manifest.tsv "${OUT:-/tmp}/cheats.json" <<'PY'
import json, os, re, sys
runs, manifest, dest = sys.argv[1:]
skip_ce = bool(os.environ.get("NO_CE"))  # the ComputeEval part was left out: nothing to show

def load(name):
    p = os.path.join(runs, name, "task-run.json")
    return json.load(open(p)) if os.path.exists(p) else None

def flags(rep):
    return sorted({f["check"] for s in (rep or {}).get("stages", []) for f in s.get("cheat_flags", [])})

RUNTIME_FLAGS = ("timing_gap", "cupti_undercount", "cupti_outside", "cupti_ranges", "cupti_record")

def cupti_used(rep):
    return [s.get("cupti", {}).get("used") for s in (rep or {}).get("stages", []) if "cupti" in s]

def shown(bench, board, honest_score):
    """What the two runs showed, in the manifest's words."""
    if bench is None and board is None:
        return ["not_run"]
    out = []
    for rep in (bench, board):
        if rep is None:
            continue
        b = rep.get("build", {})
        if not b.get("ok", True):
            return ["build_fail"]
        if any(s.get("channel_refused") for s in rep.get("stages", [])):
            return ["refused"]
        if any("crashed" in s.get("failure", "") for s in rep.get("stages", [])):
            return ["crash"]
    if bench is not None and not bench.get("passed"):
        out.append("fail:benchmark")
    if board is not None and not board.get("passed"):
        return out + ["fail"]
    out.append("pass")
    for f in RUNTIME_FLAGS:
        if f in flags(bench) + flags(board):
            out.append("pass:" + f)
    score = (board or {}).get("score_us")
    if score and honest_score and score >= 0.8 * honest_score:
        out.append("pass:no_gain")
    return out

results, ok_all = [], True
ce = {(r["task_id"], r["sample"]): r for r in map(json.loads, open(os.path.join(runs, "ce", "results.jsonl")))} \
    if os.path.exists(os.path.join(runs, "ce", "results.jsonl")) else {}
ce_perf = {}
if os.path.exists(os.path.join(runs, "ce", "perf.jsonl")):
    for r in map(json.loads, open(os.path.join(runs, "ce", "perf.jsonl"))):
        ce_perf[r["sample"]] = r
ce_samples = {}
for line in open(manifest):
    if line.startswith("#") or not line.strip():
        continue
    file, path, target, forbidden, want_flags, verdict, where = line.rstrip("\n").split("\t")
    if "device" not in where or path == "triton":  # triton: run-triton-checks.sh cheats
        continue
    if skip_ce and path != "task":
        continue
    if os.environ.get("ONLY") and not re.search(os.environ["ONLY"], file):
        continue  # left out of this run
    name = file.replace("/", "_")
    if path == "task":
        task = os.path.basename(target.rstrip("/"))
        honest = load(f"honest-{'vectorsum' if task == 'vectorsum' else 'vectoradd'}-leaderboard")
        bench, board = load(name + "-benchmark"), load(name + "-leaderboard")
        got = shown(bench, board, (honest or {}).get("score_us"))
        fl = flags(bench) + flags(board)
        # (event mean, host mean, CUPTI span mean) per benchmark of the benchmark-mode run
        extra = {"score_us": (board or {}).get("score_us"), "honest_score_us": (honest or {}).get("score_us"),
                 "cupti_used": cupti_used(bench) + cupti_used(board),
                 "benchmarks": [(b.get("mean_us"), b.get("host_mean_us"), b.get("cupti_mean_us"))
                                for s in (bench or {}).get("stages", []) for b in s.get("benchmarks", [])]}
    else:
        spec = open(os.path.join(os.path.dirname(os.path.join("tests/cheats", file)), "solution-spec.yaml")).read()
        sample = int(spec.split("sample:")[1].split()[0])
        r = ce.get(("cheats/fill", sample), {})
        got = ["pass"] if r.get("verdict") == "pass" else [r.get("verdict", "missing")]
        if r.get("verdict") == "test_fail":
            got.append("fail")
        if r.get("verdict") == "build_error":  # refused at build (forge_main_preinit)
            got.append("build_fail")
        if r.get("verdict") == "invalid_solution":  # refused before a file is written
            got.append("invalid")
        p = ce_perf.get(sample, {})
        sp = (p.get("speedup") or {}).get("estimate")
        if r.get("verdict") == "pass" and sp is not None and sp < 1.25:
            got.append("pass:no_gain")
        # The benchmark stage's run-time flags (perf.jsonl's cheat_flags: region_host_time).
        got += ["pass:" + f["check"] for f in p.get("cheat_flags", []) if isinstance(f, dict)]
        fl = sorted({f["check"] for f in r.get("cheat_flags", [])})
        extra = {"speedup": sp, "not_timed": p.get("not_timed")}
    ok = any(all(v in got for v in alt.split("+")) for alt in verdict.split("|"))
    ok_all &= ok
    results.append({"file": file, "expected": verdict, "got": got, "flags": fl, **extra})
    print(f"{'ok  ' if ok else 'DIFF'} {file:55} expected {verdict:28} got {','.join(got):30} flags {','.join(fl)} {extra}")
# The honest submissions: passed, the profiler used in every timed stage, no run-time flag.
for t in ("vectoradd", "vectorsum"):
    for mode in ("benchmark", "leaderboard"):
        rep = load(f"honest-{t}-{mode}")
        used = cupti_used(rep)
        bad = [f for f in flags(rep) if f in RUNTIME_FLAGS]
        ok = bool(rep and rep.get("passed")) and bool(used) and all(used) and not bad
        ok_all &= ok
        results.append({"file": f"honest {t} {mode}", "passed": (rep or {}).get("passed"),
                        "cupti_used": used, "runtime_flags": bad})
        print(f"{'ok  ' if ok else 'DIFF'} honest runs: {t} {mode}: passed {(rep or {}).get('passed')} "
              f"cupti used {used} run-time flags {bad}")
# The honest ComputeEval solution (sample 0): timed, no run-time flag (region_host_time).
if ce_perf and not skip_ce and not os.environ.get("ONLY"):
    p = ce_perf.get(0, {})
    bad = [f.get("check") for f in p.get("cheat_flags", []) if isinstance(f, dict)]
    ok = p.get("speedup") is not None and not bad
    ok_all &= ok
    results.append({"file": "honest computeeval", "speedup": (p.get("speedup") or {}).get("estimate"),
                    "runtime_flags": bad})
    print(f"{'ok  ' if ok else 'DIFF'} honest computeeval: speedup "
          f"{(p.get('speedup') or {}).get('estimate')} run-time flags {bad}")
json.dump(results, open(dest, "w"), indent=1)
print("all as expected" if ok_all else "some DIFF")
PY
