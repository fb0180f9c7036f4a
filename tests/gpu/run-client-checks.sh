#!/usr/bin/env bash
# Issue 38's check on the GPU machine (after scripts/gpu-bundle): the Python client
# (clients/python, kjudge_client, from the source tree: no PyPI there) reads task rewards from a
# real `kjudge serve` with the example tasks. CI covers pack problems (tests/clients/); task
# runs need a GPU. Per example task, an admin makes a board through the client; alice submits
# naive.cu in benchmark mode (a standalone task submission) and fast.cu to the board (ranked),
# all waited for at once by the AsyncClient. Checks: every reward passed, is timed and has a
# score; the board ranks alice with exactly her fast reward's score_us; naive's benchmark score
# is larger (slower) than fast's ranked one. Results in $OUT/client-checks.json and on stdout.
# Usage: tests/gpu/run-client-checks.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
b=$PWD/${BUNDLE:-bundle}
k=$b/kjudge
export PATH="$b/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
w=/tmp/client-checks
rm -rf "$w"
mkdir -p "$w" "${OUT:-/tmp}"
db=$w/board.db
admin=$("$k" users add root --admin --db "$db" | tail -1)
alice=$("$k" users add alice --db "$db" | tail -1)
"$k" serve --db "$db" --port 0 --tasks examples/tasks --max-time "${MAXT:-2}" \
  --max-runs "${MAXRUNS:-200}" --cache-dir "$w/cache" > "$w/serve.out" 2> "$w/serve.err" &
serve_pid=$!
trap 'kill "$serve_pid" 2> /dev/null; wait "$serve_pid" 2> /dev/null' EXIT
for _ in $(seq 100); do
  grep -q '^listening on' "$w/serve.out" 2> /dev/null && break
  sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$w/serve.out" | head -1)
[ -n "$url" ] || { echo "serve did not start"; cat "$w/serve.err"; exit 1; }
echo "service at $url"

PYTHONPATH=$PWD/clients/python/src KJUDGE_SERVER=$url KJUDGE_TOKEN=$alice ADMIN=$admin \
  OUTFILE=${OUT:-/tmp}/client-checks.json python3 -I - << 'EOF'
import asyncio, json, os, sys
sys.path.insert(0, os.environ["PYTHONPATH"])  # -I ignores PYTHONPATH itself
import kjudge_client as kc

tasks = ["vectoradd", "softmax", "prefixsum", "matmul", "vectorsum"]
code = lambda t, n: open(f"examples/tasks/{t}/submissions/{n}.cu").read()
admin = kc.Client(token=os.environ["ADMIN"])
for t in tasks:
    admin.create_leaderboard(f"{t}-client", task=t)

async def main():
    async with kc.AsyncClient() as c:
        naive = [await c.submit(kc.task_target(t), code=code(t, "naive"), mode="benchmark")
                 for t in tasks]
        fast = [await c.submit_to_leaderboard(f"{t}-client", code=code(t, "fast"))
                for t in tasks]
        rewards = await c.rewards([a.id for a in naive + fast], timeout=3000)
        boards = [await c.leaderboard(f"{t}-client") for t in tasks]
        return rewards[:len(tasks)], rewards[len(tasks):], boards

naive, fast, boards = asyncio.run(main())
rows, ok = [], True
for t, n, f, b in zip(tasks, naive, fast, boards):
    ranking = next(iter(b.rankings.values()), ())
    row = {"task": t, "naive_passed": n.passed, "naive_score_us": n.score_us,
           "fast_passed": f.passed, "fast_score_us": f.score_us, "fast_review": f.review,
           "ranked": [(e.rank, e.user, e.score) for e in ranking],
           "flags": [x.check for x in f.flags]}
    good = (n.passed and f.passed and n.timed and f.timed and n.score_us > f.score_us and
            len(ranking) == 1 and ranking[0].user == "alice" and
            abs(ranking[0].score - f.score_us) < 1e-6 * f.score_us)
    row["ok"] = good
    ok &= good
    rows.append(row)
    print(f"{t:10} naive {n.score_us!s:>12} µs  fast {f.score_us!s:>12} µs  "
          f"ranked {row['ranked']}  {'ok' if good else 'FAILED'}")
json.dump({"ok": ok, "tasks": rows}, open(os.environ["OUTFILE"], "w"), indent=2)
sys.exit(0 if ok else 1)
EOF
rc=$?
echo "client checks: exit $rc"
exit $rc
