#!/usr/bin/env bash
# GPU check of the CUPTI profiler (issue 4), on the GPU machine after scripts/gpu-bundle: builds
# tests/gpu/profiler/check.cu, runs it under bundle/lib/libkjudge_profiler.so as ComputeEval
# injects its profiler (LD_PRELOAD + NVTX_INJECTION64_PATH), and prints the profiler's kernel
# and copy durations beside cudaEvent timings, the NVTX ranges it saw, the judge's memfd channel
# at work, a program without CUDA, and the overhead (median of 5 runs with and without).
# Usage: tests/gpu/run-profiler-check.sh   (files under $OUT/profiler, else /tmp/profiler)
set -uo pipefail
cd "$(dirname "$0")/../.."
lib=$PWD/bundle/lib/libkjudge_profiler.so
out=${OUT:-/tmp}/profiler
mkdir -p "$out"
[ -f "$lib" ] || { echo "no $lib: run scripts/gpu-bundle first" >&2; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== libcupti as the loader finds it for the profiler"
ldd "$lib" | grep -E "cupti|not found"
ls /usr/local/cuda/lib64/libcupti* /usr/local/cuda/extras/CUPTI/lib64/libcupti* 2>/dev/null
nvcc -O2 -arch=native -std=c++17 -o /tmp/kjudge-profiler-check tests/gpu/profiler/check.cu -lcuda ||
  exit 1
PYTHONUNBUFFERED=1 python3 - "$lib" "$out" /tmp/kjudge-profiler-check <<'PY'
import os, re, secrets, statistics, subprocess, sys, time

lib, out, check = sys.argv[1:4]


def run(args, profile=None, env_extra=None, pass_fds=()):
    env = dict(os.environ)
    for name in ("LD_PRELOAD", "NVTX_INJECTION64_PATH", "KJUDGE_PROFILE_FILE"):
        env.pop(name, None)
    if profile is not None:
        env.update(LD_PRELOAD=lib, NVTX_INJECTION64_PATH=lib)
        if profile:
            env["KJUDGE_PROFILE_FILE"] = profile
    env.update(env_extra or {})
    start = time.perf_counter()
    p = subprocess.run(args, env=env, capture_output=True, text=True, pass_fds=pass_fds)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        print(f"!! {args} exit {p.returncode}: {p.stderr.strip()[:500]}")
    return p, wall


def parse(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rec = {"K": [], "M": [], "R": [], "head": lines[0] if lines else "", "app": None,
           "dropped": None, "end": None, "last": lines[-1] if lines else ""}
    for line in lines[1:]:
        tag, _, rest = line.partition(" ")
        if tag == "K":
            f = rest.split(" ", 8)
            rec["K"].append(dict(start=int(f[0]), end=int(f[1]), launch=int(f[2]), tid=int(f[3]),
                                 device=int(f[4]), context=int(f[5]), stream=int(f[6]),
                                 corr=int(f[7]), name=f[8]))
        elif tag == "M":
            f = rest.split(" ")
            rec["M"].append(dict(start=int(f[0]), end=int(f[1]), launch=int(f[2]), tid=int(f[3]),
                                 kind=f[4], bytes=int(f[5]), stream=int(f[8]), corr=int(f[9])))
        elif tag == "R":
            f = rest.split(" ", 3)
            rec["R"].append(dict(start=int(f[0]), end=int(f[1]), tid=int(f[2]),
                                 name=f[3] if len(f) > 3 else ""))
        elif tag == "APP":
            rec["app"] = tuple(map(int, rest.split()))
        elif tag == "DROPPED":
            rec["dropped"] = int(rest)
        elif tag == "END":
            rec["end"] = int(rest)
    n = len(rec["K"]) + len(rec["M"]) + len(rec["R"])
    rec["well_formed"] = (rec["head"].startswith("KJPROF 1 ") and rec["last"].startswith("END ")
                          and rec["end"] == n and rec["app"] is not None)
    return rec


def summary(rec):
    return (f"well_formed={rec['well_formed']} K={len(rec['K'])} M={len(rec['M'])} "
            f"R={len(rec['R'])} DROPPED={rec['dropped']} END={rec['end']}")


print("\n== 1. check.cu under the profiler (KJUDGE_PROFILE_FILE)")
profile = os.path.join(out, "check-profile.txt")
p, wall = run([check], profile=profile)
open(os.path.join(out, "check-stdout.txt"), "w").write(p.stdout)
rec = parse(open(profile).read())
print(summary(rec), f"wall {wall:.2f}s")
plain, _ = run([check])

events = {}
for line in p.stdout.splitlines():
    f = line.split()
    if f and f[0] == "EVENT":
        events.setdefault(f[1], []).append(dict(case=f[2], rep=int(f[3]), event=float(f[4]),
                                                inkernel=float(f[5])))
plain_events = {}
for line in plain.stdout.splitlines():
    f = line.split()
    if f and f[0] == "EVENT":
        plain_events.setdefault(f[1], []).append(float(f[4]))
bench = next((r for r in rec["R"] if r["name"] == "bench_region"), None)
by_tag = {}
for k in rec["K"]:
    m = re.search(r"spin<(\d)>", k["name"])
    if bench and not (bench["start"] <= k["start"] and k["end"] <= bench["end"]):
        continue  # warm-ups
    if m:
        by_tag.setdefault(f"spin<{m.group(1)}>", []).append(k)
print(f"kernel names as written: {sorted({k['name'] for k in rec['K']})}")
main_tid = None
for r in rec["R"]:
    if r["name"] == "bench_region":
        main_tid = r["tid"]
print("\nper kernel: profiler duration vs cudaEvent (same run) and in-kernel global timer (us)")
print(f"{'kernel':9} {'case':18} rep {'profiler':>9} {'event':>9} {'in-kern':>9} "
      f"{'prof-ev%':>8} {'prof-ik%':>8} {'ev(no prof)':>11} stream tid launch->start(us)")
worst = {}
for name in sorted(events):
    ks = sorted(by_tag.get(name, []), key=lambda k: k["start"])
    for i, e in enumerate(events[name]):
        if i >= len(ks):
            print(f"{name:9} {e['case']:18} {e['rep']:3} MISSING in profile")
            continue
        k = ks[i]
        dur = (k["end"] - k["start"]) / 1000
        d_ev = 100 * (dur - e["event"]) / e["event"]
        d_ik = 100 * (dur - e["inkernel"]) / e["inkernel"] if e["inkernel"] > 0 else float("nan")
        noprof = plain_events.get(name, [])
        ev_np = noprof[i] if i < len(noprof) else float("nan")
        lat = (k["start"] - k["launch"]) / 1000 if k["launch"] else float("nan")
        tid = "main" if k["tid"] == main_tid else str(k["tid"])
        print(f"{name:9} {e['case']:18} {e['rep']:3} {dur:9.2f} {e['event']:9.2f} "
              f"{e['inkernel']:9.2f} {d_ev:8.2f} {d_ik:8.2f} {ev_np:11.2f} {k['stream']:6} "
              f"{tid:>5} {lat:8.1f}")
        worst[e["case"]] = max(worst.get(e["case"], 0), abs(d_ev))
    if len(ks) != len(events[name]):
        print(f"   {name}: {len(ks)} in profile, {len(events[name])} timed")
print("\nlargest |profiler - event| per case (%):",
      ", ".join(f"{c} {v:.2f}" for c, v in worst.items()))
warm = [k for k in rec["K"] if bench and k["end"] < bench["start"]]
print(f"warm-up kernels (before bench_region) in profile: {len(warm)}")
unattributed = [k for k in rec["K"] if k["launch"] == 0 or k["tid"] == 0]
print(f"kernels without a launch call: {len(unattributed)} "
      f"{sorted({k['name'] for k in unattributed})}")
bad_order = [k for k in rec["K"] if k["launch"] and k["launch"] > k["start"]]
print(f"kernels whose launch call is after their start: {len(bad_order)}")
a, b = by_tag.get("spin<3>", []), by_tag.get("spin<4>", [])
overlaps = sum(1 for x in a for y in b if x["start"] < y["end"] and y["start"] < x["end"])
print(f"streams A/B: stream ids {sorted({k['stream'] for k in a})} / "
      f"{sorted({k['stream'] for k in b})}, overlapping pairs {overlaps}")

print("\nNVTX ranges (tid 'main' = the thread of bench_region)")
for r in rec["R"]:
    inside = [k for k in rec["K"] if r["start"] <= k["start"] and k["end"] <= r["end"]]
    tid = "main" if r["tid"] == main_tid else str(r["tid"])
    print(f"  {r['name']:18} tid {tid:>6} {(r['end'] - r['start']) / 1000:10.1f} us, "
          f"kernels inside {len(inside)}")
if rec["app"]:
    a0, a1 = rec["app"]
    inside = all(a0 <= x["start"] and x["end"] <= a1 for x in rec["K"] + rec["M"] + rec["R"])
    print(f"APP {(a1 - a0) / 1e6:.1f} ms, every record inside it: {inside}")

print("\ncopies: profiler vs cudaEvent (us)")
copy_events = {}
for line in p.stdout.splitlines():
    f = line.split()
    if f and f[0] == "COPY":
        copy_events[f[1]] = (int(f[2]), float(f[3]))
for m in rec["M"]:
    dur = (m["end"] - m["start"]) / 1000
    size, ev = copy_events.get(m["kind"], (0, float("nan")))
    ev = ev if size == m["bytes"] else float("nan")  # the check's own small copies
    gbs = m["bytes"] / dur / 1e3 if dur > 0 else float("nan")
    print(f"  {m['kind']:7} {m['bytes']:>10} B {dur:9.1f} us ({gbs:6.1f} GB/s) event {ev:9.1f} "
          f"launch {'yes' if m['launch'] else 'no'} tid {'main' if m['tid'] == main_tid else m['tid']}")

print("\n== 2. the judge's channel: a sealable memfd holding the nonce (KJUDGE_PROFILE_FD)")
fd = os.memfd_create("kjudge-profile", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
nonce = secrets.token_hex(16)
os.pwrite(fd, (nonce + "\n").encode(), 0)
os.set_inheritable(fd, True)
p, _ = run([check, "env"], profile="", pass_fds=(fd,), env_extra={"KJUDGE_PROFILE_FD": str(fd)})
data = os.pread(fd, 1 << 26, 0)
os.close(fd)
print(p.stdout.strip())
rec2 = parse(data.decode())
print(summary(rec2), f"nonce matches: {rec2['head'] == 'KJPROF 1 ' + nonce}")

print("\n== 3. a program without CUDA (/bin/true)")
true_profile = os.path.join(out, "true-profile.txt")
p, _ = run(["/bin/true"], profile=true_profile)
print(open(true_profile).read().strip())

print("\n== 3b. cudaDeviceReset() before exit; exit with a 20 ms kernel still running")
for mode in ("reset", "nosync"):
    path = os.path.join("/tmp", f"{mode}.txt")
    p, wall = run([check, mode], profile=path)
    r = parse(open(path).read())
    durs = [round((k["end"] - k["start"]) / 1000, 1) for k in r["K"]]
    print(f"  {mode}: {summary(r)} kernel us {durs} wall {wall:.2f}s")

print("\n== 4. overhead, 5 runs each, interleaved; medians")
rows = {"tiny": {False: [], True: []}, "true": {False: [], True: []}}
loops = {False: [], True: []}
submits = {False: [], True: []}
tiny_recs = []
for i in range(5):
    for prof in (False, True):
        path = os.path.join("/tmp", f"tiny-{i}.txt")
        p, wall = run([check, "tiny", "10000"], profile=path if prof else None)
        rows["tiny"][prof].append(wall)
        loops[prof].append(float(p.stdout.split()[1]))
        submits[prof].append(float(p.stdout.split()[2]))
        if prof:
            tiny_recs.append(parse(open(path).read()))
        p, wall = run(["/bin/true"], profile="/tmp/true-o.txt" if prof else None)
        rows["true"][prof].append(wall)
med = statistics.median
print(f"check tiny 10000, program wall: {med(rows['tiny'][False]) * 1e3:.1f} ms without, "
      f"{med(rows['tiny'][True]) * 1e3:.1f} ms with")
print(f"  10000-launch loop + sync: {med(loops[False]):.1f} us without "
      f"({med(loops[False]) / 10000:.2f} us/launch), {med(loops[True]):.1f} us with "
      f"({med(loops[True]) / 10000:.2f} us/launch)")
print(f"  of which submitting the launches: {med(submits[False]):.1f} us without, "
      f"{med(submits[True]):.1f} us with")
print(f"  all runs (ms): without {[round(x * 1e3) for x in rows['tiny'][False]]}, "
      f"with {[round(x * 1e3) for x in rows['tiny'][True]]}")
print(f"  loop (us): without {loops[False]}, with {loops[True]}")
print(f"  profiles: {[summary(r) for r in tiny_recs[:2]]}")
print(f"/bin/true wall: {med(rows['true'][False]) * 1e3:.2f} ms without, "
      f"{med(rows['true'][True]) * 1e3:.2f} ms with")
PY
