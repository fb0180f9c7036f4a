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
# Leaves ~30 ms of work on a side stream, and a timer whose handler sleeps until it is done: run
# between the end event's wait and the first clock, the handler would hide that tail.
SIDE_WITH_HANDLER = """import signal, time
import torch
import torch.nn as nn
signal.signal(signal.SIGALRM, lambda s, f: time.sleep(0.06))
class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.side = torch.cuda.Stream()
    def forward(self, x):
        out = torch.relu(self.lin(x))
        with torch.cuda.stream(self.side):
            torch.cuda._sleep(50_000_000)
        signal.setitimer(signal.ITIMER_REAL, 0.0003)
        return out
"""


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
        if os.environ.get("KJUDGE_END_CLOCK"):
            request["timing"]["end_clock"] = os.environ["KJUDGE_END_CLOCK"]
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

    @unittest.skipUnless(os.environ.get("KJUDGE_END_CLOCK"), "needs the built end clock")
    def test_side_work_a_handler_waits_out_is_still_a_tail(self):
        rec, _ = judge(SIDE_WITH_HANDLER)
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertEqual(rec["timing"]["end_clock"], "native")
        tails = [p["sol_dev_ms"] - p["sol_ms"] for p in rec["timing"]["pairs"]]
        self.assertGreater(min(tails), 10.0, tails)

    def test_patched(self):
        rec, _ = judge(PATCH, time=False)
        self.assertIn("torch.relu", rec["torch_patched"])


if __name__ == "__main__":
    unittest.main()
