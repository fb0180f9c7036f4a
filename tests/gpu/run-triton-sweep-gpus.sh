#!/usr/bin/env bash
# Issue 8's self-speedup sweep over every GPU of a machine at once (after scripts/gpu-bundle;
# carry `bundle`): the operators run-triton-sweep.sh would run (same CHANNEL, SKIP, DONE,
# OPS_FILE) are dealt round-robin to the GPUs, and one run-triton-sweep.sh per GPU times its
# share with `--gpu N`, each still one timing process at a time on its own GPU. A device call
# is at most 10 minutes: every share prints its own `NEXT START=N`; what was timed goes into
# DONE for the next call (the shares are dealt again from what is left).
# Usage: OUT=... [GPUS=n] [BUDGET=575] [DONE="..."] [OPS_FILE=f] [PEAKS=f|measure]
#        tests/gpu/run-triton-sweep-gpus.sh [CHANNEL]
#   GPUS      how many GPUs (default: all nvidia-smi lists);
#   PEAKS     a peaks file, or `measure`: python/kjudge_gpu_peaks.py on GPU 0 first (into
#             $OUT/peaks.json), for another GPU model than the one the bench file holds.
# Results: $OUT/gpuN/sweep/... per GPU, and $OUT/gpuN.log with its progress lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
py=${PY:-/opt/torch/.venv/bin/python3}
T0=$(date +%s)
out=${OUT:-/tmp}
budget=${BUDGET:-575}
n=${GPUS:-$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)}
[ "$n" -ge 1 ] || { echo "run-triton-sweep-gpus: no GPU" >&2; exit 3; }
mkdir -p "$out"
peaks=${PEAKS:-}
if [ "$peaks" = measure ]; then
  peaks=$out/peaks.json
  if ! CUDA_VISIBLE_DEVICES=0 timeout 120 "$py" python/kjudge_gpu_peaks.py --out "$peaks" \
    > "$out/peaks.log" 2>&1; then
    echo "peaks not measured (no efficiency figures):"
    tail -3 "$out/peaks.log"
    peaks=
  fi
fi
LIST_ONLY=1 tests/gpu/run-triton-sweep.sh "$@" > "$out/ops.txt"
total=$(grep -c . "$out/ops.txt")
echo "$total operators over $n GPUs, $budget s"
for ((g = 0; g < n; g++)); do
  awk -v g="$g" -v n="$n" 'NF && (NR - 1) % n == g' "$out/ops.txt" > "$out/ops-gpu$g.txt"
done
left=$((budget - ($(date +%s) - T0)))
for ((g = 0; g < n; g++)); do
  [ -s "$out/ops-gpu$g.txt" ] || continue
  OUT=$out/gpu$g OPS_FILE=$out/ops-gpu$g.txt GPU=$g PEAKS=$peaks BUDGET=$left DONE= \
    tests/gpu/run-triton-sweep.sh "$@" > "$out/gpu$g.log" 2>&1 &
done
wait
for ((g = 0; g < n; g++)); do
  [ -f "$out/gpu$g.log" ] || continue
  echo "== GPU $g"
  grep -E "speedup|exit|NEXT" "$out/gpu$g.log" | cut -c1-170
done
echo "done in $(($(date +%s) - T0)) s"
nvidia-smi --query-gpu=index,name,temperature.gpu,clocks.sm,power.draw --format=csv,noheader
