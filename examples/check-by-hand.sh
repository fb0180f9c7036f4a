#!/usr/bin/env bash
# Checks the example pack and the example solutions by hand, without kjudge: for every problem's
# baseline and every solution directory it builds a throw-away workspace the way ComputeEval does
# (context files, then test files, then the solution's files), runs the problem's build_command
# and test_command under `timeout`, classifies the outcome and compares it with
# examples/expected-verdicts.tsv. It also checks the raw ComputeEval solution lines in
# examples/solutions-raw/*.jsonl for paths that leave the workspace or overwrite a test file.
#
# Usage: examples/check-by-hand.sh [SUBSTRING]   (only cases whose name contains SUBSTRING)
# Needs: bash, coreutils (timeout), python3, nvcc (PATH or /usr/local/cuda/bin). No GPU.
# Exit status: 0 when every case got its expected verdict, 1 otherwise.
#
# The YAML reading here is deliberately naive (one `key: value` per line) and the
# source-reference check only knows the `{all: [...]}` form the examples use; stray processes a
# test leaves behind (spawn-*) are found by their working directory and killed by pid.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
filter=${1:-}
export PATH="$PATH:/usr/local/cuda/bin"
command -v nvcc >/dev/null || { echo "check-by-hand: nvcc not found" >&2; exit 2; }

failures=0
tmproot=$(mktemp -d "${TMPDIR:-/tmp}/kjudge-check.XXXXXX")
trap 'rm -rf "$tmproot"' EXIT

spec_get() {  # FILE KEY -> value of a top-level `KEY: value` line, surrounding quotes removed
  sed -n "s/^$2:[[:space:]]*//p" "$1" | head -n 1 | sed -e 's/^"\(.*\)"$/\1/' -e "s/^'\(.*\)'\$/\1/"
}

problem_dir_for() {  # TASK_ID -> problem directory
  local d
  for d in "$here"/pack/*/; do
    if [ "$(spec_get "$d/problem-spec.yaml" task_id)" = "$1" ]; then echo "${d%/}"; return 0; fi
  done
  return 1
}

expected_for() {  # NAME -> expected verdict from the TSV
  awk -F'\t' -v n="$1" '$3 == n { print $4 }' "$here/expected-verdicts.tsv"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

kill_strays() {  # WS -> kills every process whose cwd is inside WS; prints how many
  local ws=$1 n=0 p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    case "$cwd" in
      "$ws" | "$ws"/*) kill -KILL "${p#/proc/}" 2>/dev/null && n=$((n + 1)) ;;
    esac
  done
  echo "$n"
}

# Prints 0 when the solution files (comments and string literals removed) name every reference.
srcrefs_ok() {  # SPEC SOLUTION_FILES...
  local spec=$1; shift
  python3 - "$spec" "$@" <<'PY'
import re, sys
spec = open(sys.argv[1]).read()
m = re.search(r'^source_references:\s*(.*)$', spec, re.M)
val = m.group(1).strip() if m else 'null'
if val in ('null', '~', ''):
    print(0); sys.exit()
refs = re.findall(r'"([^"]+)"', val)
if 'any:' in val:
    sys.exit('check-by-hand: only {all: [...]} source_references are supported')
code = ''
for path in sys.argv[2:]:
    text = open(path, encoding='utf-8', errors='replace').read()
    # Drop comments and string/char literals, keep everything else.
    text = re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', ' ', text, flags=re.S)
    code += text + '\n'
missing = [r for r in refs if not re.search(r'(?<![\w:])' + re.escape(r) + r'(?![\w])', code)]
print(1 if missing else 0)
PY
}

# Runs one case. NAME, PROBLEM_DIR, then a directory whose files (minus solution-spec.yaml) are
# the solution. Sets the globals verdict, build_s, test_s, out_bytes, strays.
run_case() {
  local name=$1 pdir=$2 sdir=$3
  local spec="$pdir/problem-spec.yaml"
  local build test tmo rc t0 t1
  build=$(spec_get "$spec" build_command)
  test=$(spec_get "$spec" test_command)
  tmo=$(spec_get "$spec" timeout_seconds)
  case "$tmo" in "" | null | "~") tmo=60 ;; esac
  build_s=-; test_s=-; out_bytes=0; strays=0

  local ws
  ws=$(mktemp -d "$tmproot/ws.XXXXXX")
  cp -R "$pdir/context/." "$ws/" 2>/dev/null || true
  mkdir -p "$ws/test" && cp -R "$pdir/test/." "$ws/test/"
  local files=()
  while IFS= read -r -d '' f; do
    f=${f#./}
    mkdir -p "$ws/$(dirname "$f")"
    cp "$sdir/$f" "$ws/$f"
    files+=("$ws/$f")
  done < <(cd "$sdir" && find . -type f ! -name solution-spec.yaml -print0)

  if [ -z "${IGNORE_SRCREFS:-}" ] && [ "$(srcrefs_ok "$spec" "${files[@]}")" != 0 ]; then
    verdict=source_reference_missing
    rm -rf "$ws"; return
  fi

  if [ -n "$build" ] && [ "$build" != null ]; then
    t0=$(now)
    (cd "$ws" && timeout -k 2 "$tmo" bash -c "$build") >"$ws.build.log" 2>&1 </dev/null
    rc=$?
    t1=$(now); build_s=$(elapsed "$t0" "$t1")
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then verdict=build_timeout; rm -rf "$ws" "$ws".*; return; fi
    if [ $rc -ne 0 ]; then verdict=build_error; rm -rf "$ws" "$ws".*; return; fi
  fi

  # Output goes to files, not pipes, so a background child holding stdout cannot stall us.
  t0=$(now)
  # (The outer braces keep bash's own "Segmentation fault" job notices off our stderr.)
  { (cd "$ws" && timeout -k 2 "$tmo" bash -c "$test") >"$ws.out" 2>"$ws.err" </dev/null; } 2>/dev/null
  rc=$?
  t1=$(now); test_s=$(elapsed "$t0" "$t1")
  out_bytes=$(($(stat -c %s "$ws.out") + $(stat -c %s "$ws.err")))
  if [ $rc -eq 0 ]; then verdict=pass
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then verdict=test_timeout
  elif [ $rc -gt 128 ]; then verdict=crash
  else verdict=test_fail
  fi
  if [ "$verdict" = test_fail ] && [ -n "${VERBOSE:-}" ]; then head -c 300 "$ws.err"; fi
  sleep 0.2
  strays=$(kill_strays "$ws")
  rm -rf "$ws" "$ws".*
}

report() {  # NAME TASK EXPECTED
  local ok=OK
  if [ "$verdict" != "$3" ]; then ok=MISMATCH; failures=$((failures + 1)); fi
  printf '%-8s %-20s %-44s want=%-24s got=%-24s build=%ss test=%ss out=%sB strays=%s\n' \
    "$ok" "$2" "$1" "$3" "$verdict" "$build_s" "$test_s" "$out_bytes" "$strays"
}

# 1. Every baseline must pass.
for pdir in "$here"/pack/*/; do
  pdir=${pdir%/}
  task=$(spec_get "$pdir/problem-spec.yaml" task_id)
  name="baseline:$(basename "$pdir")"
  case "$name" in *"$filter"*) ;; *) continue ;; esac
  run_case "$name" "$pdir" "$pdir/solution"
  report "$name" "$task" pass
