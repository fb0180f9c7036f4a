#!/usr/bin/env bash
# Issue 35's scaling proof on a machine with several GPUs (after NO_TESTS=1 scripts/gpu-bundle;
# carry `bundle`; run inside tests/gpu/background.sh when it may take longer than one call): a
# ComputeEval pack validated once to fill the build cache, then warm on one GPU, on two, and on
# four where the machine has them, each from the same cache; wall times side by side, the ratio
# to one GPU (goal for 2025-3: at most 0.6 with two), where the time went (build, wait, test),
# and the verdicts compared problem by problem (they must be identical).
# Usage: OUT=... tests/gpu/run-gpu-scaling.sh [PACK]   (default bundle/datasets/2025-3-problems.tar.gz)
#   TPG  --tests-per-gpu (default: kjudge's, 4)
set -uo pipefail
cd "$(dirname "$0")/../.."
pack=${1:-bundle/datasets/2025-3-problems.tar.gz}
out=${OUT:-/tmp}/gpu-scaling
rm -rf "$out" && mkdir -p "$out"
export PATH="$PWD/bundle/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
n=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
echo "GPUs: $n ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)), cores: $(nproc)"
tpg=()
[ -n "${TPG:-}" ] && tpg=(--tests-per-gpu "$TPG")
validate() {  # name, GPU list
  local t0=$(date +%s%N)
  bundle/kjudge validate "$pack" --cache-dir "$out/cache" --gpus "$2" "${tpg[@]}" \
    --out "$out/$1" -q --json > "$out/$1-summary.json" 2> "$out/$1.err"
  echo "$1 --gpus $2: exit $? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}
all=$(seq -s, 0 $((n - 1)))
validate cold "$all"
validate warm-1 0
[ "$n" -ge 2 ] && validate warm-2 0,1
[ "$n" -ge 4 ] && validate warm-4 0,1,2,3
python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
runs = [r for r in ("warm-1", "warm-2", "warm-4") if os.path.exists(os.path.join(d, r + "-summary.json"))]
def load(name):
    s = open(os.path.join(d, name + "-summary.json")).read()
    summary = json.loads(s) if s.strip() else {}
    verdicts = {}
    path = os.path.join(d, name, "results.jsonl")
    if os.path.exists(path):
        for line in open(path):
            r = json.loads(line)
            verdicts[(r["task_id"], r.get("sample", 0))] = r["verdict"]
    timing = dict(summary.get("timing", {}))
    timing["wait_s_sum"] = timing.get("phases", {}).get("test_wait_s_sum")
    return timing, verdicts
base_t, base_v = load("warm-1")
for name in runs:
    t, v = load(name)
    wall = t.get("wall_s") or 0
    ratio = wall / base_t["wall_s"] if base_t.get("wall_s") else float("nan")
    differ = [k for k in base_v if v.get(k) != base_v[k]]
    print("%-7s wall %7.1f s  ratio %.3f  builds %.1f s  waits %.1f s  tests %.1f s  "
          "verdicts differing from one GPU: %d of %d" % (
              name, wall, ratio, t.get("build_s_sum") or 0, t.get("wait_s_sum") or 0,
              t.get("test_s_sum") or 0, len(differ), len(base_v)))
    for k in differ[:10]:
        print("   ", k, base_v[k], "->", v.get(k))
PY
