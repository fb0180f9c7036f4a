#!/usr/bin/env bash
# Issue 9's zero-false-positive check at run time: every 2025-3 baseline with a benchmark_command
# timed once against itself (--runs 1 --warmups 0: flags, not speedups) with the CUPTI profiler
# and the main guard, in parts that fit device calls. A baseline must pass its tests and carry no
# run-time flag (run-bench-checks.sh prints "run-time flags: N of M"). A group's journals go on
# from results/self-check/flags/GROUP (sent back by an earlier machine) with --resume.
# Usage: OUT=... tests/gpu/run-flag-check.sh SECONDS GROUP...   (GROUP: a 2025-3 group, e.g.
#        cuda-kernels)
# SECONDS bounds the run; leave 60 s to the call's limit (the comparison in flight finishes
# first). The journals come back as $OUT/flags.tgz: unpack them into results/self-check/flags/.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
export PATH="$PWD/${BUNDLE:-bundle}/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
k=${BUNDLE:-bundle}/kjudge
pack=${BUNDLE:-bundle}/datasets/2025-3-problems.tar.gz
end=$(($(date +%s) + $1))
shift
keep=/tmp/keep-flags/bench-self
mkdir -p "$keep"
for g in "$@"; do
  [ -d "$keep/$g" ] || { [ -d "results/self-check/flags/$g" ] && cp -r "results/self-check/flags/$g" "$keep/"; }
  resume=""
  [ -f "$keep/$g/run.json" ] && resume=--resume
  if [ -n "$resume" ] && [ ! -d /tmp/kb-cache ]; then
    # A fresh machine: build the group in parallel first; a resumed run's bench stage would
    # otherwise build each pair in turn.
    s0=$(date +%s)
    "$k" validate "$pack" --group "$g" --cache-dir /tmp/kb-cache -q --json --out "/tmp/prebuild-$g" > /dev/null
    echo "prebuild $g: exit $? in $(($(date +%s) - s0)) s"
  fi
  left=$((end - $(date +%s)))
  [ $left -lt 45 ] && break
  echo "== $g: TLIM $left s $resume"
  RUN_NAME=$g TLIM=$left GRACE=20 OUT=/tmp/keep-flags tests/gpu/run-bench-checks.sh self "$pack" \
    --group "$g" --runs 1 --warmups 0 $resume | grep -v '^  outside'
  python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))
print("main_guard:", s.get("main_guard"), "verdicts:", s.get("verdicts"), "complete:", s.get("complete"))' \
    "$keep/summary.json" 2>/dev/null || echo "$g: no summary (interrupted before it was written)"
done
tar czf "${OUT:-/tmp}/flags.tgz" -C "$keep" --exclude=work .
