#!/usr/bin/env bash
# Issue 36's checks on the GPU machine (after `NO_TESTS=1 scripts/gpu-bundle`, which carries
# GPU MODE's trees in bundle/datasets/gpumode and the Python harness in bundle/python): every
# problem of reference-kernels/problems/pmpp_v2 with its shipped submission.py and every
# solutions/correct/*.py, in test and benchmark modes, with kjudge's Python harness (the
# default) and with the task's own eval.py (--harness task): each must pass. Then every
# solutions/wrong/*.py and a deliberately wrong copy of submission.py (its output's first
# element doubled plus 7), in test mode with both harnesses: each must fail. Then the kernelbot
# runner's CUDA form (identity_cuda, --harness task; kjudge's harness must refuse it with the
# way out), kernelbot-examples/vectoradd_py with both harnesses, and the refusals (an AMD, a
# B200-only and a multi-GPU task: exit 2 with the reason), and GPU MODE's cheat patterns on
# vectoradd_py (tests/gpu/gpumode-cheats: what kjudge's harness must do with each, what the task's
# own harness does recorded beside it). The lines say ok or DIFF.
# Everything lands in $OUT/gpumode-checks.json (each run's verdict, failure, flags and, for the
# benchmarks, both harnesses' means side by side) and a table on stdout.
#
# Usage: tests/gpu/run-gpumode-checks.sh [PROBLEM...]   (default: every pmpp_v2 problem)
#   PYTHON   the interpreter with torch (default /opt/torch/.venv/bin/python)
#   MAXT     seconds of timed calls per benchmark for kjudge's harness (default 2)
#   MAXRUNS  its timed calls per benchmark at most (default 100)
#   MODES    default "test benchmark"
#   DEADLINE seconds from the start by which runs must end (a run starts only if the longest
#            run of its problem so far would still end in time), so the summary comes back
#   SANDBOX  bwrap (default) or none
#   JOBS     test-mode runs at once (default 4); benchmark runs always run alone, after them
#   NO_EXAMPLES=1, NO_CHEATS=1  leave out the kernelbot examples, the cheat patterns
set -uo pipefail
cd "$(dirname "$0")/../.."
B=$PWD/${BUNDLE:-bundle}
k=$B/kjudge
data=$B/datasets/gpumode
[ -d "$data" ] || data=$PWD/../shared/datasets/gpumode  # run from a checkout beside shared/
export PATH="$B/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
export KJUDGE_PYTHON=${PYTHON:-/opt/torch/.venv/bin/python}
export KJUDGE_CACHE_DIR=/tmp/gm-cache
runs=/tmp/gpumode-checks
rm -rf "$runs"
mkdir -p "$runs/subs" "${OUT:-/tmp}"
problems=("$@")
[ ${#problems[@]} -eq 0 ] && problems=($(cd "$data/reference-kernels/problems/pmpp_v2" && ls -d *_py))
all_modes=${MODES:-test benchmark}
deadline=$(($(date +%s) + ${DEADLINE:-100000}))
declare -A longest
sandbox=()
[ "${SANDBOX:-bwrap}" = none ] && sandbox=(--sandbox none)

"$k" doctor --python-tasks --no-probe > "$runs/doctor.txt" 2>&1
echo "doctor: $(grep -E 'python|triton' "$runs/doctor.txt" | tr '\n' ' ')"

# run NAME EXPECT TASK_DIR SUBMISSION HARNESS MODE [options]: EXPECT pass, fail or refuse.
# Test-mode runs go JOBS at a time (they time nothing); a benchmark run waits for all of them.
run() {
  if [ "$6" = test ] && [ "${JOBS:-4}" -gt 1 ]; then
    while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-4}" ]; do wait -n; done
    run_one "$@" &
  else
    wait
    run_one "$@"
  fi
}
run_one() {
  local name=$1 expect=$2 dir=$3 sub=$4 harness=$5 mode=$6
  shift 6
  local key=$(basename "$dir")
  [ $(( $(date +%s) + ${longest[$key]:-0} )) -lt "$deadline" ] || { echo "$name not run (DEADLINE)"; return; }
  local t0=$(date +%s%N)
  local extra=()
  [ "$harness" = kjudge ] && [ "$mode" != test ] && extra=(--max-time "${MAXT:-2}" --max-runs "${MAXRUNS:-100}")
  "$k" task run "$dir" "$sub" --mode "$mode" --harness "$harness" --out "$runs/$name" -q \
    "${sandbox[@]}" "${extra[@]}" "$@" > /dev/null 2> "$runs/$name.err"
  local rc=$?
  local took=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ $((took / 1000 + 1)) -gt "${longest[$key]:-0}" ] && longest[$key]=$((took / 1000 + 1))
  echo "$name expect=$expect exit=$rc harness=$harness mode=$mode ($took ms)" | tee -a "$runs/index.txt"
}

