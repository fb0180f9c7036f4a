"""The entry started as the judge starts it (python -I -B, the request and the report on
descriptors, the control channel's hello first); without torch the run ends at its setup stage
(the machine's fault: the judge does not charge it), and says so in a report."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import unittest

import helpers


def has_torch():
    return subprocess.run([sys.executable, "-I", "-c", "import torch"],
                          capture_output=True).returncode == 0


REQUEST = {"protocol": 1, "nonce": "n0nce", "reference_path": "/nonexistent/ref.py",
           "solution_path": "/nonexistent/sol.py", "seed": 42, "trial_seeds": [1, 2],
           "atol": 0.01, "rtol": 0.01, "time": True, "compile": False, "timing": {}}


class MainTest(unittest.TestCase):
    def test_help(self):
        r = subprocess.run([sys.executable, "-I", "-B", helpers.ENTRY, "--help"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)
        self.assertIn("judges one solution's ModelNew", r.stdout)

    def test_bad_arguments(self):
        r = subprocess.run([sys.executable, "-I", "-B", helpers.ENTRY], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("exactly one of --request-fd and --request", r.stderr)

    @unittest.skipIf(has_torch(), "this interpreter has torch")
    def test_without_torch_the_setup_stage_fails_with_a_report(self):
        judge = helpers.FakeJudge()
        with tempfile.TemporaryDirectory() as d:
            request = os.path.join(d, "request.json")
            with open(request, "w") as f:
                json.dump(REQUEST, f)
            rfd = os.open(request, os.O_RDONLY)
            result = os.open(os.path.join(d, "result"), os.O_RDWR | os.O_CREAT)
            cfd = judge.child.fileno()
            try:
                r = subprocess.run(
                    [sys.executable, "-I", "-B", helpers.ENTRY, "--request-fd", str(rfd),
                     "--result-fd", str(result), "--control-fd", str(cfd)],
                    pass_fds=(rfd, result, cfd), capture_output=True, text=True, timeout=60)
                self.assertEqual(r.returncode, 0, r.stderr)
                os.lseek(result, 0, 0)
                raw = os.read(result, 1 << 20)
            finally:
                os.close(rfd)
                os.close(result)
                judge.close()
        self.assertEqual(raw.count(b"\n"), 1)
        report = json.loads(raw)
        self.assertEqual(report["nonce"], "n0nce")
        self.assertEqual(report["status"], "error")
        self.assertEqual(report["error"]["stage"], "setup")
        self.assertEqual(report["error"]["exception_type"], "ModuleNotFoundError")
        self.assertEqual(report["tampered"], [])
        self.assertEqual(judge.lines[:1], ["hello"])  # before anything else


if __name__ == "__main__":
    unittest.main()
