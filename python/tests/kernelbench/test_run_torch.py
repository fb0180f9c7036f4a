"""A whole run with torch and a GPU (tests/gpu/run-kernelbench-checks.sh runs these): a correct
solution is correct and timed, a wrong one fails its trial, a cached output and a torch function
rebound are seen, the reference keeps its own settings."""

import os
import tempfile
import unittest

import helpers
from kjudge_kernelbench.control import LocalControl
from kjudge_kernelbench.run import run
from kjudge_kernelbench.tamper import Tamper

torch = helpers.torch_cuda()

REFERENCE = """import torch
import torch.nn as nn
class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
    def forward(self, x):
        return torch.relu(self.lin(x))
def get_inputs():
    return [torch.rand(64, 256)]
def get_init_inputs():
    return [256]
"""

HONEST = REFERENCE.replace("class Model(", "class ModelNew(")
WRONG = HONEST.replace("torch.relu(", "torch.sigmoid(")
CACHED = """import torch
import torch.nn as nn
class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.out = None
    def forward(self, x):
        if self.out is None:
            self.out = torch.relu(self.lin(x))
        return self.out
"""
PATCH = HONEST + "\n_mm = torch.relu\ntorch.relu = lambda x: _mm(x)\n"


def judge(solution, time=True):
    with tempfile.TemporaryDirectory() as d:
        ref, sol = os.path.join(d, "ref.py"), os.path.join(d, "sol.py")
        with open(ref, "w") as f:
            f.write(REFERENCE)
        with open(sol, "w") as f:
            f.write(solution)
        request = {"nonce": "n", "reference_path": ref, "solution_path": sol, "seed": 42,
                   "trial_seeds": [11, 12, 13], "atol": 1e-2, "rtol": 1e-2, "time": time,
                   "compile": False,
                   "timing": {"warmup": 1, "trials": 6, "min_trials": 6, "budget_s": 5}}
        control = LocalControl(5)
        return run(request, control, Tamper()), control


@unittest.skipIf(torch is None, "needs torch with a GPU")
class RunTest(unittest.TestCase):
    def test_honest(self):
        rec, control = judge(HONEST)
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertTrue(all(t["ok"] for t in rec["trials"]))
        pairs = rec["timing"]["pairs"]
        self.assertEqual(len(pairs), 6)
        self.assertTrue(all(p["ok"] and p["sol_ms"] > 0 for p in pairs))
        self.assertEqual({p["order"] for p in pairs}, {"sr", "rs"})
        self.assertEqual(rec["torch_patched"], [])
        self.assertEqual(rec["tampered"], [])
        self.assertEqual(control.log[:3], ["gpu", "idle", "gpu"])

    def test_wrong(self):
        rec, _ = judge(WRONG)
        self.assertEqual(rec["status"], "ok")
        self.assertFalse(rec["trials"][0]["ok"])
        self.assertNotIn("timing", rec)

    def test_cached(self):
        rec, _ = judge(CACHED, time=False)
        self.assertTrue(rec["trials"][0]["ok"] or True)
        self.assertTrue(any(t["alias_earlier"] for t in rec["trials"][1:]))

    def test_patched(self):
        rec, _ = judge(PATCH, time=False)
        self.assertIn("torch.relu", rec["torch_patched"])


if __name__ == "__main__":
    unittest.main()
