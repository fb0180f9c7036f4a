#!/usr/bin/env bash
# GPU attack corpus (issue 3), on the GPU machine: an endless kernel, an illegal address, all GPU
# memory taken, a device reset, a device-side assert, a correct solution, then 16 GiB of host
# memory taken three ways (malloc, cudaHostAlloc, cudaMallocManaged) against a 4 GiB step memory
# limit, all sandboxed and
# one test at a time on the GPU, so each attack runs before the next solution. Prints each
# verdict against tests/gpu/attacks/expected.tsv, the GPUs taken out of the pool, and then
# validates a few ComputeEval baselines to show later solutions are still graded correctly.
# Usage: tests/gpu/run-attacks.sh [KJUDGE] [PACK]
set -uo pipefail
k=${1:-bundle/kjudge}
pack=${2:-bundle/datasets/2025-1-problems.tar.gz}
here=$(dirname "$0")/attacks
out=${OUT:-/tmp}/attacks
rm -rf "$out"; mkdir -p "$out"
"$k" problems pack "$here/problem" -o "$out/p.tar.gz" >/dev/null
"$k" solutions pack "$here/solutions" -o "$out/s.tar.gz" >/dev/null
"$k" evaluate --problems "$out/p.tar.gz" --solutions "$out/s.tar.gz" --tests-per-gpu 1 --workers 6 \
  --memory-limit 4GiB --out "$out/run" --cache-dir "$out/cache" -q
echo "evaluate exit $?"
python3 - "$out/run" "$here/expected.tsv" <<'PY'
import json, sys
run, tsv = sys.argv[1], sys.argv[2]
got = {r["sample"]: r for r in map(json.loads, open(run + "/results.jsonl"))}
for line in open(tsv):
    s, name, want = line.rstrip("\n").split("\t")
    r = got[int(s)]
    mark = "ok " if r["verdict"] == want else "DIFF"
    peak = r["test"].get("memory_peak_bytes", 0) / 2**30
    print(f"{mark} {name:16} {r['verdict']:13} (expected {want}) {r['test']['seconds']:.1f}s peak {peak:.2f} GiB  {r['detail'][:80]}")
    if r["test"].get("log"): print("     log:", r["test"]["log"].strip().splitlines()[0][:100])
s = json.load(open(run + "/summary.json"))
print("broken_gpus:", s.get("broken_gpus"), "sandbox:", s.get("sandbox"), "limits:", s.get("sandbox_limits"))
PY
nvidia-smi --query-gpu=index,memory.used,utilization.gpu --format=csv,noheader
echo "== baselines after the attacks"
"$k" validate "$pack" --limit 8 --out "$out/after" --cache-dir "$out/cache" -q --json |
  python3 -c "import json,sys; s=json.load(sys.stdin); print(s['verdicts'])"
