#!/usr/bin/env bash
# Issue 7's check on the GPU machine (after scripts/gpu-bundle): `kjudge serve` judges a batch of
# a pack's baselines and the example tasks, and its verdicts must be those of `kjudge validate`
# and `kjudge task run` on the same machine.
#   pack part:  the first LIMIT problems' baselines, sent as one bulk batch over the API;
#   task part:  a leaderboard per example task; naive in benchmark mode, fast in leaderboard
#               mode, every cheat-* in leaderboard mode, each through `kjudge submit`.
# Everything lands in $OUT/serve-checks.json and a table on stdout.
# Usage: tests/gpu/run-serve-checks.sh [PACK] [LIMIT]
set -uo pipefail
cd "$(dirname "$0")/../.."
pack=${1:-bundle/datasets/2025-1-problems.tar.gz}
limit=${2:-40}
b=$PWD/${BUNDLE:-bundle}
k=$b/kjudge
export PATH="$b/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
w=/tmp/serve-checks
rm -rf "$w"
mkdir -p "$w" "${OUT:-/tmp}"
db=$w/board.db
admin=$("$k" users add root --admin --db "$db" | tail -1)
alice=$("$k" users add alice --db "$db" | tail -1)
"$k" problems export "$pack" "$w/problems" --limit "$limit" > /dev/null || exit 1

# Both sides cap a task benchmark at MAXT seconds (default 2) or MAXRUNS timed calls, so the check fits a
# device call.
maxt=${MAXT:-2}
# Ranked calls each check the output against the reference, computed afresh per call: cap them.
maxruns=${MAXRUNS:-200}
"$k" serve --db "$db" --port 0 --pack p="$pack" --tasks examples/tasks --max-time "$maxt" \
  --max-runs "$maxruns" --cache-dir "$w/cache-serve" > "$w/serve.out" 2> "$w/serve.err" &
serve_pid=$!
for _ in $(seq 100); do
  grep -q '^listening on' "$w/serve.out" 2> /dev/null && break
  sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$w/serve.out" | head -1)
[ -n "$url" ] || { echo "serve did not start"; cat "$w/serve.err"; exit 1; }
echo "service at $url"

