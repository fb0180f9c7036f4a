#!/usr/bin/env python3
"""Tests of whole runs of pure-Python operators in this process (kjudge_triton/run.py, execute.py).
Standard library only. Run: /usr/bin/python3 python/tests/test_run.py; all of them:
python/README.md.
"""

import json
import os
import random
import struct
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import helpers  # noqa: E402,F401 - first: puts python/ on sys.path
from kjudge_triton import channel, run  # noqa: E402


class RunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def request(self, code, test, **extra):
        cand = os.path.join(self.dir, "candidate.py")
        tpath = os.path.join(self.dir, "test.py")
        with open(cand, "w") as f:
            f.write(code)
        with open(tpath, "w") as f:
            f.write(test)
        req = {"protocol": 1, "nonce": "n0", "candidate_path": cand, "test_path": tpath,
               "seed": 7, "modes": ["test"], "require_torch": False}
        req.update(extra)
        return req

    TEST = ("import random\ndef test_op():\n    a = random.random()\n"
            "    return {'test_case_1': op(a), 'test_case_2': [op(2.0), None]}\n"
            "result_gold = test_op()\n")

    def test_a_pure_python_operator_runs_and_its_results_are_encoded(self):
        rec, data = run.run(self.request("def op(x):\n    return x * 2\n", self.TEST), (None, None))
        self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(rec["calls"], {"op": 2})
        names = [e["name"] for e in rec["outputs"]["entries"]]
        self.assertEqual(names, ["test_case_1", "test_case_2[0]", "test_case_2[1]"])
        import random
        random.seed(7)
        expected = random.random() * 2
        self.assertEqual(struct.unpack("<d", data[0:8])[0], expected)

    def test_a_static_method_the_test_calls_is_an_entry_of_a_whole_run(self):
        code = ("class matmul:\n    @staticmethod\n    def forward(ctx, x):\n"
                "        return x * 2\n")
        test = ("def test_m():\n    return {'test_case_1': matmul.forward(None, 1.5),\n"
                "            'test_case_2': matmul.forward(None, 2.0)}\n"
                "result_gold = test_m()\n")
        rec, _ = run.run(self.request(code, test), (None, None))
        self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(rec["calls"], {"matmul.forward": 2})

    def test_a_test_that_imports_its_operator_by_the_file_name_runs(self):
        # TritonBench T's tanh_linear: its test says `from tanh_linear import tanh_linear`, as
        # its scripts find the file beside them. The operator code runs once, and the name the
        # test imports is the wrapped entry (its calls are counted).
        code = "runs = []\nruns.append(1)\ndef tanh_linear(x):\n    return x * 3\n"
        test = ("from tanh_linear import tanh_linear\ndef test_t():\n"
                "    return {'test_case_1': tanh_linear(2.0), 'runs': len(runs)}\n"
                "result_gold = test_t()\n")
        rec, data = run.run(self.request(code, test), (None, None))
        self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(rec["calls"], {"tanh_linear": 1})
        self.assertNotIn("shadowed", rec)
        self.assertEqual(struct.unpack("<d", data[0:8])[0], 6.0)
        self.assertNotIn("tanh_linear", sys.modules)  # gone once the test has run

    def test_a_missing_module_that_is_not_the_operators_own_still_fails(self):
        test = ("from kjudge_no_such_module import op\ndef test_t():\n    return op(1.0)\n"
                "result_gold = test_t()\n")
        rec, _ = run.run(self.request("def op(x):\n    return x\n", test), (None, None))
        self.assertEqual(rec["status"], "error", rec)
        self.assertEqual(rec["error"]["exception_type"], "ModuleNotFoundError")

    def test_same_seed_same_bytes(self):
        a = run.run(self.request("def op(x):\n    return x\n", self.TEST), (None, None))
        b = run.run(self.request("def op(x):\n    return x\n", self.TEST), (None, None))
        self.assertEqual(a[1], b[1])

    def test_stages(self):
        cases = [
            ("def op(x:\n", "syntax", "SyntaxError"),
            ("import not_a_module_kjudge\n", "import", "ModuleNotFoundError"),
            ("def op(x):\n    return x.missing\n", "call", "AttributeError"),
            ("import sys\nsys.exit(0)\n", "import", "SystemExit"),
            ("def opp(x):\n    return x\n", "call", "NameError"),
        ]
        for code, stage, etype in cases:
            rec, data = run.run(self.request(code, self.TEST), (None, None))
            self.assertEqual(rec["status"], "error", code)
            self.assertEqual(rec["error"]["stage"], stage, code)
            self.assertEqual(rec["error"]["exception_type"], etype, code)
            self.assertIn("Traceback", rec["error"]["traceback"])
            self.assertEqual(data, b"")
            self.assertNotIn("outputs", rec)

    def test_test_code_without_results(self):
        rec, _ = run.run(self.request("def op(x):\n    return x\n", "x = op(1)\n"), (None, None))
        self.assertEqual(rec["error"]["stage"], "result")

    def test_time_mode_without_torch_is_a_setup_error(self):
        rec, _ = run.run(self.request("def op(x):\n    return x\n", self.TEST, modes=["time"]),
                       (None, None))
        self.assertEqual(rec["error"]["stage"], "setup")

    def test_torch_is_required_unless_the_request_says_otherwise(self):
        req = self.request("def op(x):\n    return x\n", self.TEST, require_torch=True)
        try:
            import torch  # noqa: F401
            self.skipTest("torch is installed here")
        except ImportError:
            pass
        rec, _ = run.run(req)
        self.assertEqual(rec["error"]["stage"], "setup")
        self.assertEqual(rec["error"]["exception_type"], "ModuleNotFoundError")

    def test_channel_bytes_is_one_json_line_then_data(self):
        rec, data = run.run(self.request("def op(x):\n    return 'a\\nb'\n", self.TEST),
                          (None, None))
        payload = channel.channel_bytes(rec, data)
        line, _, blob = payload.partition(b"\n")
        parsed = json.loads(line)
        self.assertEqual(parsed["data_bytes"], len(blob))
        self.assertEqual(parsed["outputs"]["entries"][0]["text"], "a\nb")


if __name__ == "__main__":
    unittest.main()
