#!/usr/bin/env bash
# Issue 9's isolated runs on the GPU machine (after scripts/gpu-bundle; carry `bundle`):
# `kjudge task run --isolate` puts the submission in a worker process and keeps the reference,
# the report and the clock in the checker (harness/kjudge/split_call.cuh). This checks that
#   honest   every example task's fast and naive submissions pass the test stage and the
#            benchmark stage isolated, every timed output checked;
#   cost     the fast submissions' benchmark means isolated (the worker's own events, the score)
#            against the same runs in one process, alternated (in, iso, in, iso), with the
#            checker's event means beside them (mean/checker mean) and the measured crossing
#            (`crossing_us`): what crossing between the processes adds, and whether the
#            isolated_time flag stays off for honest work;
#   default  the cheats and the naive submissions run with no isolation flag: `task run` is
#            isolated by default, so each of those lines must say "iso";
#   cheats   forge_report_memory.cu (reads the nonce from the harness's memory and writes its
#            own report) passes in one process and fails isolated; the cheats the one-process
#            harness catches at run time are still caught isolated (stale_buffer and
#            cache_by_pointer fail or gain nothing; side_stream, background_thread and
#            deferred_host_callback show timing_gap and isolated_time: the checker's events see
#            the work the worker's own events miss); keep_warm_thread.cu (GPU work between the
#            calls from a thread of its own) shows cupti_outside: since the thirteenth session the
#            checker hands the CUPTI profiler to the worker. Each line says whether the worker's
#            record was used (cupti) and how the worker ended (worker_end).
# Prints one line a run and the tables; every task-run.json lands in $OUT/iso/.
# Usage: tests/gpu/run-isolate-check.sh [TASK...]   (MAXT seconds of timed calls per benchmark,
#        default 1; DEADLINE seconds after which no run starts, default 540)
set -uo pipefail
cd "$(dirname "$0")/../.."
tasks=("$@")
[ ${#tasks[@]} -eq 0 ] && tasks=(vectoradd softmax prefixsum matmul vectorsum)
k=$PWD/${BUNDLE:-bundle}/kjudge
export PATH="$PWD/${BUNDLE:-bundle}/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
export KJUDGE_CACHE_DIR=/tmp/iso-cache
out=${OUT:-/tmp}/iso
mkdir -p "$out"
maxt=${MAXT:-1}
deadline=$(($(date +%s) + ${DEADLINE:-540}))
cheats=(forge_report_memory stale_buffer cache_by_pointer side_stream background_thread deferred_host_callback keep_warm_thread)

# Everything built first, in parallel, isolated builds (they hold kjudge_task too).
{
  for t in "${tasks[@]}"; do
    for s in fast naive; do echo "examples/tasks/$t examples/tasks/$t/submissions/$s.cu"; done
  done
  for c in "${cheats[@]}"; do echo "examples/tasks/vectoradd tests/cheats/task/$c.cu"; done
} | xargs -P "$(nproc)" -L 1 sh -c '"$0" task build "$1" "$2" --isolate --out "/tmp/iso-builds/$(basename "$2")-$$" -q > /dev/null 2>&1' "$k"
echo "prebuilt in ${SECONDS} s"

run() {  # NAME TASK FILE MODE [options]
  local name=$1 t=$2 f=$3 mode=$4
  shift 4
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "$name not run (DEADLINE)"
    return
  fi
  "$k" task run "$t" "$f" --mode "$mode" --out "$out/$name" -q --max-time "$maxt" \
    --max-runs 300 "$@" > /dev/null 2> "$out/$name.err"
  local rc=$?
  python3 - "$out/$name/task-run.json" "$name" "$rc" <<'EOF'
import json, sys
path, name, rc = sys.argv[1:4]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name}: exit {rc}, no report ({e})")
    sys.exit()
parts = []
for s in r.get("stages", []):
    flags = sorted({f["check"] for f in s.get("cheat_flags", []) if f.get("source") != "static"})
    means = " ".join(f'{b["mean_us"]:.2f}' + (f"/{b['checker_mean_us']:.2f}" if "checker_mean_us" in b else "")
                     for b in s.get("benchmarks", []) if b.get("status") == "pass")
    chk = " ".join(f'{b["checked"]}/{b["runs"]}' for b in s.get("benchmarks", []))
    cross = [b["crossing_us"] for b in s.get("benchmarks", []) if "crossing_us" in b]
    parts.append(f'{s["mode"]}:{"pass" if s["passed"] else "FAIL"}'
                 + (" iso" if s.get("isolated") else "")
                 + (f" crossing {cross[0]:.1f}" if cross else "")
                 + (f" [{means}]" if means else "") + (f" checked {chk}" if chk else "")
                 + (f" flags {','.join(flags)}" if flags else "")
                 + (f" cupti {'used' if s['cupti'].get('used') else 'no: ' + s['cupti'].get('why', '')[:80]}"
                    if "cupti" in s else "")
                 + (f" worker_end {s['worker_end']}" if "worker_end" in s else "")
                 + ("" if s["passed"] else f' ({s["failure"][:150]})'))
print(f"{name}: exit {rc}; " + "; ".join(parts))
EOF
}

# The cheats first (deferred_host_callback was cut by the deadline before), and with no
# isolation flag: `task run` is isolated by default, so these runs must say "iso".
run "forge_report_memory-in" examples/tasks/vectoradd tests/cheats/task/forge_report_memory.cu benchmark --no-isolate
run "forge_report_memory-default" examples/tasks/vectoradd tests/cheats/task/forge_report_memory.cu benchmark
run "forge_report_memory-lb-default" examples/tasks/vectoradd tests/cheats/task/forge_report_memory.cu leaderboard
for c in "${cheats[@]:1}"; do
  run "$c-default" examples/tasks/vectoradd "tests/cheats/task/$c.cu" benchmark
done
for t in "${tasks[@]}"; do
  f=examples/tasks/$t/submissions/fast.cu
  run "$t-fast-in-1" "examples/tasks/$t" "$f" benchmark --no-isolate
  run "$t-fast-iso-1" "examples/tasks/$t" "$f" benchmark --isolate
  run "$t-fast-in-2" "examples/tasks/$t" "$f" benchmark --no-isolate
  run "$t-fast-iso-2" "examples/tasks/$t" "$f" benchmark --isolate
  run "$t-naive-default" "examples/tasks/$t" "examples/tasks/$t/submissions/naive.cu" benchmark
done
echo "done in ${SECONDS} s"
nvidia-smi --query-gpu=name,temperature.gpu,clocks.sm,power.draw --format=csv,noheader
