#!/usr/bin/env bash
# Issue 4's checks of `--benchmark` on the GPU machine (after scripts/gpu-bundle):
#   self     baselines timed against themselves: the speedup interval should hold 1.00;
#   slowed   baselines made slower on purpose (bench/make-slowed-solutions.py) must come out
#            slower, with intervals below 1;
#   repeat   one problem timed in 5 separate invocations: the spread of their medians.
# Usage: tests/gpu/run-bench-checks.sh self|slowed|repeat [PACK] [extra kjudge options...]
set -uo pipefail
what=$1
pack=${2:-bundle/datasets/2025-1-problems.tar.gz}
shift 2 2>/dev/null || shift $#
k=bundle/kjudge
out=${OUT:-/tmp}/bench-$what
mkdir -p "$out"
common=(--cache-dir /tmp/kb-cache -q --json --benchmark)
case "$what" in
  self)
    run_dir=$out/${RUN_NAME:-run}
    # -k: a comparison in flight finishes after SIGTERM; one that would outlast the call is killed
    # (the journal keeps what was done; --resume redoes only it).
    timeout -k "${GRACE:-90}" "${TLIM:-480}" "$k" validate "$pack" "${common[@]}" --out "$run_dir" "$@" > "$out/summary.json"
    echo "exit $?"
    python3 - "$run_dir/perf.jsonl" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
timed = [r for r in rows if r["speedup"]]
inside = [r for r in timed if r["speedup"]["low"] <= 1.0 <= r["speedup"]["high"]]
print(f"timed {len(timed)} of {len(rows)}; interval holds 1.00: {len(inside)} ({100 * len(inside) / max(1, len(timed)):.1f} %)")
ests = [r["speedup"]["estimate"] for r in timed]
if ests:
    print(f"estimates: median {statistics.median(ests):.4f}, min {min(ests):.4f}, max {max(ests):.4f}")
    widths = [r["speedup"]["high"] / r["speedup"]["low"] - 1 for r in timed]
    print(f"interval width (high/low - 1): median {100 * statistics.median(widths):.2f} %")
for r in timed:
    if not (r["speedup"]["low"] <= 1.0 <= r["speedup"]["high"]):
        s = r["speedup"]
        print(f"  outside: {r['task_id']}: {s['estimate']:.4f} [{s['low']:.4f}, {s['high']:.4f}] base {r['baseline']['median_ms']:.4f} ms sol {r['solution']['median_ms']:.4f} ms")
from collections import Counter
print("not timed:", Counter(r.get("not_timed") for r in rows if not r["speedup"]).most_common(8))
# A baseline against itself must carry no run-time flag (region_host_time: issue 9).
flagged = [r for r in rows if r.get("cheat_flags")]
print(f"run-time flags: {len(flagged)} of {len(rows)}")
for r in flagged:
    print(f"  flagged: {r['task_id']}: {[f.get('check') if isinstance(f, dict) else f for f in r['cheat_flags']]}")
PY
    ;;
  slowed)
    python3 bench/make-slowed-solutions.py "$pack" "$out/slowed.jsonl" --limit "${LIMIT:-12}"
    timeout ${TLIM:-480} "$k" evaluate --problems "$pack" --solutions "$out/slowed.jsonl" "${common[@]}" --out "$out/run" "$@" > "$out/summary.json"
    echo "exit $?"
    python3 - "$out/run/perf.jsonl" "$out/run/results.jsonl" <<'PY'
import json, sys
res = {r["task_id"]: r["verdict"] for r in map(json.loads, open(sys.argv[2]))}
print("verdicts of the slowed copies:", {v: list(res.values()).count(v) for v in set(res.values())})
for r in map(json.loads, open(sys.argv[1])):
    s = r["speedup"]
    if s:
        print(f"{r['task_id']:10} speedup {s['estimate']:.3f} [{s['low']:.3f}, {s['high']:.3f}] {'SLOWER' if s['high'] < 1 else 'NOT SEEN'}")
    else:
        print(f"{r['task_id']:10} not timed: {r['not_timed']}")
PY
    ;;
  repeat)
    task=${TASK:?set TASK}
    out=$out/${task//\//-}
    mkdir -p "$out"
    for i in 1 2 3 4 5; do
      "$k" validate "$pack" --task "$task" "${common[@]}" --out "$out/run$i" "$@" > /dev/null
    done
    python3 - "$out" <<'PY'
import json, sys, statistics
meds = []
for i in range(1, 6):
    r = json.loads(open(f"{sys.argv[1]}/run{i}/perf.jsonl").readline())
    meds.append(r["solution"]["median_ms"]) if r["speedup"] else print("not timed:", r["not_timed"])
    if r["speedup"]: print(f"invocation {i}: median {r['solution']['median_ms']:.4f} ms (runs {', '.join(f'{x:.4f}' for x in r['solution_ms'])}); {r['how']}")
if len(meds) > 1:
    m = statistics.median(meds)
    print(f"spread of the 5 medians: (max - min) / median = {100 * (max(meds) - min(meds)) / m:.2f} %, stdev/mean = {100 * statistics.stdev(meds) / statistics.mean(meds):.2f} %")
PY
    ;;
esac
