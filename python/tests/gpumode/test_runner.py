"""The entry script without torch: it loads its package from its own folder, refuses a bad case
line with GPU MODE's exit status 113, and deletes the cases file (the seeds) before it goes
further, so the worker it would start could never read them."""

import os
import subprocess
import sys
import tempfile
import unittest

import helpers


def run(args, cwd):
    return subprocess.run([sys.executable, "-I", "-B", helpers.RUNNER] + args, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


class RunnerTest(unittest.TestCase):
    def test_bad_case_line(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "cases-test.txt"), "w") as f:
                f.write("size: 1.5\n")
            r = run(["test", "cases-test.txt", "submission=submission.py"], d)
            self.assertEqual(r.returncode, 113, r.stderr)
            self.assertIn("invalid case", r.stderr)

    def test_cases_file_gone_before_torch(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "cases-test.txt"), "w") as f:
                f.write("size: 8; seed: 12345\n")
            r = run(["test", "cases-test.txt", "submission=submission.py"], d)
            self.assertFalse(os.path.exists(os.path.join(d, "cases-test.txt")))
            try:
                import torch  # noqa: F401
            except ImportError:
                # No torch here: the harness stops at its import, after the file is gone.
                self.assertNotEqual(r.returncode, 0)
                self.assertIn("torch", r.stderr)

    def test_usage(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(run([], d).returncode, 2)


if __name__ == "__main__":
    unittest.main()
