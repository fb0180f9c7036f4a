#!/usr/bin/env bash
# Issue 34's proof on one machine (after NO_TESTS=1 scripts/gpu-bundle; carry `bundle`): the
# whole of a ComputeEval release validated three times, the first on an empty build cache and
# the next two from that cache, their verdicts compared problem by problem; then every cuda_cpp
# baseline under compute-sanitizer memcheck.
#
# The chain takes longer than one device call, so `start` runs it in a process session of its
# own (setsid), which outlives the call while the machine stays held, and each `wait` call
# returns what it has so far. Every stage keeps its journal, so a machine lost midway still
# gives back each run's verdicts up to that point.
#
# Usage: OUT=... tests/gpu/run-release-proof.sh start SECONDS   (start the chain, then wait)
#        OUT=... tests/gpu/run-release-proof.sh wait SECONDS    (wait for it, give back its files)
#   RELEASE (default 2026-1) names the release; MEMCHECK=0 leaves out the memcheck stage.
# What comes back: $OUT/release-proof.tgz (each run's results.jsonl, summary.json, run.json and
# log), $OUT/chain.log and, once the runs are compared, $OUT/compare.txt.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
mode=${1:?start or wait}
budget=${2:-560}
rp=/tmp/release-proof
release=${RELEASE:-2026-1}

stage() {  # name, then the validate options of that stage
  local name=$1
  shift
  local s0
  s0=$(date +%s)
  echo "== $name: validate --release $release $* ($(date -u +%H:%M:%S))"
  "$rp/bundle/kjudge" validate --release "$release" --datasets "$rp/bundle/datasets" \
    --cache-dir "$rp/cache" --out "$rp/$name" -q "$@" > "$rp/$name.log" 2>&1
  echo "   exit $? in $(($(date +%s) - s0)) s"
}

chain() {
  echo "== the machine"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nproc
  git -C "$rp/src" rev-parse HEAD 2>/dev/null || cat "$rp/commit" 2>/dev/null
  export PATH="$rp/bundle/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
  "$rp/bundle/kjudge" --version 2>/dev/null
  "$rp/bundle/kjudge" doctor --problems "$rp/bundle/datasets/$release-problems.tar.gz" \
    > "$rp/doctor.txt" 2>&1
  echo "doctor: exit $?"
  stage r1
  stage r2
  stage r3
  python3 "$rp/compare.py" "$rp/r1" "$rp/r2" "$rp/r3" > "$rp/compare.txt" 2>&1
  echo "compare: exit $?"
  if [ "${MEMCHECK:-1}" != 0 ]; then
    stage memcheck --memcheck --group cccl --group cublas --group cuda-kernels \
      --group cuda-runtime --group mathlibs --group cudnn
    python3 "$rp/compare.py" --memcheck "$rp/memcheck" >> "$rp/compare.txt" 2>&1
  fi
  echo "== chain done ($(date -u +%H:%M:%S))"
  touch "$rp/done"
}

give_back() {
  [ -n "${OUT:-}" ] || return 0
  cp "$rp/chain.log" "$OUT/" 2>/dev/null
  cp "$rp/compare.txt" "$OUT/" 2>/dev/null
  (cd "$rp" && tar czf "$OUT/release-proof.tgz" --ignore-failed-read doctor.txt ./*.log \
    r1/results.jsonl r1/summary.json r1/run.json r2/results.jsonl r2/summary.json r2/run.json \
    r3/results.jsonl r3/summary.json r3/run.json memcheck/results.jsonl memcheck/summary.json \
    memcheck/run.json 2>/dev/null)
  ls -la "$OUT"
}

case "$mode" in
  start)
    rm -rf "$rp"
    mkdir -p "$rp"
    # The chain runs from copies: a later call re-sends the working tree, bundle/ included.
    cp -r bundle "$rp/bundle"
    cp tests/gpu/release-proof-compare.py "$rp/compare.py"
    git rev-parse HEAD > "$rp/commit" 2>/dev/null
    export -f chain stage
    export rp release MEMCHECK
    setsid bash -c chain > "$rp/chain.log" 2>&1 < /dev/null &
    ;;
  wait) ;;
  *) echo "usage: run-release-proof.sh start|wait SECONDS" >&2; exit 2 ;;
esac
end=$(($(date +%s) + budget))
while [ ! -f "$rp/done" ] && [ "$(date +%s)" -lt $end ]; do
  sleep 5
done
cat "$rp/chain.log"
for r in r1 r2 r3 memcheck; do
  [ -f "$rp/$r/results.jsonl" ] && echo "$r: $(wc -l < "$rp/$r/results.jsonl") graded"
done
[ -f "$rp/compare.txt" ] && cat "$rp/compare.txt"
give_back
