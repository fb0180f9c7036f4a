#!/usr/bin/env bash
# Issue 8's checks on the GPU machine (after scripts/gpu-bundle; carry `bundle`):
#   self    every G reference judged against itself (and checked against a second run of
#           itself): call/execution accuracy, unstable references and no-output ones listed;
#   speed   the GPU's peaks measured, then OPS (default matrix_transpose add_example
#           rmsnorm_fused) timed against themselves in interleaved rounds: the speedup interval
#           should hold 1.00, with the efficiency against the measured peaks.
# Usage: OUT=... tests/gpu/run-triton-checks.sh self|speed [CHANNEL] [OPS...]
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/bundle/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
py=${PY:-/opt/torch/.venv/bin/python3}
k=bundle/kjudge
data=bundle/datasets/tritonbench
out=${OUT:-/tmp}
what=$1
channel=${2:-G}
shift 2 2> /dev/null || shift $#
case "$what" in
  self)
    timeout "${TLIM:-520}" "$k" triton eval "$data" --self --channel "$channel" --python "$py" \
      --workers 15 --timeout 150 --out "$out/self-$channel" --json > "$out/self-$channel.json"
    echo "exit $?"
    "$py" - "$out/self-$channel.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("totals:", json.dumps(s["totals"]))
for key in ("reference_failures", "reference_unstable", "reference_no_output"):
    rows = s.get(key, [])
    print(f"{key}: {len(rows)}")
    for x in rows:
        print("  ", x.get("operator"), str(x.get("detail", ""))[:160].replace("\n", " "))
PY
    ;;
  speed)
    ops=("$@")
    [ ${#ops[@]} -eq 0 ] && ops=(matrix_transpose add_example rmsnorm_fused)
    "$py" python/kjudge_gpu_peaks.py --out "$out/peaks.json" --cache-dir /tmp/kj-peaks
    args=()
    for o in "${ops[@]}"; do args+=(--operator "$o"); done
    timeout "${TLIM:-480}" "$k" triton eval "$data" --self --channel "$channel" "${args[@]}" \
      --speedup --rounds 4 --warmup-rounds 1 --peaks "$out/peaks.json" --python "$py" \
      --timeout 150 --out "$out/speed" --json > "$out/speed-summary.json"
    echo "exit $?"
    "$py" - "$out/speed/results.jsonl" <<'PY'
import json, sys
for d in map(json.loads, open(sys.argv[1])):
    s = d.get("speedup")
    print(d["operator"], d["verdict"],
          s and f"{s['estimate']:.4f} [{s['low']:.4f}, {s['high']:.4f}] rounds {s.get('round_ratios')}",
          json.dumps(d.get("gpu_efficiency")))
PY
    ;;
  *) echo "usage: $0 self|speed [CHANNEL] [OPS...]" >&2; exit 2 ;;
esac
