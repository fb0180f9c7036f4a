#!/usr/bin/env bash
# Issue 6's checks on the GPU machine (after scripts/gpu-bundle), over examples/tasks:
#   modes    every task in every mode: test (naive, fast, and any cheat-* submission, which must
#            fail), benchmark (naive and fast: fast must rank ahead), leaderboard (fast, cheats),
#            profile (fast); one Nsight Compute table is kept as a fixture;
#   repeat   the fast submission benchmarked in 5 separate invocations, with kjudge's timing and
#            with GPU MODE's (--timing gpumode): the spread of each benchmark's mean between them;
#   cupti    (issue 9) naive and fast benchmarked with the CUPTI profiler preloaded (the default
#            when the bundle has libkjudge_profiler.so) and without it (KJUDGE_PROFILER=none):
#            what the profiler costs the event times, and the CUPTI span beside them.
# In modes and cupti, every timed stage of an honest submission (naive, fast) must show the
# profiler used (`cupti.used`), no run-time flag (timing_gap, cupti_*), every timed output checked
# (`checked` == `runs`, or runs + 1 for a failed check), and a CUPTI span per call no longer than
# the event time beyond the flag's slack; the lines "ok"/"DIFF honest ..." say so.
# Everything lands in $OUT/tasks-<what>.json (one file: the device tool brings few back) and a
# table on stdout. MAXT (default 2) caps the seconds of timed calls per benchmark, and --max-runs
# the calls (200 benchmark, 50 ranked, 300 repeat: MAXRUNS), so the whole check fits a device
# session; MAXT=10 MAXRUNS=1000 are `task run`'s own defaults. Every run and build is one
# process (--no-isolate): these checks are of the one-process harness and its CUPTI profiler, and
# their figures in results/gpu-runs.md were taken so (tests/gpu/run-isolate-check.sh: isolated).
# Usage: tests/gpu/run-task-checks.sh modes|profile|repeat|cupti [TASK...]   (profile: that mode
#        alone)
set -uo pipefail
cd "$(dirname "$0")/../.."
what=$1
shift
tasks=("$@")
[ ${#tasks[@]} -eq 0 ] && tasks=(vectoradd softmax prefixsum matmul vectorsum)
k=$PWD/${BUNDLE:-bundle}/kjudge
export PATH="$PWD/${BUNDLE:-bundle}/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
export KJUDGE_CACHE_DIR=/tmp/kt-cache
runs=/tmp/task-checks/$what
rm -rf "$runs"
mkdir -p "$runs" "${OUT:-/tmp}"
maxt=${MAXT:-2}

# Build every (task, submission) once, in parallel; later runs take the builds from the cache.
for t in "${tasks[@]}"; do
  for s in examples/tasks/$t/submissions/*.cu; do echo "$t $s"; done
done | xargs -P 8 -L 1 sh -c '"$0" task build examples/tasks/$1 $2 -q --no-isolate --out /tmp/task-checks/prebuild/$1-$(basename $2 .cu)' "$k"

# DEADLINE: seconds (from here) by which the runs must be over, so the summary below always
# comes back within a device call: a run starts only if the longest run of its task so far would
# still end in time.
deadline=$(($(date +%s) + ${DEADLINE:-100000}))
declare -A longest

run() {  # run NAME TASK SUBMISSION MODE [options]
  local name=$1 t=$2 s=$3 mode=$4
  shift 4
  local now=$(date +%s)
  [ $((now + ${longest[$t]:-0})) -lt "$deadline" ] || { echo "$name not run (DEADLINE)"; return; }
  local t0=$(date +%s%N)
  "$k" task run "examples/tasks/$t" "examples/tasks/$t/submissions/$s.cu" --mode "$mode" \
    --out "$runs/$name" -q --no-isolate --max-time "$maxt" "$@" > /dev/null 2> "$runs/$name.err"
  local rc=$?
  local took=$(( ($(date +%s%N) - t0) / 1000000 ))
  [ $((took / 1000 + 1)) -gt "${longest[$t]:-0}" ] && longest[$t]=$((took / 1000 + 1))
  echo "$name exit $rc ($took ms)"
}

case "$what" in
  modes)
    for t in "${tasks[@]}"; do
      for s in examples/tasks/$t/submissions/*.cu; do
        s=$(basename "$s" .cu)
        run "$t-$s-test" "$t" "$s" test
        case "$s" in
          cheat*) run "$t-$s-leaderboard" "$t" "$s" leaderboard --max-runs 50 ;;
          *) run "$t-$s-benchmark" "$t" "$s" benchmark --max-runs 200 ;;
        esac
      done
      run "$t-fast-leaderboard" "$t" fast leaderboard --max-runs 50
      run "$t-fast-profile" "$t" fast profile
      [ -f "$runs/$t-fast-profile/ncu.csv" ] && cp "$runs/$t-fast-profile/ncu.csv" "${OUT:-/tmp}/ncu-details-h100-$t.csv"
    done
    ;;
  profile)
    for t in "${tasks[@]}"; do
      run "$t-fast-profile" "$t" fast profile
      [ -f "$runs/$t-fast-profile/ncu.csv" ] && cp "$runs/$t-fast-profile/ncu.csv" "${OUT:-/tmp}/ncu-details-h100-$t.csv"
    done
    ;;
  cupti)
    for t in "${tasks[@]}"; do
      for s in naive fast; do
        run "$t-$s-cupti" "$t" "$s" benchmark --max-runs 200
        (export KJUDGE_PROFILER=none; run "$t-$s-nocupti" "$t" "$s" benchmark --max-runs 200)
      done
    done
    ;;
  repeat)
    for t in "${tasks[@]}"; do
      for i in 1 2 3 4 5; do
        # PAUSE: seconds to let the GPU cool before each invocation (a GPU that throttles when
        # hot, as the one of 2026-11-22 did, otherwise drifts from one invocation to the next).
        # STYLES: a comma list of kjudge (task run's defaults: the arena placement), malloc
        # (--placement malloc, a cudaMalloc per tensor), arena (--placement arena, named) and
        # gpumode (GPU MODE's timing); "both" (the default) is kjudge,gpumode. Interleaved per
        # invocation, so drift hits every style alike.
        for style in $(echo "${STYLES:-both}" | sed 's/both/kjudge,gpumode/' | tr ',' ' '); do
          sleep "${PAUSE:-0}"
          case "$style" in
            kjudge) run "$t-kjudge-$i" "$t" fast benchmark --max-runs "${MAXRUNS:-300}" ;;
            arena) run "$t-arena-$i" "$t" fast benchmark --max-runs "${MAXRUNS:-300}" --placement arena ;;
            malloc) run "$t-malloc-$i" "$t" fast benchmark --max-runs "${MAXRUNS:-300}" --placement malloc ;;
            gpumode) run "$t-gpumode-$i" "$t" fast benchmark --timing gpumode ;;
          esac
        done
      done
    done
    ;;
esac

python3 - "$runs" "$what" "${OUT:-/tmp}/tasks-$what.json" <<'PY'
import json, os, statistics, sys
runs, what, dest = sys.argv[1:]
reports = {}
for name in sorted(os.listdir(runs)):
    p = os.path.join(runs, name, "task-run.json")
    if not os.path.exists(p):
        continue
    r = json.load(open(p))
    r["build"].pop("log", None); r["build"].pop("command", None)
    for s in r.get("stages", []):
        s["log"] = s.get("log", "")[-2000:]
        for b in s.get("benchmarks", []):
            b["times_us"] = b["times_us"][:50]
    reports[name] = r
json.dump(reports, open(dest, "w"), indent=1)

def stage(r, mode):
    for s in r.get("stages", []):
        if s["mode"] == mode:
            return s
    return None

RUNTIME_FLAGS = ("timing_gap", "cupti_undercount", "cupti_outside", "cupti_ranges", "cupti_record")

def honest_checks(name, r):
    """Issue 9 on an honest submission's timed stages: profiler used, no run-time flag, every
    timed output checked, span within the event time."""
    problems = []
    for s in r.get("stages", []):
        if s["mode"] not in ("benchmark", "leaderboard"):
            continue
        c = s.get("cupti", {})
        if not c.get("used") and "nocupti" not in name:
            problems.append(f"{s['mode']}: cupti not used ({c.get('why')})")
        for f in s.get("cheat_flags", []):
            if f.get("check") in RUNTIME_FLAGS:
                problems.append(f"{s['mode']}: flag {f['check']}: {f.get('detail', '')[:160]}")
        for b in s.get("benchmarks", []):
            if b["checked"] not in (b["runs"], b["runs"] + 1):
                problems.append(f"{s['mode']} {b['spec']}: checked {b['checked']} of {b['runs']} runs")
    return problems

if what in ("modes", "cupti"):
    for name, r in reports.items():
        if "cheat" in name or not any(s["mode"] in ("benchmark", "leaderboard") for s in r.get("stages", [])):
            continue
        p = honest_checks(name, r)
        print(f"{'ok  ' if not p else 'DIFF'} honest {name}: {'; '.join(p) if p else ('profiler off' if 'nocupti' in name else 'cupti used') + ', no run-time flag, every output checked'}")

if what == "cupti":
    print("\nevent mean vs CUPTI span mean per call, and the event mean without the profiler (µs):")
    for name in sorted(n for n in reports if n.endswith("-cupti")):
        on, off = stage(reports[name], "benchmark"), stage(reports.get(name[:-len("-cupti")] + "-nocupti", {}), "benchmark")
        if not on:
            continue
        offb = {b["spec"]: b for b in (off or {}).get("benchmarks", [])}
        for b in on.get("benchmarks", []):
            o = offb.get(b["spec"], {})
            cost = 100 * (b["mean_us"] / o["mean_us"] - 1) if o.get("mean_us") else float("nan")
            print(f"  {name[:-6]:18} {b['spec']:34} event {b['mean_us']:10.2f}  span {b.get('cupti_mean_us', float('nan')):10.2f}"
                  f"  excess {b.get('cupti_excess_us', float('nan')):7.2f}  without profiler {o.get('mean_us', float('nan')):10.2f} ({cost:+.1f} %)"
                  f"  kernels/call {b.get('cupti_kernels', 0) / max(1, b.get('cupti_calls', 1)):.1f}")
elif what in ("modes", "profile"):
    print(f"{'run':40} {'passed':7} score µs / failure")
    for name, r in reports.items():
        last = r["stages"][-1] if r.get("stages") else {}
        print(f"{name:40} {str(r['passed']):7} {r.get('score_us', '')} {last.get('failure', '')[:120]}")
    tasks = sorted({n.split('-')[0] for n in reports})
    print("\nnaive vs fast (benchmark mode, mean µs per benchmark):")
    for t in tasks:
        n, f = reports.get(f"{t}-naive-benchmark"), reports.get(f"{t}-fast-benchmark")
        if not n or not f or "score_us" not in n or "score_us" not in f:
            print(f"  {t}: not both scored"); continue
        nb, fb = stage(n, "benchmark")["benchmarks"], stage(f, "benchmark")["benchmarks"]
        per = ", ".join(f"{x['spec']}: {x['mean_us']:.1f} vs {y['mean_us']:.1f} ({x['mean_us']/y['mean_us']:.1f}x, rel err {x['rel_err']*100:.2f}/{y['rel_err']*100:.2f} %)" for x, y in zip(nb, fb))
        print(f"  {t}: score naive {n['score_us']:.1f} fast {f['score_us']:.1f} = {n['score_us']/f['score_us']:.1f}x; {per}")
    for name, r in reports.items():
        p = stage(r, "profile")
        if p and p.get("profile"):
            for kk in p["profile"]:
                print(f"  profile {name}: {kk.get('kernel','')[:60]} dur {kk.get('duration')} {kk.get('duration_unit','')} sm {kk.get('compute_throughput_pct')} % mem {kk.get('memory_throughput_pct')} % occ {kk.get('achieved_occupancy_pct')} % regs {kk.get('registers_per_thread')}")
else:
    tasks = sorted({n.split('-')[0] for n in reports})
    print("spread of each benchmark's mean over 5 invocations: (max - min) / median")
    for t in tasks:
        clocks = {}
        for style in ("kjudge", "malloc", "arena", "gpumode"):
            means = {}
            for i in range(1, 6):
                r = reports.get(f"{t}-{style}-{i}")
                s = stage(r, "benchmark") if r else None
                if not s or not s.get("passed"):
                    continue
                for b in s["benchmarks"]:
                    means.setdefault(b["spec"], []).append((b["mean_us"], b["runs"], b.get("median_us")))
                d = r.get("conditions", {}).get("during", {})
                clocks.setdefault(style, []).append((d.get("min_busy_sm_clock_mhz"), d.get("max_busy_sm_clock_mhz"), d.get("max_temperature_c")))
            for spec, ms in means.items():
                v = [m for m, _, _ in ms]
                med = statistics.median(v)
                mv = [x for _, _, x in ms if x is not None]
                mspread = f"{100*(max(mv)-min(mv))/statistics.median(mv):6.2f} %" if len(mv) > 1 else "   n/a"
                print(f"  {t:10} {style:8} {spec:34} n={len(v)} mean of means {statistics.mean(v):10.2f} µs  spread {100*(max(v)-min(v))/med:6.2f} %  (of medians {mspread})  means {[round(m, 2) for m in v]} runs {[r for _, r, _ in ms]}")
        print(f"  {t:10} busy SM clock min/max MHz, max °C per invocation: {clocks}")
PY
