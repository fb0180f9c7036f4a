#!/usr/bin/env bash
# Issue 8's checks on the GPU machine (after scripts/gpu-bundle; carry `bundle`):
#   self    every G reference judged against itself (and checked against a second run of
#           itself): call/execution accuracy, unstable references and no-output ones listed;
#   speed   the GPU's peaks measured, then OPS (default matrix_transpose add_example
#           rmsnorm_fused) timed against themselves in interleaved rounds: the speedup interval
#           should hold 1.00, with the efficiency against the measured peaks;
#   bad     the known-bad candidates of tests/gpu/triton-bad (OP--wrong.py: a wrong result,
#           must be a mismatch; OP--slow.py: the same result slower, speedup interval below 1)
#           and each operator's reference as a control, judged with --speedup and the peaks;
#           prints what was expected against what came back, and each one's GPU efficiency
#           with the numbers to check it by hand (exit 1 when a bad one was not caught);
#   cheats  the Triton rows of the cheat corpus (tests/cheats/manifest.tsv, `where` naming the
#           device), each judged with --speedup against its target operator, and each target's
#           reference as the control: prints what the manifest expects against what came back
#           (verdict, speedup, the check of every timed call), ok or DIFF, writes
#           $OUT/triton-cheats.json (exit 1 on a DIFF). tests/cheats/run-device.sh runs it.
#           With --cupti (CUPTI=0: --no-cupti): a control is one with no timing flag at all.
#   speed and bad time with the profiler where kjudge finds it (its default), CUPTI=1 requires
#           it (--cupti), CUPTI=0 turns it off (--no-cupti) (the profiler in every timing
#           process): what it costs the figures, and that honest operators get no cupti flag.
#   fp      (issue 31) test mode, every reference of CHANNEL judged as two candidates of itself:
#           the operator's own calls compared beside the test's result must fail none;
#   clock   (issue 31) the profiler's clock against CLOCK_REALTIME (the judge's per-call channel).
# Usage: OUT=... tests/gpu/run-triton-checks.sh self|speed|bad|cheats|fp|clock [CHANNEL] [OPS...]
#        (bad, cheats: ROUNDS=N timed rounds per candidate, default 4 for bad: two of each
#        order, so the t interval keeps a degree of freedom; 2 for cheats; bad, speed: PEAKS=FILE
#        skips measuring them; KJUDGE=, DATA= another binary and data folder, e.g. for a dry run with
#        the fake runner)
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/bundle/bwrap/root/usr/bin:/usr/local/cuda/bin:$PATH"
py=${PY:-/opt/torch/.venv/bin/python3}
k=${KJUDGE:-bundle/kjudge}
data=${DATA:-bundle/datasets/tritonbench}
out=${OUT:-/tmp}
mkdir -p "$out"
what=$1
channel=${2:-G}
shift 2 2> /dev/null || shift $#
# Issue 31: the judge holds each timed call's marks to the time between its key and its done
# on its own clock, CLOCK_REALTIME, which it takes CUPTI's to be (src/perf/profiler/clock.h).
# Shown here: the profiler's clock read in a process with the library preloaded, against
# time.time_ns() read right after (should be a few us; an offset of seconds or years means the
# clocks are not comparable, and every result's cupti.candidate.clock says so).
clock_check() {
  lib=${PROFILER:-$(dirname "$k")/libkjudge_profiler.so}
  [ -f "$lib" ] || { echo "profiler clock: no $lib"; return; }
  LD_PRELOAD=$lib KJUDGE_PROFILE_FILE=/tmp/kj-clock-$$.prof KJUDGE_PROFILE_NONCE=n0nce \
    "$py" -c 'import ctypes, os, time
l = ctypes.CDLL(None); now = l.kjudge_profiler_now_ns; now.restype = ctypes.c_uint64
import torch; torch.zeros(1, device="cuda"); torch.cuda.synchronize()
a = now(); t = time.time_ns(); b = now()
print("profiler clock - CLOCK_REALTIME: %.1f us (two readings %.1f us apart)" % ((a - t) / 1e3, (b - a) / 1e3))
os._exit(0)' || echo "profiler clock: not read"
  rm -f /tmp/kj-clock-$$.prof
}

