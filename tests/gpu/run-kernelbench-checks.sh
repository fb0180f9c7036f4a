#!/usr/bin/env bash
# Issue 37's checks on the GPU machine (after scripts/gpu-bundle; carry `bundle`), about 8 minutes
# on a 16-core H100 for `all`. Every journal goes under $OUT.
#   unit   the KernelBench runner's Python tests with torch and the GPU (python/tests/kernelbench:
#          the torch parts skip on the CPU machines): prints unittest's "OK";
#   self   every level 1-3 reference (250) judged as its own ModelNew: correctness of all 250 with
#          12 processes at once, each timed (20 pairs after 3 warm-ups, no torch.compile); prints
#          the verdicts (all `correct` expected; a reference that fails here is listed), how many
#          speedup intervals hold 1.00 (all but a few of 250: a 95 % interval misses ~5 % by
#          chance), the worst ones, and the total time; then levels' first 4 problems again with
#          torch.compile timed too (speedup over compile listed);
#   bad    tests/gpu/kernelbench-bad (one ModelNew per file, named L<level>_<id>--<variant>.py)
#          judged with --hacks fail and CUPTI where found: prints each one's verdict and findings
#          against tests/gpu/kernelbench-bad/expected.tsv, ok or DIFF (exit 1 on a DIFF); the
#          honest CUDA solution is judged twice (two samples, one source): its second import is
#          the extension read from the cache (its `import` phase seconds printed for both);
#   hf     level 4's path: a tiny GPT-2 made and saved by this script (transformers, no hub) in
#          $OUT/hf, a level-4 problem that loads it with from_pretrained, judged with HF_HOME set
#          (expect correct) and without it (expect env_error naming HF_HOME); skipped, saying so,
#          where transformers is not installed;
#   all    unit, self, bad, hf.
# Usage: OUT=/tmp/kb tests/gpu/run-kernelbench-checks.sh [all|unit|self|bad|hf]
#        (PY= the interpreter with torch, default /opt/torch/.venv/bin/python3; KJUDGE= another
#        binary; DATA= another data folder; WORKERS= processes at once, default 12; for self:
#        LEVELS= default "1 2 3", LTIME= seconds a level may take, default 300, NO_COMPILE=1
#        leaves out the torch.compile part)
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/bundle/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
py=${PY:-/opt/torch/.venv/bin/python3}
k=${KJUDGE:-bundle/kjudge}
data=${DATA:-bundle/datasets/kernelbench}
out=${OUT:-/tmp/kernelbench-checks}
workers=${WORKERS:-12}
mkdir -p "$out"
what=${1:-all}
status=0
common=(--python "$py" --timeout 240 --cache-dir "$out/ext-cache")

unit() {
  echo "== unit: the runner's Python tests with torch"
  KJUDGE_END_CLOCK=$PWD/bundle/lib/libkjudge_end_clock.so \
    "$py" -B -m unittest discover -s python/tests/kernelbench -t python/tests/kernelbench -v 2>&1 | tail -60
}

