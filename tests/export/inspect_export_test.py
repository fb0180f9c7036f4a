#!/usr/bin/python3
"""`kjudge export RUN --inspect OUT` read back by Inspect AI itself (inspect_ai from PyPI).

Two runs are exported: the report fixture (tests/fixtures/report/run-a: real results of the
example pack dressed as an H100 run with --benchmark, so it has speedups) and a fresh `kjudge
evaluate` of four example solutions (host-only problems: no GPU). Inspect's own reader,
inspect_ai.log.read_eval_log, must load each log (whole and header only) into its pydantic
EvalLog, and what it reads must agree with the run's results.jsonl, perf.jsonl and run.json;
list_eval_logs must list the file; and `inspect view`'s server must list it and serve its
header (what the viewer's page asks for first).

inspect_ai goes into a virtual environment of its own (build/inspect-venv beside the kjudge
binary, or $KJUDGE_INSPECT_VENV), made on first use, at the version below (or
$KJUDGE_INSPECT_SPEC).

    inspect_export_test.py PATH/TO/kjudge

Exit 77 (skipped) only where PyPI cannot be reached to install inspect_ai.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77
INSPECT_SPEC = os.environ.get("KJUDGE_INSPECT_SPEC", "inspect_ai==0.3.285")
KJUDGE = None
PYTHON = None  # the environment with inspect_ai
INSPECT = None  # its `inspect` command
# A solution of each kind, on two quick problems.
SOLUTIONS = ["pass-saxpy-functor", "fail-saxpy-wrong-sign", "pass-half-convert-rn",
             "fail-half-convert-round-toward-zero"]

# Run by the environment's python: the log as Inspect reads it, as JSON.
READER = r"""
import json, os, sys
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
path = sys.argv[1]
log = read_eval_log(path)
assert isinstance(log, EvalLog)
header = read_eval_log(path, header_only=True)
listed = [os.path.basename(i.name) for i in list_eval_logs(os.path.dirname(path))]
out = {
    "status": log.status, "version": log.version, "task": log.eval.task, "model": log.eval.model,
    "created": log.eval.created, "dataset_samples": log.eval.dataset.samples,
    "sample_ids": log.eval.dataset.sample_ids, "epochs": log.eval.config.epochs,
    "metadata_run": log.eval.metadata["kjudge_run"],
    "scores": {s.name: {"scored": s.scored_samples,
                        "metrics": {k: m.value for k, m in s.metrics.items()}}
               for s in log.results.scores},
    "total_samples": log.results.total_samples,
    "header_samples": header.samples, "header_status": header.status, "listed": listed,
    "samples": [{"id": s.id, "epoch": s.epoch, "input": s.input, "target": s.target,
                 "scores": {k: {"value": v.value, "answer": v.answer,
                                "explanation": v.explanation, "metadata": v.metadata}
                            for k, v in (s.scores or {}).items()},
                 "roles": [m.role for m in s.messages], "completion": s.output.completion,
                 "metadata": s.metadata} for s in log.samples],
}
print(json.dumps(out))
"""


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def inspect_env():
    """The python of a virtual environment holding INSPECT_SPEC, made if missing."""
    venv = os.path.abspath(os.environ.get("KJUDGE_INSPECT_VENV") or
                           os.path.join(os.path.dirname(KJUDGE), "inspect-venv"))
    python = os.path.join(venv, "bin", "python")
    marker = os.path.join(venv, "kjudge-spec")
    if os.path.exists(marker) and open(marker).read() == INSPECT_SPEC and \
            run([python, "-c", "import inspect_ai.log"]).returncode == 0:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    r = run([sys.executable, "-m", "venv", venv], timeout=120)
    if r.returncode != 0:
        sys.exit("python3 -m venv failed (scripts/install-deps installs python3-venv):\n"
                 + r.stderr)
    t0 = time.monotonic()
    r = run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", INSPECT_SPEC],
            timeout=900)
    if r.returncode != 0:
        with tempfile.TemporaryDirectory() as probe:
            reachable = run([python, "-m", "pip", "download", "--disable-pip-version-check",
                             "--no-deps", "--dest", probe, "setuptools"],
                            timeout=120).returncode == 0
        shutil.rmtree(venv, ignore_errors=True)
        if not reachable:
            print("skipped: PyPI cannot be reached to install " + INSPECT_SPEC + ":\n"
                  + r.stderr[-2000:])
            sys.exit(SKIP)
        sys.exit(f"pip install {INSPECT_SPEC} failed:\n" + r.stdout + r.stderr)
    with open(marker, "w") as f:
        f.write(INSPECT_SPEC)
    print(f"installed {INSPECT_SPEC} in {time.monotonic() - t0:.0f} s", flush=True)
    return python


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


class InspectExport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="kjudge-inspect-")
        self.addCleanup(self.tmp.cleanup)
        self.dir = self.tmp.name

    def export(self, run_dir, logs):
        os.makedirs(logs, exist_ok=True)
        r = run([KJUDGE, "export", run_dir, "--inspect", logs], cwd=SOURCE)
        self.assertEqual(r.returncode, 0, r.stderr)
        files = [f for f in os.listdir(logs) if f.endswith(".json")]
        self.assertEqual(len(files), 1, files)
        return os.path.join(logs, files[0])

    def read_with_inspect(self, path):
        r = run([PYTHON, "-c", READER, path], timeout=300)
        self.assertEqual(r.returncode, 0, f"inspect_ai refused {path}:\n{r.stderr}")
        return json.loads(r.stdout)

    def check_against_run(self, got, run_dir, timed):
        results = read_jsonl(os.path.join(run_dir, "results.jsonl"))
        perf_path = os.path.join(run_dir, "perf.jsonl")
        perf = {(p["task_id"], p["sample"]): p for p in read_jsonl(perf_path)} \
            if os.path.exists(perf_path) else {}
        with open(os.path.join(run_dir, "run.json")) as f:
            run_json = json.load(f)
        self.assertEqual(got["version"], 2)
        self.assertEqual(got["status"], "success")
        self.assertEqual(got["header_status"], "success")
        self.assertIsNone(got["header_samples"], "a header read holds no samples")
        self.assertEqual(got["metadata_run"], run_json)
        self.assertEqual(got["total_samples"], len(results))
        self.assertEqual(len(got["samples"]), len(results))
        self.assertEqual(set(got["sample_ids"]), {r["task_id"] for r in results})
        self.assertEqual(got["epochs"], max(r["sample"] for r in results) + 1)
        passed = counted = speedups = 0
        for row, s in zip(results, got["samples"]):
            key = (row["task_id"], row["sample"])
            with self.subTest(solution=key):
                self.assertEqual((s["id"], s["epoch"]), (row["task_id"], row["sample"] + 1))
                v = s["scores"]["verdict"]
                self.assertEqual(v["answer"], row["verdict"])
                self.assertEqual(v["explanation"], row.get("detail", ""))
                want = "C" if row["verdict"] == "pass" else \
                    "N" if row["verdict"] in ("skipped", "judge_error") else "I"
                self.assertEqual(v["value"], want)
                passed += want == "C"
                counted += want != "N"
                self.assertEqual(s["metadata"]["verdict"], row["verdict"])
                self.assertEqual(s["metadata"]["group"], row.get("group", ""))
                self.assertEqual(s["target"], "pass")
                if want != "N":  # (the fixture's skipped one has neither problem nor files)
                    self.assertEqual(s["roles"], ["user", "assistant"], "prompt and solution")
                    self.assertIn("```", s["completion"])
                p = perf.get(key)
                if p and p.get("timed"):
                    speedups += 1
                    self.assertAlmostEqual(s["scores"]["speedup"]["value"],
                                           p["speedup"]["estimate"])
                    self.assertAlmostEqual(s["scores"]["speedup"]["metadata"]["high"],
                                           p["speedup"]["high"])
                else:
                    self.assertNotIn("speedup", s["scores"])
        self.assertEqual(speedups, timed)
        self.assertEqual(got["scores"]["verdict"]["scored"], counted)
        self.assertAlmostEqual(got["scores"]["verdict"]["metrics"]["accuracy"], passed / counted)

    def test_report_fixture_with_speedups(self):
        run_dir = os.path.join(SOURCE, "tests", "fixtures", "report", "run-a")
        path = self.export(run_dir, os.path.join(self.dir, "logs"))
        got = self.read_with_inspect(path)
        self.check_against_run(got, run_dir, timed=7)
        self.assertEqual(got["listed"], [os.path.basename(path)])
        self.assertEqual(got["task"], "pack")
        self.assertIn("speedup", got["scores"])
        self.assertIn("pass@1", got["scores"]["verdict"]["metrics"])
        self.view_serves(path)

    def test_a_fresh_evaluate_run(self):
        solutions = os.path.join(self.dir, "solutions")
        for name in SOLUTIONS:
            shutil.copytree(os.path.join(SOURCE, "examples", "solutions", name),
                            os.path.join(solutions, name))
        out = os.path.join(self.dir, "run")
        r = run([KJUDGE, "evaluate", "--problems", os.path.join(SOURCE, "examples", "pack"),
                 "--solutions", solutions, "--out", out, "-k", "1", "-q",
                 "--cache-dir", os.path.join(os.path.dirname(KJUDGE), "test-cache"),
                 "--work-dir", os.path.join(self.dir, "work")],
                cwd=SOURCE, timeout=300,
                env=dict(os.environ, PATH=os.environ["PATH"] + ":/usr/local/cuda/bin"))
        self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
        got = self.read_with_inspect(self.export(out, os.path.join(self.dir, "logs")))
        self.check_against_run(got, out, timed=0)
        self.assertEqual(got["model"], "solutions/solutions")
        self.assertEqual({s["scores"]["verdict"]["value"] for s in got["samples"]}, {"C", "I"})

    def view_serves(self, path):
        """`inspect view`'s server lists the log and serves its header to the viewer."""
        port = free_port()
        log = open(os.path.join(self.dir, "view.log"), "w+")
        self.addCleanup(log.close)
        view = subprocess.Popen([INSPECT, "view", "--log-dir", os.path.dirname(path),
                                 "--host", "127.0.0.1", "--port", str(port)],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}/api"
            listing = None
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and listing is None:
                try:
                    listing = get_json(base + "/log-files")
                except OSError:
                    if view.poll() is not None:
                        break
                    time.sleep(0.5)
            log.seek(0)
            self.assertIsNotNone(listing, "inspect view did not answer:\n" + log.read()[-3000:])
            names = [f["name"] for f in listing["files"]]
            self.assertEqual([os.path.basename(urllib.parse.urlparse(n).path) for n in names],
                             [os.path.basename(path)])
            self.assertEqual(listing["files"][0]["task"], "pack")
            headers = get_json(base + "/log-headers?file=" + urllib.parse.quote(names[0], safe=""))
            self.assertEqual(len(headers), 1)
            self.assertEqual(headers[0]["status"], "success")
            self.assertEqual(headers[0]["eval"]["task"], "pack")
        finally:
            view.terminate()
            try:
                view.wait(timeout=20)
            except subprocess.TimeoutExpired:
                view.kill()
                view.wait()


def main():
    global KJUDGE, PYTHON, INSPECT
    if len(sys.argv) < 2:
        sys.exit("usage: inspect_export_test.py PATH/TO/kjudge")
    KJUDGE = os.path.abspath(sys.argv.pop(1))
    PYTHON = inspect_env()
    INSPECT = os.path.join(os.path.dirname(PYTHON), "inspect")
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
