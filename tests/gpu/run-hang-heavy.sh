#!/usr/bin/env bash
# Issue 35's hang-heavy comparison on the GPU machine (after scripts/gpu-bundle): the set of
# bench/make-hang-heavy.py (baselines, kernels that return at once, endless kernels) graded by
# `kjudge evaluate` and by bench/computeeval_emulation.py (ComputeEval's local evaluator's design)
# in the same call, one after the other on an empty cache, wall times and verdicts side by side.
# Usage: tests/gpu/run-hang-heavy.sh [PACK] [extra make-hang-heavy options...]
#   TLIM   seconds each judge may take (default 420; a judge past it is stopped and reported so)
#   ORDER  "kjudge first" (default) or "emulation first"
set -uo pipefail
pack=${1:-bundle/datasets/2025-1-problems.tar.gz}
shift 2>/dev/null || true
out=${OUT:-/tmp}/hang-heavy
rm -rf "$out" && mkdir -p "$out"
export PATH=$PWD/bundle/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH
python3 bench/make-hang-heavy.py "$pack" "$out/set.jsonl" "$@" || exit 2

run_kjudge() {
  local t0=$SECONDS
  timeout -k 30 "${TLIM:-420}" bundle/kjudge evaluate --problems "$pack" --solutions "$out/set.jsonl" \
    --cache-dir "$out/kjudge-cache" --out "$out/kjudge" -q --json > "$out/kjudge-summary.json" 2> "$out/kjudge.err"
  echo "kjudge exit $? wall $((SECONDS - t0)) s"
}
run_emulation() {
  local t0=$SECONDS
  timeout -k 30 "${TLIM:-420}" python3 bench/computeeval_emulation.py "$pack" --solutions "$out/set.jsonl" \
    --out "$out/emulation.jsonl" > "$out/emulation-summary.json" 2> "$out/emulation.err"
  echo "emulation exit $? wall $((SECONDS - t0)) s"
}
if [ "${ORDER:-kjudge first}" = "emulation first" ]; then run_emulation; run_kjudge; else run_kjudge; run_emulation; fi

python3 - "$out" <<'PY'
import collections, json, os, sys
d = sys.argv[1]
kinds = {}
for line in open(os.path.join(d, "set.jsonl.kinds.tsv")):
    tid, sample, kind = line.rstrip("\n").split("\t")
    kinds[(tid, int(sample))] = kind
kj = {}
if os.path.exists(os.path.join(d, "kjudge/results.jsonl")):
    for line in open(os.path.join(d, "kjudge/results.jsonl")):
        r = json.loads(line)
        kj[(r["task_id"], r["sample"])] = r["verdict"]
em = {}
if os.path.exists(os.path.join(d, "emulation.jsonl")):
    for line in open(os.path.join(d, "emulation.jsonl")):
        r = json.loads(line)
        em[(r["task_id"], r.get("sample", 0))] = ("pass" if r["passed"] else "skipped" if r["skipped"]
                                                  else f"{r['failed_stage']}" + ("_timeout" if r["timed_out"] else ""))
print(f"graded: kjudge {len(kj)} of {len(kinds)}, emulation {len(em)} of {len(kinds)}")
for kind in ("baseline", "wrong", "endless"):
    keys = [k for k, v in kinds.items() if v == kind]
    print(f"{kind:9} kjudge {dict(collections.Counter(kj.get(k, 'not graded') for k in keys))}")
    print(f"{'':9} emulation {dict(collections.Counter(em.get(k, 'not graded') for k in keys))}")
# Pass or not, the two must agree on every solution both graded.
same = lambda a, b: (a == "pass") == (b == "pass")
differ = [(k, kj[k], em[k]) for k in kinds if k in kj and k in em and not same(kj[k], em[k])]
print(f"pass/fail disagreements: {len(differ)}")
for k, a, b in differ[:20]:
    print(f"  {k[0]} #{k[1]} ({kinds[k]}): kjudge {a}, emulation {b}")
s = json.load(open(os.path.join(d, "kjudge-summary.json"))) if os.path.getsize(os.path.join(d, "kjudge-summary.json")) else {}
t = s.get("timing", {})
print(f"kjudge timing: wall {t.get('wall_s')} s, builds {t.get('build_s_sum')} s, tests {t.get('test_s_sum')} s, quiet retries {t.get('quiet_retries')}")
PY