self_check() {
  echo "== self: 250 references judged as their own ModelNew"
  start=$(date +%s)
  for level in ${LEVELS:-1 2 3}; do
    timeout "${LTIME:-300}" "$k" kernelbench eval "$data" --self --level "$level" "${common[@]}" --workers "$workers" \
      --no-compile --perf-trials 20 --min-perf-trials 20 --warmup 3 --hacks flag -q \
      --out "$out/self-L$level" --json > "$out/self-L$level-summary.json"
    echo "level $level: exit $? after $(( $(date +%s) - start )) s"
  done
  "$py" - "$out" <<'PY'
import collections, glob, json, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/self-L*/results.jsonl")):
    rows += [json.loads(l) for l in open(f)]
v = collections.Counter(r["verdict"] for r in rows)
print("references judged:", len(rows), "verdicts:", dict(v))
for r in rows:
    if r["verdict"] != "correct":
        print("  NOT CORRECT:", r["key"], r["problem"], r["verdict"], r["detail"][:200])
timed = [r for r in rows if r["speedup"]["eager"]]
hold = [r for r in timed if r["speedup"]["eager"]["low"] <= 1 <= r["speedup"]["eager"]["high"]]
print("timed:", len(timed), "intervals holding 1.00:", len(hold))
miss = sorted((r for r in timed if r not in hold),
              key=lambda r: -abs(1 - r["speedup"]["eager"]["estimate"]))
for r in miss[:12]:
    s = r["speedup"]["eager"]
    print("  outside: %-8s %-48s %.4f [%.4f, %.4f] end=%s ref %.3f ms" % (
        r["key"], r["problem"][:48], s["estimate"], s["low"], s["high"], r["speedup"]["end"],
        s["baseline_mean_ms"]))
hacks = collections.Counter(f["check"] for r in rows for f in r["findings"] if f["severity"] == "hack")
print("hack findings on the references (should be none):", dict(hacks))
PY
  [ -n "${NO_COMPILE:-}" ] && return
  echo "-- torch.compile on each level's first 4 problems"
  timeout 400 "$k" kernelbench eval "$data" --self "${common[@]}" --workers "$workers" --perf-trials 20 \
    --min-perf-trials 20 --hacks flag -q --out "$out/self-compile" \
    --problem L1/1 --problem L1/2 --problem L1/3 --problem L1/4 \
    --problem L2/1 --problem L2/2 --problem L2/3 --problem L2/4 \
    --problem L3/1 --problem L3/2 --problem L3/3 --problem L3/4 > "$out/self-compile.txt"
  echo "exit $?"
  "$py" - "$out/self-compile/results.jsonl" <<'PY'
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    e, c = r["speedup"]["eager"], r["speedup"]["compile"]
    print("%-6s %-44s %s eager %s compile %s (%s)" % (
        r["key"], r["problem"][:44], r["verdict"],
        e and "%.3f [%.3f, %.3f]" % (e["estimate"], e["low"], e["high"]),
        c and "%.3f [%.3f, %.3f]" % (c["estimate"], c["low"], c["high"]),
        (r.get("compile") or {}).get("why", "")[:80]))
PY
}

bad() {
  echo "== bad: wrong, slow and hacking solutions"
  "$py" - tests/gpu/kernelbench-bad "$out/bad.jsonl" <<'PY' || return 2
import json, os, sys
folder, path = sys.argv[1:3]
with open(path, "w") as f:
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        problem, _ = name[:-3].split("--")
        level, pid = problem[1:].split("_")
        code = open(os.path.join(folder, name)).read()
        f.write(json.dumps({"level": int(level), "problem_id": int(pid), "code": code}) + "\n")
        if name.endswith("--cuda.py"):  # the same source again: built once, read from the cache
            f.write(json.dumps({"level": int(level), "problem_id": int(pid), "code": code}) + "\n")
PY
  timeout 400 "$k" kernelbench eval "$data" --solutions "$out/bad.jsonl" "${common[@]}" \
    --workers 4 --no-compile --perf-trials 30 -q --out "$out/bad" > "$out/bad-summary.txt"
  echo "exit $?"
  "$py" - tests/gpu/kernelbench-bad "$out/bad.jsonl" "$out/bad/results.jsonl" <<'PY'
import json, os, sys
folder, sols, results = sys.argv[1:4]
names = []
for name in sorted(os.listdir(folder)):
    if name.endswith(".py"):
        names.append(name)
        if name.endswith("--cuda.py"):
            names.append(name)
expected = {}
for line in open(os.path.join(folder, "expected.tsv")):
    if line.startswith("#") or not line.strip():
        continue
    f, verdicts, finding, speed = line.rstrip("\n").split("\t")
    expected[f] = (verdicts.split("|"), finding, speed)
codes = [json.loads(l)["code"] for l in open(sols)]
by_code = {}
for name, code in zip(names, codes):
    by_code.setdefault(code, []).append(name)
rows = [json.loads(l) for l in open(results)]
bad = 0
seen = {}
for r in sorted(rows, key=lambda r: r["key"]):
    # Which file: its problem and sample order (the solutions file lists them in file order).
    i = [j for j, l in enumerate(open(sols)) if json.loads(l)["level"] == r["level"]
         and json.loads(l)["problem_id"] == r["problem_id"]][r["sample"]]
    name = names[i]
    want_v, want_f, speed = expected[name]
    checks = sorted({f["check"] for f in r["findings"]})
    sp = r["speedup"]["eager"]
    ok = r["verdict"] in want_v and (want_f == "-" or want_f in checks)
    if speed == "below1":
        ok = ok and sp is not None and sp["high"] < 1
    if speed == "holds1":
        ok = ok and sp is not None and sp["low"] <= 1 <= sp["high"]
    bad += not ok
    print("%-4s %-26s %-14s want %-24s findings %s%s%s" % (
        "ok" if ok else "DIFF", name, r["verdict"], "|".join(want_v) + " " + want_f,
        ",".join(checks) or "-",
        " speedup %.3f [%.3f, %.3f]" % (sp["estimate"], sp["low"], sp["high"]) if sp else "",
        "" if ok else "\n      " + r["detail"][:300]))
    if name.endswith("--cuda.py"):
        print("      import phase %.1f s (the second sample reads the extension from the cache)"
              % r["run"]["phases"].get("import", -1))
print("not as expected:", bad)
sys.exit(1 if bad else 0)
PY
  [ $? -eq 0 ] || status=1
}

