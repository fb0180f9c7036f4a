#!/usr/bin/env bash
# Issue 8's self-speedup sweep on the GPU machine (after scripts/gpu-bundle; carry `bundle`):
# every selected operator of CHANNEL judged against itself with --speedup (4 timed rounds and 1
# warm-up round, one timing process at a time), a few operators per `kjudge triton eval`, until
# the call's wall budget is spent. A device call is at most 10 minutes, so the sweep goes over
# several calls: each prints `NEXT START=N` for the next one. The progress lines (each speedup
# as it comes) are kept beside every run's folder, so an invocation cut at the budget still
# leaves its figures; tests/gpu/triton-sweep-summary.py gathers them.
# Usage: OUT=... [START=1] [GROUP=3] [BUDGET=575] [OPS_FILE=f] [SKIP="a b"] [PEAKS=f]
#        tests/gpu/run-triton-sweep.sh [CHANNEL]
#   OPS_FILE  operator names, one a line (default: `kjudge triton list CHANNEL` minus SKIP);
#   SKIP      operators left out of the default list (default: the G references that fail in
#             torch 2.11 / triton 3.6, results/gpu-runs.md);
#   DONE      folders of earlier sweeps (results/triton/...): operators with a speedup there are
#             left out, so a new session carries on where the last one stopped;
#   PEAKS     a peaks file (python/kjudge_gpu_peaks.py) for the GPU efficiency figures;
#   GPU       the GPU every run uses (`--gpu`: CUDA_VISIBLE_DEVICES), default not set;
#   LIST_ONLY=1  print the operators it would run, one a line, and stop (for
#             run-triton-sweep-gpus.sh, which splits them over a machine's GPUs);
#   ROUNDS, WARMUP  timed rounds (default 4) and warm-up rounds (default 1) per operator: the
#             slowest operators (50 s a process: compiling and autotuning in each fresh one) fit
#             a device call only with fewer processes;
#   CUPTI=1   time with --cupti (the profiler required in every timing process; by default
#             kjudge uses it where it finds it, CUPTI=0 passes --no-cupti): the honest operators
#             must come back with no cupti_* flag (triton-sweep-summary.py counts flags).
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/bundle/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
py=${PY:-/opt/torch/.venv/bin/python3}
k=${KJUDGE:-bundle/kjudge}
data=${DATA:-bundle/datasets/tritonbench}
out=${OUT:-/tmp}/sweep
channel=${1:-G}
T0=$(date +%s)
budget=${BUDGET:-575}
group=${GROUP:-3}
i=${START:-1}
mkdir -p "$out"
skip=${SKIP-sgmv_expand_slice chunk_retention_ops chunk_gla_fwd int8_dequant_matmul fp4_to_bf16_conversion triton_linear_activation}
if [ -n "${OPS_FILE:-}" ]; then
  mapfile -t ops < <(grep -v '^\s*$' "$OPS_FILE")
else
  mapfile -t ops < <("$k" triton list "$data" --channel "$channel" --json |
    "$py" -c 'import json,sys; skip=set(sys.argv[1].split()); [print(o["name"]) for o in json.load(sys.stdin) if o["name"] not in skip]' "$skip")
fi
if [ -n "${DONE:-}" ]; then
  # shellcheck disable=SC2086
  mapfile -t done_ops < <("$py" tests/gpu/triton-sweep-summary.py --timed $DONE)
  keep=()
  for o in "${ops[@]}"; do
    [[ " ${done_ops[*]} " == *" $o "* ]] || keep+=("$o")
  done
  echo "${#done_ops[@]} operators already timed in $DONE" >&2
  ops=("${keep[@]}")
fi
if [ -n "${LIST_ONLY:-}" ]; then
  printf '%s\n' "${ops[@]}"
  exit 0
fi
peaks=(); [ -n "${PEAKS:-}" ] && peaks=(--peaks "$PEAKS")
gpu=(); [ -n "${GPU:-}" ] && gpu=(--gpu "$GPU")
echo "${#ops[@]} operators; from $i, $group per invocation, $budget s${GPU:+, GPU $GPU}"
# An operator takes about 75 s (10 timing processes of 6-8 s, and its checks); slower ones
# are cut at the budget with their progress lines kept.
while [ "$i" -le ${#ops[@]} ]; do
  left=$((budget - ($(date +%s) - T0)))
  g=$group
  while [ $g -gt 0 ] && [ $left -lt $((75 * g + 20)) ]; do g=$((g - 1)); done
  [ $g -eq 0 ] && break
  args=(); names=""
  for o in "${ops[@]:$((i - 1)):$g}"; do args+=(--operator "$o"); names="$names $o"; done
  d="$out/$i"; s=$(date +%s)
  timeout -k 5 "$left" "$k" triton eval "$data" --self --channel "$channel" "${args[@]}" \
    --speedup --rounds "${ROUNDS:-4}" --warmup-rounds "${WARMUP:-1}" "${peaks[@]}" "${gpu[@]}" --python "$py" \
    --timeout 150 --out "$d" $(case "${CUPTI:-}" in 1) echo --cupti ;; 0) echo --no-cupti ;; esac) --json > "$d.json" 2> "$d.err"
  rc=$?
  echo "[$i]$names: exit $rc in $(($(date +%s) - s)) s"
  grep -E "speedup|failed|timed out" "$d.err" | cut -c1-170
  i=$((i + g))
done
echo "NEXT START=$i (elapsed $(($(date +%s) - T0)) s)"
nvidia-smi --query-gpu=name,temperature.gpu,clocks.sm,power.draw --format=csv,noheader