# A copy of the submission whose output is wrong: the first element of its first tensor
# doubled plus 7 (wrong for every pmpp_v2 output: sums, sorts, histograms, images, products).
wrong_copy() {
  local src=$1 dest=$2
  cp "$src" "$dest"
  cat >> "$dest" <<'PY'


_kjudge_right_kernel = custom_kernel


def custom_kernel(data):
    import torch
    out = _kjudge_right_kernel(data)
    t = out if isinstance(out, torch.Tensor) else next(x for x in out if isinstance(x, torch.Tensor))
    i = (0,) * t.dim()
    t[i] = t[i] * 2 + 7
    return out
PY
}

# Every test-mode run first (JOBS at once), then every benchmark run alone.
checks() {
local modes=$1
for p in "${problems[@]}"; do
  dir=$data/reference-kernels/problems/pmpp_v2/$p
  subs=("$dir/submission.py")
  for s in "$dir"/solutions/correct/*.py; do [ -f "$s" ] && subs+=("$s"); done
  for s in "${subs[@]}"; do
    sn=$(basename "$s" .py)
    [ "$s" = "$dir/submission.py" ] || sn=correct-$sn
    for h in kjudge task; do
      for m in $modes; do run "$p-$sn-$h-$m" pass "$dir" "$s" "$h" "$m"; done
    done
  done
  wrong_copy "$dir/submission.py" "$runs/subs/$p-wrong.py"
  wrongs=("$runs/subs/$p-wrong.py")
  for s in "$dir"/solutions/wrong/*.py; do [ -f "$s" ] && wrongs+=("$s"); done
  case " $modes " in *" test "*) ;; *) continue ;; esac
  for s in "${wrongs[@]}"; do
    sn=wrong-$(basename "$s" .py)
    [ "$s" = "$runs/subs/$p-wrong.py" ] && sn=wrong-perturbed
    for h in kjudge task; do run "$p-$sn-$h-test" fail "$dir" "$s" "$h" test; done
  done
done
}
for m in $all_modes; do checks "$m"; done
wait

ex=$data/kernelbot-examples
if [ -z "${NO_EXAMPLES:-}" ] && [ -d "$ex" ]; then
  for m in $all_modes; do
    run "identity_cuda-task-$m" pass "$ex/identity_cuda" "$ex/identity_cuda/submission.cu" task "$m"
  done
  run "identity_cuda-kjudge-test" refuse "$ex/identity_cuda" "$ex/identity_cuda/submission.cu" kjudge test
  for s in "$ex"/vectoradd_py/submission_*.py; do
    for h in kjudge task; do
      run "vectoradd_py-$(basename "$s" .py)-$h-test" pass "$ex/vectoradd_py" "$s" "$h" test
    done
  done
  run "gather-multi-gpu" refuse "$ex/gather" "$ex/gather/submission.py" kjudge test
fi
# GPU MODE's cheat patterns (tests/gpu/gpumode-cheats/README.md): kjudge's harness must do what
# expected.tsv says; the task's own eval.py is run the same way and recorded ("any").
cheats=$PWD/tests/gpu/gpumode-cheats
va=$data/reference-kernels/problems/pmpp_v2/vectoradd_py
if [ -z "${NO_CHEATS:-}" ] && [ -d "$cheats" ]; then
  for m in $all_modes; do
    while IFS=$'\t' read -r file mode expect; do
      case "$file" in '#'*|'') continue ;; esac
      [ "$mode" = "$m" ] || continue
      c=$(basename "$file" .py)
      run "cheat-$c-kjudge-$m" "$expect" "$va" "$cheats/$file" kjudge "$m"
      run "cheat-$c-task-$m" any "$va" "$cheats/$file" task "$m"
    done < "$cheats/expected.tsv"
  done
fi
rk=$data/reference-kernels/problems
run "amd-fp8-mm" refuse "$rk/amd/fp8-mm" "$rk/amd/fp8-mm/submission.py" kjudge test
run "linalg-qr_py-b200" refuse "$rk/linalg/qr_py" "$rk/linalg/qr_py/submission.py" kjudge test
wait

python3 - "$runs" "${OUT:-/tmp}/gpumode-checks.json" <<'PY'
import json, os, sys
runs, dest = sys.argv[1:]
out = {"runs": [], "timing": {}}
bad = 0
for line in open(os.path.join(runs, "index.txt")):
    parts = line.split()
    name, expect, rc = parts[0], parts[1].split("=")[1], int(parts[2].split("=")[1])
    harness, mode = parts[3].split("=")[1], parts[4].split("=")[1]
    rep_path = os.path.join(runs, name, "task-run.json")
    rep = json.load(open(rep_path)) if os.path.exists(rep_path) else {}
    err = open(os.path.join(runs, name + ".err")).read()[-1500:]
    stages = rep.get("stages", [])
    last = stages[-1] if stages else {}
    rec = {"name": name, "expect": expect, "exit": rc, "harness": harness, "mode": mode,
           "report_harness": rep.get("harness"), "passed": rep.get("passed"),
           "failure": last.get("failure"), "flags": rep.get("flags"),
           "score_us": rep.get("score_us"), "stderr": err if rc else ""}
    if mode == "benchmark" and last.get("benchmarks"):
        # What the isolated_time and timing_gap rules read, kept for calibrating them.
        for f in ("median_us", "host_median_us", "checker_median_us", "crossing_us"):
            rec[f] = [b.get(f) for b in last["benchmarks"]]
        rec["means_us"] = [b.get("mean_us") for b in last["benchmarks"]]
        rec["rel_err"] = [b.get("rel_err") for b in last["benchmarks"]]
        rec["runs_per_bench"] = [b.get("runs") for b in last["benchmarks"]]
        rec["checker_means_us"] = [b.get("checker_mean_us") for b in last["benchmarks"]]
        key = name.rsplit("-", 2)[0]
        out["timing"].setdefault(key, {})[harness] = {
            "spec": [b.get("spec") for b in last["benchmarks"]], "mean_us": rec["means_us"]}
    names = {f.get("check") for f in (rep.get("flags") or []) if isinstance(f, dict)}
    rec["flag_names"] = sorted(n for n in names if n)
    def meets(e):
        if e.startswith("flag:"):
            return rc == 0 and rep.get("passed") is True and bool(names & set(e[5:].split("|")))
        return {"pass": rc == 0 and rep.get("passed") is True,
                "fail": rc == 1 and rep.get("passed") is False,
                "any": True,
                "refuse": rc == 2 and "refuse" in err or (rc == 2 and "--harness task" in err)}[e]
    ok = any(meets(e) for e in expect.split(","))  # alternatives: fail,flag:NAME
    if rep and rep.get("harness") != ("task" if harness == "task" else "kjudge"):
        ok = False
    rec["ok"] = ok
    bad += not ok
    out["runs"].append(rec)
    why = (last.get("failure") or err.strip().splitlines()[-1] if err.strip() else "")[:160]
    print("%-4s %-55s exit %d %s" % ("ok" if ok else "DIFF", name, rc, "" if ok else why))
print("\nbenchmark means (µs), kjudge's harness | the task's eval.py:")
for key, t in sorted(out["timing"].items()):
    k, g = t.get("kjudge", {}), t.get("task", {})
    for i, spec in enumerate(k.get("spec") or g.get("spec") or []):
        km = (k.get("mean_us") or [None] * 99)[i] if i < len(k.get("mean_us") or []) else None
        gm = (g.get("mean_us") or [None] * 99)[i] if i < len(g.get("mean_us") or []) else None
        print("  %-40s %-34s %12s | %12s" % (key, spec, "%.2f" % km if km else "-",
                                           "%.2f" % gm if gm else "-"))
cheat = [r for r in out["runs"] if r["name"].startswith("cheat-")]
if cheat:
    print("\ncheats: kjudge's harness | the task's own (verdict, flags, first benchmark mean µs)")
    def said(r):
        if not r:
            return "-"
        v = "pass" if r["passed"] else "fail" if r["passed"] is False else "exit %d" % r["exit"]
        m = (r.get("means_us") or [None])[0]
        return "%s%s%s" % (v, " " + ",".join(r["flag_names"]) if r["flag_names"] else "",
                           " %.2f" % m if m else "")
    for r in cheat:
        if "-kjudge-" not in r["name"]:
            continue
        t = next((x for x in cheat if x["name"] == r["name"].replace("-kjudge-", "-task-")), None)
        print("  %-4s %-40s %-40s | %s" % ("ok" if r["ok"] else "DIFF", r["name"], said(r), said(t)))
out["bad"] = bad
json.dump(out, open(dest, "w"), indent=1)
print("\n%d of %d runs as expected; %s" % (len(out["runs"]) - bad, len(out["runs"]), dest))
PY
