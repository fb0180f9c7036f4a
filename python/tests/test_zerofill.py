#!/usr/bin/env python3
"""Tests of the zero fill (kjudge_triton/zerofill.py), with a stand-in for torch. Standard library
only. Run: /usr/bin/python3 python/tests/test_zerofill.py; all of them: python/README.md.
"""

import contextlib
import os
import struct
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    GarbageTorch, FT, kjfake_module, write_operator, forget_kjfake_module, FakeOps, fake_torch,
    decode, SECRET, TOL)
from kjudge_triton import execute, run, zerofill  # noqa: E402


class ZeroFillTest(unittest.TestCase):
    """The zero fill (the judge's known test defects: zero_fill), with a stand-in for torch."""

    def test_the_family_returns_zeros_and_is_put_back(self):
        torch = GarbageTorch()
        originals = (torch.empty, torch.empty_like, torch.empty_strided,
                     torch.Tensor.__dict__["new_empty_strided"])
        fill = zerofill.ZeroFill(torch)
        fill.install()
        try:
            t = torch.empty(3, requires_grad=True)
            self.assertEqual(t.values, [0.0] * 3)
            self.assertTrue(t.zeroed_under_no_grad)  # a leaf that requires grad stays one
            self.assertTrue(t.requires_grad)
            self.assertEqual(torch.empty_like(t).values, [0.0] * 3)
            self.assertEqual(torch.empty_strided(2, (1,)).values, [0.0] * 2)
            base = torch.Tensor()
            self.assertEqual(base.new_empty(4).values, [0.0] * 4)
            self.assertEqual(base.new_empty_strided(1, (1,)).values, [0.0])
            self.assertEqual(torch.empty(2).values, [0.0] * 2)
        finally:
            fill.remove()
        self.assertEqual(fill.report["patched"],
                         ["torch.empty", "torch.empty_like", "torch.empty_strided",
                          "torch.Tensor.new_empty", "torch.Tensor.new_empty_strided"])
        self.assertEqual(fill.report["calls"],
                         {"torch.empty": 2, "torch.empty_like": 1, "torch.empty_strided": 1,
                          "torch.Tensor.new_empty": 1, "torch.Tensor.new_empty_strided": 1})
        # Put back as they were: the module's functions, the class's own method, and the
        # inherited one inherited again.
        self.assertEqual((torch.empty, torch.empty_like, torch.empty_strided,
                          torch.Tensor.__dict__["new_empty_strided"]), originals)
        self.assertNotIn("new_empty", torch.Tensor.__dict__)
        self.assertEqual(torch.empty(2).values, [7.5, 7.5])
        self.assertEqual(torch.Tensor().new_empty(1).values, [7.5])

    def run_packing(self, zero_fill):
        """A run whose operator code packs into torch.empty and adds into it, as
        matmul_dequant_int4's quantize_int4 does."""
        d = tempfile.mkdtemp()
        torch = GarbageTorch()
        sys.modules["__kjfake_torch__"] = torch
        try:
            cand, tpath = write_operator(
                d,
                "import __kjfake_torch__ as torch\n"
                "def pack(n):\n    w = torch.empty(n)\n"
                "    for i in range(n):\n        w.values[i] += i\n    return w.values\n",
                "def test_pack():\n    return {'test_case_1': pack(3)}\n"
                "result_gold = test_pack()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["test"], "require_torch": True, "zero_fill": zero_fill}
            rec, data = run.run(req, (torch, None, FakeOps()))
        finally:
            del sys.modules["__kjfake_torch__"]
        self.assertEqual(torch.empty(1).values, [7.5])  # put back after the run
        return rec, data

    def test_a_run_fills_before_the_operator_code_and_says_so(self):
        rec, data = self.run_packing(True)
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertEqual(struct.unpack("<3d", data[:24]), (0.0, 1.0, 2.0))
        self.assertEqual(rec["zero_fill"]["calls"], {"torch.empty": 1})
        self.assertIn("torch.Tensor.new_empty", rec["zero_fill"]["patched"])
        rec, data = self.run_packing(False)  # the test as it stands: what memory held
        self.assertEqual(struct.unpack("<3d", data[:24]), (7.5, 8.5, 9.5))
        self.assertNotIn("zero_fill", rec)

    def run_timed(self, zero_fill):
        """A timed run whose operator returns a torch.empty it never writes, as
        mul_exponent_compensator's launches with no program do."""

        class GarbageFT(FT):
            def zero_(self):
                self.values = [0.0] * len(self.values)
                return self

        torch = fake_torch()
        # Small tensors hold what memory held; the timer's own flush buffer stays empty.
        torch.empty = lambda n, dtype=None, device=None: GarbageFT([7.5] * n if n < 64 else [])
        torch.no_grad = contextlib.nullcontext
        sys.modules["__kjfake_torch__"] = torch
        d = kjfake_module()
        try:
            cand, tpath = write_operator(
                d,
                "import __kjfake_torch__ as torch\n"
                "def op(x):\n    return torch.empty(len(x.values))\n",
                "from kjfake import FT\n"
                "def test_op():\n    return {'a': op(FT([0.5, 1.5])).values}\n"
                "r = test_op()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["time"], "require_torch": False, "zero_fill": zero_fill,
                   "timing": {"warmup": 1, "reps": 3, "min_reps": 1,
                              "check": {"seed": SECRET, "tolerances": TOL}}}
            rec, data = run.run(req, (torch, None, FakeOps()))
        finally:
            forget_kjfake_module(d)
            del sys.modules["__kjfake_torch__"]
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        outputs = [decode(rep, data)["result"]
                   for rep in rec["timing"]["sites"][0]["check"]["outputs"]]
        return rec, outputs

    def test_timed_calls_are_filled_too(self):
        rec, outputs = self.run_timed(True)
        self.assertEqual(outputs, [[0.0, 0.0]] * 3)
        # The test's call, the probe's three, the warm-up and the 3 timed calls.
        self.assertGreaterEqual(rec["zero_fill"]["calls"]["torch.empty"], 4)
        rec, outputs = self.run_timed(False)  # what memory held
        self.assertEqual(outputs, [[7.5, 7.5]] * 3)
        self.assertNotIn("zero_fill", rec)

    def test_without_torch_the_fill_is_a_setup_error(self):
        d = tempfile.mkdtemp()
        cand, tpath = os.path.join(d, "candidate.py"), os.path.join(d, "test.py")
        for path in (cand, tpath):
            with open(path, "w") as f:
                f.write("result_gold = 1\n")
        req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
               "seed": 7, "modes": ["test"], "require_torch": False, "zero_fill": True}
        rec, _ = run.run(req, (None, None))
        self.assertEqual(rec["error"]["stage"], "setup")

    def test_with_the_real_torch(self):
        torch = execute.import_optional("torch")
        if torch is None:
            self.skipTest("torch is not installed for this python")
        devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
        empty = torch.empty
        own = "new_empty" in torch.Tensor.__dict__
        fill = zerofill.ZeroFill(torch)
        fill.install()
        try:
            for dev in devices:
                for _ in range(3):  # reuse freed blocks that held something
                    junk = torch.full((1024,), 3.0, device=dev)
                    del junk
                    made = [torch.empty(1024, device=dev),
                            torch.empty(1024, device=dev).to(torch.int32),
                            torch.empty_like(torch.ones(1024, device=dev)),
                            torch.empty_strided((32, 32), (32, 1), device=dev),
                            torch.ones(2, device=dev).new_empty((1024,)),
                            torch.ones(2, device=dev).new_empty_strided((1024,), (1,))]
                    for t in made:
                        self.assertEqual(int(torch.count_nonzero(t)), 0, (dev, t.shape))
            leaf = torch.empty(4, requires_grad=True)
            self.assertTrue(leaf.is_leaf and leaf.requires_grad)
            self.assertEqual(int(torch.count_nonzero(leaf.detach())), 0)
        finally:
            fill.remove()
        self.assertIs(torch.empty, empty)
        self.assertEqual("new_empty" in torch.Tensor.__dict__, own)
        self.assertGreaterEqual(fill.calls["torch.empty"], 6)


if __name__ == "__main__":
    unittest.main()
