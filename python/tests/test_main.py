#!/usr/bin/env python3
"""Tests of the entry script and main (kjudge_triton_runner.py, kjudge_triton/main.py, channel.py)
as the judge starts them: a process, with files or descriptors. Standard library only. Run:
/usr/bin/python3 python/tests/test_main.py; all of them: python/README.md.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import RUNNER  # noqa: E402 - first: puts python/ on sys.path
from kjudge_triton import channel  # noqa: E402


class ProcessTest(unittest.TestCase):
    """The runner as a process, both ways in and out."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        for name, text in (("candidate.py", "def op(x):\n    return x + 1\n"),
                           ("test.py", "def test_op():\n    return {'a': op(1)}\nr = test_op()\n")):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        self.req = {"nonce": "abc", "candidate_path": os.path.join(self.dir, "candidate.py"),
                    "test_path": os.path.join(self.dir, "test.py"), "seed": 1,
                    "require_torch": False}

    def test_files(self):
        path = os.path.join(self.dir, "request.json")
        with open(path, "w") as f:
            json.dump(self.req, f)
        out = os.path.join(self.dir, "out")
        subprocess.run([sys.executable, "-I", RUNNER, "--request", path, "--output-dir", out],
                       check=True)
        with open(os.path.join(out, "record.json")) as f:
            rec = json.load(f)
        self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(rec["nonce"], "abc")
        with open(os.path.join(out, "outputs.bin"), "rb") as f:
            # The test's outputs come first (with torch installed, what each call gave follows).
            self.assertEqual(rec["outputs"]["data_bytes"], 8)
            self.assertEqual(struct.unpack("<q", f.read()[:8])[0], 2)

    def test_the_entry_loads_its_own_package_and_leaves_sys_path_as_it_was(self):
        # A decoy package in the current directory and one named by PYTHONPATH: under -I the
        # entry loads the package beside itself (resolved from its real path), never these, and
        # the operator code finds the runner's folder off sys.path (as with the single file:
        # -I, on 3.11+, never put it there), every module of the package already loaded, and no
        # bytecode written beside them.
        decoy = os.path.join(self.dir, "kjudge_triton")
        os.mkdir(decoy)
        with open(os.path.join(decoy, "__init__.py"), "w") as f:
            f.write("raise SystemExit('the decoy package was loaded')\n")
        here = os.path.dirname(os.path.realpath(RUNNER))
        with open(os.path.join(self.dir, "candidate.py"), "w") as f:
            f.write("import sys\n"
                    "def op(x):\n"
                    "    pkg = sys.modules['kjudge_triton']\n"
                    "    mods = [sys.modules.get('kjudge_triton.' + m) for m in pkg.MODULES]\n"
                    "    return {'on_path': float(%r in sys.path),\n"
                    "            'all_loaded': float(all(m is not None for m in mods)),\n"
                    "            'own': float(pkg.__file__.startswith(%r))}\n" % (here, here))
        with open(os.path.join(self.dir, "test.py"), "w") as f:
            f.write("def test_op():\n    return op(1)\nr = test_op()\n")
        path = os.path.join(self.dir, "request.json")
        with open(path, "w") as f:
            json.dump(self.req, f)
        out = os.path.join(self.dir, "out")
        env = dict(os.environ, PYTHONPATH=self.dir)
        subprocess.run([sys.executable, "-I", RUNNER, "--request", path, "--output-dir", out],
                       check=True, cwd=self.dir, env=env)
        with open(os.path.join(out, "record.json")) as f:
            rec = json.load(f)
        self.assertEqual(rec["status"], "ok", rec)
        with open(os.path.join(out, "outputs.bin"), "rb") as f:
            blob = f.read()
        got = {e["name"]: struct.unpack("<d", blob[e["offset"]:e["offset"] + 8])[0]
               for e in rec["outputs"]["entries"]}
        self.assertEqual(got, {"on_path": 0.0, "all_loaded": 1.0, "own": 1.0})
        self.assertFalse(os.path.exists(os.path.join(here, "kjudge_triton", "__pycache__")))

    def run_gated(self, go):
        """Starts the runner with --go-fd before its request exists, then writes the request
        and `go` (b"" closes the pipe with nothing)."""
        req_fd = os.memfd_create("req")
        res_fd = os.memfd_create("res")
        go_read, go_write = os.pipe()
        p = subprocess.Popen([sys.executable, "-I", RUNNER, "--request-fd", str(req_fd),
                              "--result-fd", str(res_fd), "--go-fd", str(go_read)],
                             pass_fds=(req_fd, res_fd, go_read))
        os.close(go_read)
        time.sleep(0.2)
        self.assertIsNone(p.poll())  # waiting for its turn
        os.pwrite(req_fd, json.dumps(self.req).encode(), 0)
        if go:
            os.write(go_write, go)
        os.close(go_write)
        self.assertEqual(p.wait(timeout=60), 0)
        return channel.read_fd(res_fd)

    def test_a_gated_runner_waits_then_reads_its_request(self):
        payload = self.run_gated(b"g")
        rec = json.loads(payload.partition(b"\n")[0])
        self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(rec["nonce"], "abc")  # the request written after it started
        self.assertIn("wait", rec["seconds"])
        self.assertIn("preload", rec["seconds"])

    def test_a_cancelled_runner_ends_without_a_report(self):
        self.assertEqual(self.run_gated(b""), b"")

    def test_descriptors_are_read_closed_and_not_inherited(self):
        # The operator code lists its descriptors in a child process: the channel is not there.
        code = ("import subprocess, sys\n"
                "def op(x):\n"
                "    out = subprocess.run([sys.executable, '-c', 'import os; "
                "print(sorted(int(f) for f in os.listdir(\"/proc/self/fd\")))'],"
                " capture_output=True, text=True).stdout\n"
                "    return out.strip()\n")
        with open(self.req["candidate_path"], "w") as f:
            f.write(code)
        # High numbers, so that they cannot be confused with the listing's own descriptor.
        req_fd = os.dup2(os.memfd_create("req"), 50)
        os.write(req_fd, json.dumps(self.req).encode())
        res_fd = os.dup2(os.memfd_create("res"), 51)
        subprocess.run([sys.executable, "-I", RUNNER, "--request-fd", str(req_fd),
                        "--result-fd", str(res_fd)], pass_fds=(req_fd, res_fd), check=True)
        payload = channel.read_fd(res_fd)
        line, _, _ = payload.partition(b"\n")
        rec = json.loads(line)
        self.assertEqual(rec["status"], "ok", rec)
        child_fds = json.loads(rec["outputs"]["entries"][0]["text"])
        self.assertNotIn(req_fd, child_fds)
        self.assertNotIn(res_fd, child_fds)
        self.assertEqual(child_fds, [0, 1, 2, 3])  # stdio and the listing itself


if __name__ == "__main__":
    unittest.main()