hf() {
  echo "== hf: level 4 with a tiny local model"
  if ! "$py" -c 'import transformers' 2> /dev/null; then
    echo "skipped: transformers is not installed in $py"
    return
  fi
  rm -rf "$out/hf" && mkdir -p "$out/hf/data/level4"
  "$py" - "$out/hf" <<'PY' || return 2
import os, sys
from transformers import GPT2Config, GPT2LMHeadModel
root = sys.argv[1]
cfg = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=512, n_positions=128)
path = os.path.join(root, "home", "tiny-gpt2")
GPT2LMHeadModel(cfg).save_pretrained(path)
problem = f'''import torch
from transformers import AutoModelForCausalLM, AutoConfig

class Model(torch.nn.Module):
    def __init__(self, model_name, config):
        super().__init__()
        self.model = AutoModelForCausalLM.from_pretrained(model_name, config=config)

    def forward(self, x):
        return self.model(x).logits

model_name = "{path}"
config = AutoConfig.from_pretrained(model_name)
vocab_size = config.vocab_size

def get_inputs():
    return [torch.randint(0, vocab_size, (2, 32))]

def get_init_inputs():
    return [model_name, config]
'''
open(os.path.join(root, "data", "level4", "1_tiny-gpt2_bs2_seq32.py"), "w").write(problem)
PY
  mkdir -p "$out/hf/data/level1" && cp "$data/level1/19_ReLU.py" "$out/hf/data/level1/"
  HF_HOME="$out/hf/home" timeout 200 "$k" kernelbench eval "$out/hf/data" --self --level 4 \
    "${common[@]}" --workers 1 --perf-trials 10 --no-compile -q --out "$out/hf/run" \
    --json > "$out/hf/summary.json"
  echo "with HF_HOME: exit $?"
  "$py" -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])][0]; print(r["key"], r["verdict"], r["detail"][:200], r["speedup"]["eager"])' "$out/hf/run/results.jsonl"
  env -u HF_HOME timeout 100 "$k" kernelbench eval "$out/hf/data" --self --level 4 \
    "${common[@]}" -q --out "$out/hf/run-nocache" --json > /dev/null
  echo "without HF_HOME: exit $? (3 expected)"
  "$py" -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])][0]; print(r["key"], r["verdict"], r["detail"][:200])' "$out/hf/run-nocache/results.jsonl"
}

t0=$(date +%s)
case "$what" in
  unit) unit ;;
  self) self_check ;;
  bad) bad ;;
  hf) hf ;;
  all) unit; self_check; bad; hf ;;
  *) echo "usage: $0 [all|unit|self|bad|hf]" >&2; exit 2 ;;
esac
echo "done in $(( $(date +%s) - t0 )) s; journals under $out"
exit $status
