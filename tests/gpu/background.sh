#!/usr/bin/env bash
# Runs a GPU check longer than one device call (10 minutes): `start` copies this checkout (the
# carried bundle/ included) to /tmp/kjudge-bg/src and runs the command there in a process session
# of its own (setsid), which outlives the call while the machine stays held; each `wait` call
# returns what it has so far. The command writes its files under its own $OUT
# (/tmp/kjudge-bg/out), which every call copies back to the call's $OUT.
# Usage: OUT=... tests/gpu/background.sh start SECONDS COMMAND [ARGS...]
#        OUT=... tests/gpu/background.sh wait SECONDS
# SECONDS: how long this call waits for the command to end (keep it under the call's limit).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
mode=${1:?start or wait}
budget=${2:-540}
shift 2 2>/dev/null || true
bg=/tmp/kjudge-bg
case "$mode" in
  start)
    [ $# -gt 0 ] || { echo "background.sh: start needs a command" >&2; exit 2; }
    rm -rf "$bg" && mkdir -p "$bg/out"
    cp -r . "$bg/src"
    git rev-parse HEAD > "$bg/commit" 2>/dev/null
    # The whole of it in the new session: the call's end must not take the exit status with it.
    setsid bash -c 'cd "$0/src" && OUT="$0/out" "$@" > "$0/log" 2>&1 < /dev/null; echo $? > "$0/rc"' \
      "$bg" "$@" < /dev/null > /dev/null 2>&1 &
    ;;
  wait) ;;
  *) echo "usage: background.sh start SECONDS COMMAND... | wait SECONDS" >&2; exit 2 ;;
esac
end=$(($(date +%s) + budget))
while [ ! -f "$bg/rc" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 5; done
echo "== background ($(cat "$bg/commit" 2>/dev/null)): $([ -f "$bg/rc" ] && echo "ended, exit $(cat "$bg/rc")" || echo "still running")"
tail -c 8000 "$bg/log"
if [ -n "${OUT:-}" ]; then
  cp "$bg/log" "$OUT/background.log" 2>/dev/null
  (cd "$bg/out" && tar czf "$OUT/background-out.tgz" --exclude='*-cache' --exclude='*.tar.gz' . 2>/dev/null)
fi
[ -f "$bg/rc" ]