case "$what" in
  clock)
    clock_check
    ;;
  fp)
    # Issue 31's false-positive check, test mode: every reference of the channel judged as
    # two candidates of itself (sample 0 is the reference's second run; sample 1 is judged
    # against the first run, with the entries where those two differ set apart), so that the
    # comparison of the operator's own calls (entry_call_check) meets honest code it never
    # saw. Every sample 1 should pass wherever its reference is stable.
    "$py" - "$k" "$data" "$channel" "$out/fp-$channel.jsonl" <<'PY' || exit 2
import json, os, sys
k, data, channel, path = sys.argv[1:5]
sep = "#" * 146
n = 0
with open(path, "w") as out:
    for line in open(os.path.join(data, "TritonBench_operator_files.jsonl")):
        d = json.loads(line)
        if d["channel"] != channel:
            continue
        lines = d["content"].split("\n")
        cut = [i for i, l in enumerate(lines) if l.rstrip("\r") == sep]
        if len(cut) != 1:
            continue
        code = "".join(l + "\n" for l in lines[:cut[0]])  # as the judge splits it
        for sample in (0, 1):
            out.write(json.dumps({"file": d["file"], "channel": channel, "sample": sample,
                                  "code": code}) + "\n")
        n += 1
print(channel, "references as candidates:", n)
PY
    timeout "${TLIM:-560}" "$k" triton eval "$data" --channel "$channel" \
      --solutions "$out/fp-$channel.jsonl" --python "$py" --workers 15 --timeout 150 \
      --out "$out/fp-$channel" --json > "$out/fp-$channel-summary.json"
    echo "exit $?"
    "$py" - "$out/fp-$channel/results.jsonl" <<'PY'
import collections, json, sys
rows = [d for d in map(json.loads, open(sys.argv[1])) if d["sample"] == 1]
v = collections.Counter(d["verdict"] for d in rows)
print("sample 1 verdicts:", dict(v))
checked = sum(1 for d in rows if d.get("entry_call_check"))
print("entry calls compared for", checked, "of", len(rows))
bad = [d for d in rows if d["verdict"] not in ("pass", "reference_failed", "reference_unstable",
                                                 "no_output", "excluded")]
for d in bad:
    print("FALSE POSITIVE?", d["operator"], d["verdict"], d["detail"][:300])
    if d.get("entry_call_check"):
        print("   ", json.dumps(d["entry_call_check"])[:400])
sys.exit(1 if bad else 0)
PY
    ;;
  self)
    timeout "${TLIM:-520}" "$k" triton eval "$data" --self --channel "$channel" --python "$py" \
      --workers 15 --timeout 150 --out "$out/self-$channel" --json > "$out/self-$channel.json"
    echo "exit $?"
    "$py" - "$out/self-$channel.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("totals:", json.dumps(s["totals"]))
for key in ("reference_failures", "reference_unstable", "reference_no_output"):
    rows = s.get(key, [])
    print(f"{key}: {len(rows)}")
    for x in rows:
        print("  ", x.get("operator"), str(x.get("detail", ""))[:160].replace("\n", " "))
PY
    ;;
  speed)
    ops=("$@")
    [ ${#ops[@]} -eq 0 ] && ops=(matrix_transpose add_example rmsnorm_fused)
    if [ -n "${PEAKS:-}" ]; then cp "$PEAKS" "$out/peaks.json"; else
      "$py" python/kjudge_gpu_peaks.py --out "$out/peaks.json" --cache-dir /tmp/kj-peaks; fi
    args=()
    for o in "${ops[@]}"; do args+=(--operator "$o"); done
    case "${CUPTI:-}" in 1) args+=(--cupti) ;; 0) args+=(--no-cupti) ;; esac
    clock_check
    timeout "${TLIM:-480}" "$k" triton eval "$data" --self --channel "$channel" "${args[@]}" \
      --speedup --rounds "${ROUNDS:-4}" --warmup-rounds 1 --peaks "$out/peaks.json" \
      --python "$py" --timeout 150 --out "$out/speed" --json > "$out/speed-summary.json"
    echo "exit $?"
    "$py" - "$out/speed/results.jsonl" <<'PY'