tasks=(vectoradd softmax prefixsum matmul vectorsum)
# The same work by the one-shot commands, beside the service: timed runs on either side take
# turns through the machine-wide GPU lock, and verdicts do not depend on timing.
oneshot() {
t0=$(date +%s)
ids=()
for d in "$w"/problems/*/; do
  ids+=(--task "$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["task_id"])' "$d/problem-spec.yaml")")
done
"$k" validate "$pack" "${ids[@]}" -q --json --cache-dir "$w/cache-cli" --out "$w/validate" > /dev/null
echo "validate: exit $?"
for t in "${tasks[@]}"; do
  for s in examples/tasks/$t/submissions/*.cu; do
    n=$(basename "$s" .cu)
    case "$n" in naive) mode=benchmark ;; *) mode=leaderboard ;; esac
    KJUDGE_CACHE_DIR=$w/cache-cli "$k" task run "examples/tasks/$t" "$s" --mode "$mode" -q \
      --max-time "$maxt" --max-runs "$maxruns" --out "$w/taskrun-$t-$n" > /dev/null 2>&1
    echo "task run $t/$n ($mode): exit $?"
  done
done
echo "one-shot commands done in $(($(date +%s) - t0)) s"
}
oneshot > "$w/oneshot.log" 2>&1 &
oneshot_pid=$!
t0=$(date +%s)
# The task part through the CLI client, one submission at a time (tasks run one by one anyway).
for t in "${tasks[@]}"; do
  curl -s -H "Authorization: Bearer $admin" -d "{\"name\": \"$t\", \"task\": \"$t\"}" \
    "$url/api/v1/leaderboards" > /dev/null
done
pack_part() {
python3 - "$url" "$alice" "$w/problems" "$w/pack-submissions.json" <<'PY'

# The pack part: every exported baseline as one bulk batch, then wait for each verdict.
import json, os, sys, urllib.request, yaml
url, token, root, dest = sys.argv[1:]
items = []
for d in sorted(os.listdir(root)):
    spec = yaml.safe_load(open(os.path.join(root, d, "problem-spec.yaml")))
    sol = os.path.join(root, d, "solution")
    files = {}
    for dirpath, _, names in os.walk(sol):
        for n in names:
            p = os.path.join(dirpath, n)
            files[os.path.relpath(p, sol)] = open(p).read()
    items.append({"target": f"pack:p#{spec['task_id']}", "files": files, "priority": "bulk",
                  "idempotency_key": f"baseline-{spec['task_id']}"})
def call(method, path, body=None):
    req = urllib.request.Request(url + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": f"Bearer {token}",
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=700) as r:
        return json.load(r)
sent = call("POST", "/api/v1/submissions", {"items": items})
out = {}
for item, res in zip(items, sent["items"]):
    out[item["target"].split("#", 1)[1]] = call("GET", f"/api/v1/submissions/{res['id']}?wait=600")
json.dump(out, open(dest, "w"))
PY
}
for t in "${tasks[@]}"; do
  for s in examples/tasks/$t/submissions/*.cu; do
    n=$(basename "$s" .cu)
    case "$n" in naive) mode=benchmark ;; *) mode=leaderboard ;; esac
    KJUDGE_TOKEN=$alice "$k" submit --server "$url" --leaderboard "$t" --mode "$mode" "$s" \
      --wait 600 --json > "$w/task-$t-$n.json"
    echo "submitted $t/$n ($mode): exit $? at $(($(date +%s) - t0)) s"
  done
done
echo "tasks done in $(($(date +%s) - t0)) s"
pack_part
echo "service done in $(($(date +%s) - t0)) s"
curl -s "$url/api/v1/leaderboards" -H "Authorization: Bearer $alice" > "$w/boards.json"
for t in "${tasks[@]}"; do
  curl -s "$url/api/v1/leaderboards/$t" -H "Authorization: Bearer $alice" > "$w/board-$t.json"
done
kill "$serve_pid"
wait "$serve_pid"
wait "$oneshot_pid"
cat "$w/oneshot.log"


python3 - "$w" "${OUT:-/tmp}/serve-checks.json" <<'PY'
import glob, json, os, sys
w, dest = sys.argv[1:]
report = {"pack": {}, "tasks": {}}
served = json.load(open(f"{w}/pack-submissions.json"))
cli = {r["task_id"]: r for r in map(json.loads, open(f"{w}/validate/results.jsonl"))}
same = 0
for tid, sub in sorted(served.items()):
    runs = sub.get("runs", [])
    sv = runs[0]["result"].get("verdict") if runs and runs[0].get("result") else sub.get("status")
    cv = cli.get(tid, {}).get("verdict")
    same += sv == cv
    report["pack"][tid] = {"service": sv, "validate": cv, "status": sub.get("status")}
    if sv != cv:
        print(f"  DIFFERENT {tid}: service {sv} ({sub.get('status')}), validate {cv}")
print(f"pack: {same} of {len(served)} verdicts identical; service verdicts "
      f"{ {v: [r['service'] for r in report['pack'].values()].count(v) for v in {r['service'] for r in report['pack'].values()}} }")
print(f"{'task/submission':26} {'mode':12} {'service passed':15} {'task run passed':16} service score µs / task run score µs")
for f in sorted(glob.glob(f"{w}/task-*.json")):
    name = os.path.basename(f)[5:-5]
    try:
        sub = json.load(open(f))
    except ValueError:
        sub = {}
    runs = sub.get("runs", [])
    public = [r for r in runs if not r.get("secret")]
    s_passed = bool(runs) and all(r.get("passed") for r in public)
    s_score = next((r.get("score") for r in public if r.get("score") is not None), None)
    secret = [r.get("passed") for r in runs if r.get("secret")]
    p = f"{w}/taskrun-{name}/task-run.json"
    tr = json.load(open(p)) if os.path.exists(p) else {}
    mode = "benchmark" if name.endswith("-naive") else "leaderboard"
    report["tasks"][name] = {"service_passed": s_passed, "service_score_us": s_score,
                             "service_secret_passed": secret, "task_run_passed": tr.get("passed"),
                             "task_run_score_us": tr.get("score_us"),
                             "service_modes": [(r.get("mode"), r.get("secret"), r.get("passed")) for r in runs]}
    flag = "" if s_passed == tr.get("passed") else "  DIFFERENT"
    print(f"{name:26} {mode:12} {str(s_passed):15} {str(tr.get('passed')):16} {s_score} / {tr.get('score_us')}{flag}")
report["boards"] = {os.path.basename(f)[6:-5]: json.load(open(f)).get("rankings") for f in glob.glob(f"{w}/board-*.json")}
print("rankings:", json.dumps(report["boards"])[:1500])
json.dump(report, open(dest, "w"), indent=1)
PY
cp "$w/serve.err" "${OUT:-/tmp}/serve.err" 2> /dev/null
