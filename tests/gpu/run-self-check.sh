#!/usr/bin/env bash
# Issue 4's self-check of 2025-3 in parts that fit device calls: each group's baselines timed
# against themselves (tests/gpu/run-bench-checks.sh self), 5 runs per side, for the ids in
# results/self-check/ids-GROUP.txt (what earlier sessions had not timed yet), going on from the
# journals in results/self-check/GROUP (sent back by an earlier machine) with --resume.
# Usage: OUT=... tests/gpu/run-self-check.sh SECONDS GROUP...   (GROUP: ck, cb, ml, ml2; SKIP: a
#        regex of task ids left out of a group's first run, e.g. SKIP='^cufft/2$' for one whose
#        own benchmark loop takes minutes; a group with journals resumes only with its own list)
# SECONDS bounds the timing; leave at least 150 s to the call's limit, since the comparison in
# flight at that point finishes first. The journals come back as $OUT/self.tgz: unpack them into
# results/self-check/ to go on next time.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/${BUNDLE:-bundle}/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
k=${BUNDLE:-bundle}/kjudge
pack=${BUNDLE:-bundle}/datasets/2025-3-problems.tar.gz
end=$(($(date +%s) + $1))
shift
keep=/tmp/keep/bench-self
ids() {  # the group's untimed ids as --task arguments, less those SKIP names
  python3 -c 'import re, sys
words = open(sys.argv[1]).read().split()
skip = re.compile(sys.argv[2]) if sys.argv[2] else None
print(" ".join("--task " + t for t in words[1::2] if not (skip and skip.search(t))))' "results/self-check/ids-$1.txt" "${SKIP:-}"
}
mkdir -p "$keep"
for g in "$@"; do
  [ -d "$keep/$g" ] || { [ -d "results/self-check/$g" ] && cp -r "results/self-check/$g" "$keep/"; }
  left=$((end - $(date +%s)))
  [ $left -lt 45 ] && break
  resume=""
  [ -f "$keep/$g/perf.jsonl" ] && resume=--resume
  if [ -n "$resume" ] && [ -n "${SKIP:-}" ]; then
    # The journal's fingerprint covers the --task list: a run left out this time would make
    # kjudge refuse the resume. Write a new ids-GROUP.txt without it and start that group anew.
    echo "run-self-check: SKIP cannot go with a resumed group ($g has journals); see the usage" >&2
    continue
  fi
  if [ -n "$resume" ] && [ ! -d /tmp/kb-cache ]; then
    # A fresh machine: build what is still untimed in parallel first; a resumed run's bench
    # stage would otherwise build each pair in turn.
    rest=$(python3 -c 'import json, sys
done = {json.loads(l)["task_id"] for l in open(sys.argv[1])}
ids = sys.argv[2].split()[1::2]
print(" ".join("--task " + t for t in ids if t not in done))' "$keep/$g/perf.jsonl" "$(ids "$g")")
    s0=$(date +%s)
    # shellcheck disable=SC2086
    "$k" validate "$pack" $rest --cache-dir /tmp/kb-cache -q --json --out "/tmp/prebuild-$g" > /dev/null
    echo "prebuild $g: exit $? in $(($(date +%s) - s0)) s"
    left=$((end - $(date +%s)))
    [ $left -lt 45 ] && break
  fi
  echo "== $g: TLIM $left s $resume"
  # shellcheck disable=SC2046
  RUN_NAME=$g TLIM=$left OUT=/tmp/keep tests/gpu/run-bench-checks.sh self "$pack" \
    $(ids "$g") --runs 5 --warmups 1 $resume
  mv "$keep/$g/perf-conditions.json" "$keep/$g/perf-conditions-$(date +%s).json" 2> /dev/null
done
tar czf "${OUT:-/tmp}/self.tgz" -C "$keep" $(cd "$keep" && ls -d */)
nvidia-smi --query-gpu=name,temperature.gpu,clocks.sm,power.draw --format=csv,noheader