import json, sys
bad = 0
for d in map(json.loads, open(sys.argv[1])):
    s = d.get("speedup")
    print(d["operator"], d["verdict"],
          s and f"{s['estimate']:.4f} [{s['low']:.4f}, {s['high']:.4f}] rounds {s.get('round_ratios')}",
          json.dumps(d.get("gpu_efficiency")))
    if d["verdict"] not in ("pass", "excluded", "reference_failed", "reference_unstable",
                            "no_output") or (d["verdict"] == "pass" and not s):
        bad += 1
        print("   NOT AS EXPECTED:", d["detail"][:300], (d.get("speedup_note") or "")[:300])
    if "cupti" in d or "timing_flags" in d:
        c = d.get("cupti") or {}
        print("   cupti used", c.get("used"), c.get("why", ""), "flags",
              [f["check"] for f in d.get("timing_flags", [])],
              "clock", [(side, (c.get(side) or {}).get("clock")) for side in ("reference", "candidate")],
              "speedup_check", json.dumps(c.get("speedup_check")),
              "sites", [(x["entry"], round(x["span_us"], 1), round(x.get("busy_us", 0), 1),
                         round(x["event_us"], 1), x.get("below_gpu"), x.get("no_work"),
                         x.get("outside_interval"), x.get("interval_launches"))
                        for x in (c.get("candidate") or {}).get("sites", []) if x])
        for f in d.get("timing_flags", []):
            print("   ", f["check"], f["detail"][:400])
print("self-timed not as expected:", bad)
PY
    ;;
  bad)
    if [ -n "${PEAKS:-}" ]; then cp "$PEAKS" "$out/peaks.json"; else
      "$py" python/kjudge_gpu_peaks.py --out "$out/peaks.json" --cache-dir /tmp/kj-peaks; fi
    # The candidates as a solutions file: each bad file, and each operator's own reference
    # (kjudge triton show) as the control. "variant" is ignored by the judge, read back below.
    "$py" - "$k" "$data" tests/gpu/triton-bad "$out/bad.jsonl" <<'PY' || exit 2
import json, os, subprocess, sys
k, data, folder, path = sys.argv[1:5]
lines, ops = [], []
for f in sorted(os.listdir(folder)):
    if f.endswith(".py"):
        op, variant = f[:-3].split("--")
        if op not in ops:
            ops.append(op)
        lines.append({"operator": op, "channel": "G", "variant": variant,
                      "code": open(os.path.join(folder, f)).read()})
for op in ops:
    shown = json.loads(subprocess.run([k, "triton", "show", data, op, "--channel", "G", "--json"],
                                      check=True, capture_output=True, text=True).stdout)
    lines.append({"operator": op, "channel": "G", "variant": "control",
                  "code": shown["reference_code"]})
with open(path, "w") as out:
    for line in lines:
        out.write(json.dumps(line) + "\n")
print("operators:", " ".join(ops), "| candidates:", len(lines))
PY
    args=()
    for o in $("$py" -c 'import json,sys; print(" ".join(sorted({json.loads(l)["operator"] for l in open(sys.argv[1])})))' "$out/bad.jsonl"); do
      args+=(--operator "$o")
    done
    timeout "${TLIM:-560}" "$k" triton eval "$data" --channel G "${args[@]}" \
      --solutions "$out/bad.jsonl" --speedup --rounds "${ROUNDS:-4}" --warmup-rounds 1 \
      --peaks "$out/peaks.json" --python "$py" --workers 8 --timeout 150 --out "$out/bad" \
      $(case "${CUPTI:-}" in 1) echo --cupti ;; 0) echo --no-cupti ;; esac) \
      --json > "$out/bad-summary.json"
    echo "exit $?"
    "$py" - "$out/bad.jsonl" "$out/bad/results.jsonl" <<'PY'
import json, sys
variants = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    n = sum(1 for key in variants if key[0] == d["operator"])
    variants[(d["operator"], n)] = d["variant"]
expect = {"wrong": "mismatch (caught by execution accuracy)",
          "slow": "pass, speedup interval entirely below 1",
          "control": "pass, speedup interval holding 1"}
