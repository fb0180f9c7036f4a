#!/usr/bin/env bash
# Stops a cluster started by start-cluster.sh and removes its directory.
#
#   tests/slurm/stop-cluster.sh DIR [--keep]    # --keep: leave DIR (logs) in place
#
# Each daemon is stopped by the pid in its own pid file under DIR, never by name, so another
# Slurm or munge on the machine is left alone. Idempotent.
set -uo pipefail

dir="${1:?usage: stop-cluster.sh DIR [--keep]}"
keep="${2:-}"
[ -d "$dir" ] || exit 0

stop_pidfile() {
  local f="$1" pid i
  [ -f "$f" ] || return 0
  pid="$(cat "$f" 2>/dev/null || true)"
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null || true
}

if [ -f "$dir/slurm.conf" ]; then
  # Cancel what is still queued or running, so slurmd leaves no slurmstepd behind.
  SLURM_CONF="$dir/slurm.conf" timeout 10 scancel --quiet --full --user=root >/dev/null 2>&1 || true
  sleep 0.5
fi
# slurmd first (its job steps end with it), then the controller, then munge they both use.
stop_pidfile "$dir/slurmd.pid"
stop_pidfile "$dir/slurmctld.pid"
stop_pidfile "$dir/munge/munged.pid"

if [ "$keep" != "--keep" ]; then
  rm -rf "$dir"
fi
