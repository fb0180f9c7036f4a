"""The runner's whole run on a machine without torch, with a stand-in for it (fake_torch.py): the
stages in order, the GPU phases asked for, every pair timed and checked, each failure its stage's,
and the evidence the run collects (memory shared with an input or an earlier output, torch
rebound, the reference kept on the torch it started with, threads, the runner's own code
rebound). Skipped where the real torch is installed (test_run_torch.py runs there)."""

import os
import sys
import tempfile
import unittest

import helpers

REAL_TORCH = False
try:
    import torch as _real  # noqa: F401
    REAL_TORCH = True
except Exception:  # noqa: BLE001
    pass

if not REAL_TORCH:
    import fake_torch
    fake_torch.install()

from kjudge_kernelbench.control import LocalControl  # noqa: E402
from kjudge_kernelbench.run import run  # noqa: E402
from kjudge_kernelbench.tamper import Tamper  # noqa: E402

REFERENCE = """import torch
class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)
def get_inputs():
    return [torch.rand(16)]
def get_init_inputs():
    return []
"""
HEAD = "import torch\nclass ModelNew(torch.nn.Module):\n"


def judge(solution, time=True, trials=4, alone=False):
    with tempfile.TemporaryDirectory() as d:
        ref, sol = os.path.join(d, "ref.py"), os.path.join(d, "sol.py")
        with open(ref, "w") as f:
            f.write(REFERENCE)
        with open(sol, "w") as f:
            f.write(solution)
        request = {"nonce": "n", "reference_path": ref, "solution_path": sol, "seed": 42,
                   "trial_seeds": [11, 12, 13], "atol": 1e-2, "rtol": 1e-2, "time": time,
                   "compile": True,
                   "timing": {"warmup": 1, "trials": trials, "min_trials": trials, "budget_s": 5},
                   "alone": alone}
        control = LocalControl(5)
        rec = run(request, control, Tamper())
        return rec, control