caught = bad = 0
for d in map(json.loads, open(sys.argv[2])):
    v = variants.get((d["operator"], d["sample"]), "?")
    s = d.get("speedup")
    got = d["verdict"] + (f", speedup {s['estimate']:.4f} [{s['low']:.4f}, {s['high']:.4f}]"
                          if s else "")
    if v == "wrong":
        ok = d["verdict"] == "mismatch" and d["call_ok"]
    elif v == "slow":
        ok = d["verdict"] == "pass" and bool(s) and s["high"] < 1
    else:
        ok = d["verdict"] == "pass" and bool(s) and s["low"] <= 1 <= s["high"]
    if v in ("wrong", "slow"):
        bad += 1
        caught += ok
    print(f"{d['operator']:<22} {v:<8} expected: {expect.get(v, '?')}")
    print(f"{'':<31} got:      {got}   {'OK' if ok else 'UNEXPECTED'}")
    if v == "wrong":
        print(f"{'':<31} detail:   {d['detail'][:200]}")
    e = d.get("gpu_efficiency")
    if e:
        # Enough to redo the fraction by hand: work / time / peak.
        print(f"{'':<31} work:     {e['basis']} bytes={e['bytes']} flops={e['flops']} "
              f"({'; '.join(e['formulas']) or e['work_note']})")
        print(f"{'':<31} time:     reference {s['reference_ms']:.5f} ms, candidate "
              f"{s['candidate_ms']:.5f} ms per run; peak {e['peak_bytes_per_s']} B/s")
        print(f"{'':<31} fraction: reference {e['reference_fraction']}, candidate "
              f"{e['candidate_fraction']} ({e['bound_by']}-bound)")
    elif s:
        print(f"{'':<31} efficiency: none ({d.get('gpu_efficiency_note', '')})")
print(f"bad variants caught: {caught} of {bad}")
sys.exit(0 if caught == bad else 1)
PY
    ;;
  cheats)
    # The candidates as a solutions file: each device row's program against its target, samples
    # numbered per operator, then each target's own reference (the control).
    "$py" - "$k" "$data" tests/cheats "$out/triton-cheats.jsonl" <<'PY' || exit 2
import json, os, re, subprocess, sys
k, data, corpus, path = sys.argv[1:5]
only = os.environ.get("ONLY", "")
lines, targets, shown = [], [], {}
for line in open(os.path.join(corpus, "manifest.tsv")):
    if line.startswith("#") or not line.strip():
        continue
    file, kind, target, _, _, verdict, where = line.rstrip("\n").split("\t")
    if kind != "triton" or "device" not in where:
        continue
    if only and not re.search(only, file):
        continue
    channel, op = target.split("/", 1)
    if (channel, op) not in shown:  # a name or a file ("T/tanh.py"): the judge's own name
        shown[(channel, op)] = json.loads(subprocess.run(
            [k, "triton", "show", data, op, "--channel", channel, "--json"], check=True,
            capture_output=True, text=True).stdout)
        targets.append((channel, op))
    name = shown[(channel, op)]["name"]
    lines.append({"operator": name, "channel": channel, "file_in_corpus": file,
                  "expected": verdict, "code": open(os.path.join(corpus, file)).read()})
for channel, op in targets:
    lines.append({"operator": shown[(channel, op)]["name"], "channel": channel,
                  "file_in_corpus": "(reference)", "expected": "control",
                  "code": shown[(channel, op)]["reference_code"]})
n = {}
with open(path, "w") as out:
    for line in lines:
        key = (line["channel"], line["operator"])
        line["sample"] = n.get(key, 0)
        n[key] = line["sample"] + 1
        out.write(json.dumps(line) + "\n")
print("triton cheats:", len(lines) - len(targets), "programs against",
      " ".join("%s/%s" % t for t in targets))
PY
    rc=0
    clock_check
    for ch in $("$py" -c 'import json,sys; print(" ".join(sorted({json.loads(l)["channel"] for l in open(sys.argv[1])})))' "$out/triton-cheats.jsonl"); do
      args=()
      while IFS= read -r o; do
        args+=(--operator "$o")
      done < <("$py" -c 'import json,sys; print("\n".join(sorted({d["operator"] for d in map(json.loads, open(sys.argv[1])) if d["channel"] == sys.argv[2]})))' "$out/triton-cheats.jsonl" "$ch")
      grep "\"channel\": \"$ch\"" "$out/triton-cheats.jsonl" > "$out/triton-cheats-$ch.jsonl"
      if [ "${CUPTI:-1}" = 1 ]; then args+=(--cupti); else args+=(--no-cupti); fi
      timeout "${TLIM:-560}" "$k" triton eval "$data" --channel "$ch" "${args[@]}" \
        --solutions "$out/triton-cheats-$ch.jsonl" --speedup --rounds "${ROUNDS:-2}" \
        --warmup-rounds 1 --python "$py" --workers 8 --timeout 150 \
        --out "$out/triton-cheats-$ch" --json > "$out/triton-cheats-$ch-summary.json"
      echo "triton eval $ch exit $?"
      # Whether the runner took persisting L2 back before every timed repetition (persist_l2.py).
      "$py" -c 'import json, sys; print("persisting L2:", json.load(open(sys.argv[1])).get("env", {}).get("persisting_l2"))' \
        "$out/triton-cheats-$ch-summary.json" || true
      "$py" - "$out/triton-cheats-$ch.jsonl" "$out/triton-cheats-$ch/results.jsonl" \
        "$out/triton-cheats-$ch.json" <<'PY' || rc=1