done

# 2. Every solution directory must get the verdict the TSV gives it.
for sdir in "$here"/solutions/*/; do
  sdir=${sdir%/}
  name=$(basename "$sdir")
  case "$name" in *"$filter"*) ;; *) continue ;; esac
  task=$(spec_get "$sdir/solution-spec.yaml" task_id)
  want=$(expected_for "$name")
  if [ -z "$want" ]; then echo "MISSING  $name has no line in expected-verdicts.tsv"; failures=$((failures + 1)); continue; fi
  pdir=$(problem_dir_for "$task") || { echo "MISSING  no problem for $task"; failures=$((failures + 1)); continue; }
  run_case "$name" "$pdir" "$sdir"
  report "$name" "$task" "$want"
  case "$name" in
    spawn-*) if [ "$strays" -lt 1 ]; then echo "MISMATCH $name left no background process"; failures=$((failures + 1)); fi ;;
    srcref-missing-*)  # must be otherwise correct: passes once the reference check is waived
      IGNORE_SRCREFS=1 run_case "$name" "$pdir" "$sdir"
      report "$name (refs waived)" "$task" pass ;;
    flood-*) if [ "$out_bytes" -lt 50000000 ]; then echo "MISMATCH $name printed only $out_bytes bytes"; failures=$((failures + 1)); fi ;;
  esac
done

# 3. Raw ComputeEval solution lines: each must be rejected before anything is written or run.
for raw in "$here"/solutions-raw/*.jsonl; do
  [ -e "$raw" ] || continue
  while IFS=$'\t' read -r name task got; do
    case "$name" in *"$filter"*) ;; *) continue ;; esac
    verdict=$got; build_s=-; test_s=-; out_bytes=0; strays=0
    report "$name" "$task" "$(expected_for "$name")"
  done < <(python3 - "$raw" "$here" <<'PY'
import json, os, posixpath, re, sys
raw, here = sys.argv[1], sys.argv[2]
tests = {}
for d in sorted(os.listdir(os.path.join(here, 'pack'))):
    spec = open(os.path.join(here, 'pack', d, 'problem-spec.yaml')).read()
    task = re.search(r'^task_id:\s*(\S+)', spec, re.M).group(1).strip('"')
    root = os.path.join(here, 'pack', d)
    tests[task] = {os.path.relpath(os.path.join(dp, f), root)
                   for dp, _, fs in os.walk(os.path.join(root, 'test')) for f in fs}
rel = os.path.relpath(raw, here)
for i, line in enumerate(open(raw), 1):
    if not line.strip():
        continue
    s = json.loads(line)
    bad = not s.get('files')
    for f in s.get('files', []):
        p = f['path']
        norm = posixpath.normpath(p)
        if p.startswith('/') or norm == '..' or norm.startswith('../') or '\\' in p:
            bad = True
        if norm in tests.get(s['task_id'], set()):
            bad = True
    print(f"{rel}:{i}\t{s['task_id']}\t{'invalid_solution' if bad else 'valid'}")
PY
)
done

echo
if [ $failures -eq 0 ]; then echo "check-by-hand: all cases got their expected verdicts"; exit 0; fi
echo "check-by-hand: $failures case(s) did not"; exit 1