@unittest.skipIf(REAL_TORCH, "the real torch is here: test_run_torch.py")
class FakeRunTest(unittest.TestCase):
    def test_an_honest_solution_is_correct_and_timed(self):
        rec, control = judge(HEAD + "    def forward(self, x):\n        return torch.relu(x)\n")
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertEqual(len(rec["trials"]), 3)
        self.assertTrue(all(t["ok"] for t in rec["trials"]))
        self.assertTrue(rec["compile"]["ok"], rec["compile"])
        pairs = rec["timing"]["pairs"]
        self.assertEqual(len(pairs), 4)
        self.assertTrue(all(p["ok"] for p in pairs))
        self.assertEqual([p["order"] for p in pairs], ["src", "rcs", "csr", "src"])
        self.assertTrue(all(p["cmp_ms"] and p["sol_dev_ms"] >= p["sol_ms"] for p in pairs))
        self.assertEqual(control.log, ["gpu", "idle", "gpu", "idle", "gpu", "idle", "time",
                                       "pair 0", "done 0", "pair 1", "done 1", "pair 2",
                                       "done 2", "pair 3", "done 3", "end"])
        self.assertEqual(rec["torch_patched"], [])
        self.assertEqual(rec["watch"], [])
        self.assertEqual(rec["tampered"], [])
        for stage in ("setup", "reference", "import", "correctness", "compile", "time"):
            self.assertIn(stage, rec["seconds"])

    def test_large_outputs_are_made_beside_the_solutions(self):
        import kjudge_kernelbench.run as run_module
        saved = run_module.KEEP_REFERENCE_BYTES
        run_module.KEEP_REFERENCE_BYTES = 0
        try:
            rec, _ = judge(HEAD + "    def forward(self, x):\n        return torch.relu(x)\n",
                           time=False)
            wrong, _ = judge(HEAD + "    def forward(self, x):\n        return torch.sigmoid(x)\n",
                             time=False)
        finally:
            run_module.KEEP_REFERENCE_BYTES = saved
        self.assertTrue(rec["reference_late"])
        self.assertTrue(all(t["ok"] for t in rec["trials"]))
        self.assertFalse(wrong["trials"][0]["ok"])

    def test_a_run_alone_takes_every_gpu_phase_alone(self):
        rec, control = judge(HEAD + "    def forward(self, x):\n        return torch.relu(x)\n",
                             trials=2, alone=True)
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertEqual(control.log[:6], ["solo", "end", "solo", "end", "solo", "end"])
        self.assertEqual(control.log[6], "time")

    def test_a_wrong_solution_fails_its_trial_and_is_not_timed(self):
        rec, control = judge(HEAD + "    def forward(self, x):\n        return torch.sigmoid(x)\n")
        self.assertEqual(rec["status"], "ok")
        self.assertFalse(rec["trials"][0]["ok"])
        self.assertIn("differ beyond", rec["trials"][0]["why"])
        self.assertNotIn("timing", rec)
        self.assertNotIn("time", control.log)

    def test_right_on_the_trials_wrong_on_the_timed_pairs(self):
        rec, _ = judge("import torch\nN = [0]\n" + HEAD[13:] +
                       "    def forward(self, x):\n        N[0] += 1\n"
                       "        return torch.relu(x) if N[0] <= 3 else torch.sigmoid(x)\n")
        self.assertTrue(all(t["ok"] for t in rec["trials"]))
        # The warm-up call is the fourth: the first timed pair already differs.
        self.assertFalse(rec["timing"]["pairs"][0]["ok"])
        self.assertEqual(len(rec["timing"]["pairs"]), 1)
        self.assertIn("differs", rec["timing"]["note"])

    def test_memory_shared_with_an_input_or_an_earlier_output(self):
        rec, _ = judge(HEAD + "    def forward(self, x):\n        return x.clamp_min_(0.0)\n",
                       time=False)
        self.assertTrue(rec["trials"][0]["alias_input"])
        self.assertFalse(rec["trials"][0]["reference_alias_input"])
        rec, _ = judge(HEAD + "    out = None\n    def forward(self, x):\n"
                       "        if ModelNew.out is None:\n            ModelNew.out = torch.relu(x)\n"
                       "        return ModelNew.out\n", time=False)
        self.assertFalse(rec["trials"][0]["alias_earlier"])
        self.assertTrue(rec["trials"][1]["alias_earlier"])

    def test_torch_rebound_is_seen_and_the_reference_keeps_the_original(self):
        rec, _ = judge("import torch\n_relu = torch.relu\nCALLS = [0]\n"
                       "def slow(t):\n    CALLS[0] += 1\n    return _relu(t)\n"
                       "torch.relu = slow\n" + HEAD[13:] +
                       "    def forward(self, x):\n        return _relu(x)\n")
        self.assertIn("torch.relu", rec["torch_patched"])
        self.assertEqual(rec["status"], "ok")
        self.assertEqual(len(rec["timing"]["pairs"]), 4)
        self.assertEqual(sys.modules["kb_solution"].CALLS[0], 0)  # never the reference's
        self.assertIs(sys.modules["torch"].relu, sys.modules["kb_solution"].slow)  # its own kept
        sys.modules["torch"].relu = sys.modules["kb_solution"]._relu

    def test_each_failure_is_its_stages(self):
        def stage(code):
            rec, _ = judge(code, time=False)
            self.assertEqual(rec["status"], "error")
            return rec["error"]["stage"], rec["error"]["exception_type"]

        self.assertEqual(stage("def f(:\n"), ("syntax", "SyntaxError"))
        self.assertEqual(stage("raise ValueError('at import')\n"), ("import", "ValueError"))
        self.assertEqual(stage("x = 1\n"), ("import", "NameError"))
        self.assertEqual(stage(HEAD + "    def __init__(self):\n        raise KeyError(1)\n"),
                         ("init", "KeyError"))
        self.assertEqual(stage(HEAD + "    def forward(self, x):\n        return 1 / 0\n"),
                         ("correctness", "ZeroDivisionError"))

    def test_a_thread_left_running_is_seen(self):
        # The solution's own code runs in it (a thread of torch's, idle in torch's code, such as
        # the compile workers torch.compile starts, is not counted).
        rec, _ = judge("import threading, time\nimport torch\n"
                       "def spin():\n    while True:\n        time.sleep(0.01)\n"
                       "threading.Thread(target=spin, name='busy', daemon=True).start()\n"
                       + HEAD[13:] + "    def forward(self, x):\n        return torch.relu(x)\n",
                       time=False)
        self.assertIn("thread 'busy'", rec["watch"])

    def test_the_runners_own_code_rebound_is_reported(self):
        rec, _ = judge("import sys\nimport torch\n"
                       "sys.modules['kjudge_kernelbench.tensors'].Tensors.compare = "
                       "lambda self, *a: {'ok': True}\n"
                       + HEAD[13:] + "    def forward(self, x):\n        return torch.sigmoid(x)\n",
                       time=False)
        self.assertTrue(any("Tensors.compare" in t for t in rec["tampered"]), rec["tampered"])


if __name__ == "__main__":
    unittest.main()