import json, sys
asked = {(d["operator"], d["sample"]): d for d in map(json.loads, open(sys.argv[1]))}

def shown(d):
    # What the run showed, in the manifest's words.
    s, c = d.get("speedup"), d.get("timing_check") or {}
    out = [d["verdict"]]
    if d["verdict"] == "pass" and s is None:
        out.append("pass:untimed")  # passed, but its timing runs gave no speedup (see the note)
    if d["verdict"] == "pass" and s and s["estimate"] < 1.25:
        out.append("pass:no_gain")
    if d["verdict"] == "pass" and s and c.get("complete") and c.get("failed") == 0 \
            and c.get("checked", 0) > 0 and not d.get("timing_flags"):
        out.append("control")  # timed, every timed call checked, none failed, no flag
    out += ["flag:" + f["check"] for f in d.get("timing_flags", [])]
    return out

ok_all, rows = True, []
for d in map(json.loads, open(sys.argv[2])):
    a = asked.get((d["operator"], d["sample"]), {})
    want = a.get("expected", "?")
    got = shown(d)
    ok = any(all(v in got for v in alt.split("+")) for alt in want.split("|"))
    ok_all &= ok
    s, c = d.get("speedup"), d.get("timing_check") or {}
    row = {"file": a.get("file_in_corpus"), "operator": d["operator"], "expected": want,
           "got": got, "verdict": d["verdict"], "detail": d["detail"][:300],
           "speedup": s and [s["estimate"], s["low"], s["high"]],
           "speedup_note": d.get("speedup_note"),
           "entry_call_check": d.get("entry_call_check"),
           "timing_flags": d.get("timing_flags"), "cupti": d.get("cupti"),
           "timing_check": {k: c.get(k) for k in ("complete", "timed", "checked", "failed",
                                                    "unchecked", "reference_unstable",
                                                    "reference_differs", "first_failure")},
           "sites": [(x["entry"], x["mode"], x["reason"], x["perturbed"], x["observed"],
                      x["calls"]) for x in c.get("sites", [])]}
    rows.append(row)
    print(f"{'ok  ' if ok else 'DIFF'} {row['file']:28} {d['operator']:16} expected {want:16} "
          f"got {','.join(got):28} speedup {row['speedup']}")
    print(f"     timed calls: {row['timing_check']}")
    print(f"     sites: {row['sites']}")
    if d["verdict"] != "pass" or s is None:
        print(f"     detail: {row['detail']}")
        print(f"     speedup note: {(d.get('speedup_note') or '')[:300]}")
    if d.get("entry_call_check"):
        print(f"     entry calls: {json.dumps(d['entry_call_check'])[:300]}")
    for f in d.get("timing_flags", []):
        print(f"     {f['check']}: {f['detail'][:400]}")
    cu = d.get("cupti")
    if cu:
        print(f"     cupti used {cu.get('used')} {cu.get('why', '')} clock "
              f"{[(side, (cu.get(side) or {}).get('clock')) for side in ('reference', 'candidate')]}"
              f" speedup_check {json.dumps(cu.get('speedup_check'))}")
        for side in ("reference", "candidate"):
            for x in (cu.get(side) or {}).get("sites", []):
                if x:
                    print(f"       {side} {x['entry']}: span {x['span_us']:.1f} busy "
                          f"{x.get('busy_us', 0):.1f} event {x['event_us']:.1f} us; below "
                          f"{x.get('below_gpu')} no_work {x.get('no_work')} outside_interval "
                          f"{x.get('outside_interval')} interval_launches "
                          f"{x.get('interval_launches')} retry {x.get('retry_heavier')}")
json.dump(rows, open(sys.argv[3], "w"), indent=1)
print("triton cheats: all as expected" if ok_all else "triton cheats: some DIFF")
sys.exit(0 if ok_all else 1)
PY
    done
    exit $rc
    ;;
  *) echo "usage: $0 self|speed|bad|cheats [CHANNEL] [OPS...]" >&2; exit 2 ;;
esac
