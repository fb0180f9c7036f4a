#!/usr/bin/env python3
"""Tests of the check's tensor operations (kjudge_triton/torchops.py) with the real torch, where
installed (skipped without it). Run: /usr/bin/python3 python/tests/test_torchops.py; all of
them: python/README.md.
"""

import struct
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    fake_torch, decode, SECRET, TOL, plan_of)
from kjudge_triton import execute, timing, torchops  # noqa: E402


class TorchOpsTest(unittest.TestCase):
    """TorchOps with the real torch, on CPU tensors: only where torch is installed (not in CI;
    on the GPU machine, run this file with the venv's python)."""

    def setUp(self):
        torch = execute.import_optional("torch")
        if torch is None:
            self.skipTest("torch is not installed for this python")
        self.torch = torch
        self.ops = torchops.TorchOps(torch, execute.import_optional("numpy"))

    def test_new_content_keeps_dtype_shape_strides_signs_and_zeros(self):
        torch, ops = self.torch, self.ops
        x = torch.randn(4, 6).t()  # not contiguous
        x[0, 0] = 0.0
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            p = ops.perturbed(x.to(dtype), 7, 0.125)
            self.assertEqual((p.dtype, p.shape, p.stride()), (dtype, x.shape, x.to(dtype).stride()))
        p = ops.perturbed(x, 7, 0.125)
        ratio = (p / x)[x != 0]
        self.assertGreater(ratio.min().item(), 0.76)
        self.assertLess(ratio.max().item(), 1.27)
        self.assertEqual(p[0, 0].item(), 0.0)
        self.assertTrue(torch.equal(p, ops.perturbed(x, 7, 0.125)))
        self.assertFalse(torch.equal(p, ops.perturbed(x, 8, 0.125)))
        self.assertEqual(ops.perturbed(torch.tensor(2.5), 1, 0.125).shape, torch.Size([]))
        self.assertEqual(ops.perturbed(torch.empty(0), 1, 0.125).shape, torch.Size([0]))
        g = torch.randn(3, requires_grad=True)
        ops.perturbed(g, 1, 0.125).sum().backward()  # still part of the graph, as a clone is
        self.assertIsNotNone(g.grad)

    def test_what_may_change(self):
        torch, ops = self.torch, self.ops
        self.assertTrue(ops.perturbable(torch.randn(5)))
        for t in (torch.ones(3), torch.tensor([0.0, float("-inf")]), torch.arange(5),
                  torch.arange(5.0), torch.empty(0), torch.randn(2, dtype=torch.complex64)):
            self.assertFalse(ops.perturbable(t), t)

    def test_same_close_finite_and_parts(self):
        torch, ops = self.torch, self.ops
        x = torch.randn(3)
        nan = torch.tensor([float("nan"), 1.0])
        self.assertTrue(ops.same(x, x.clone()))
        self.assertTrue(ops.same(nan, nan.clone()))
        self.assertFalse(ops.same(x, x + 1))
        self.assertTrue(ops.close(x, x + 1e-7, (1e-4, 1e-5)))
        self.assertFalse(ops.close(x, x + 1e-2, (1e-4, 1e-5)))
        self.assertTrue(ops.close(nan, nan.clone(), (1e-4, 1e-5)))
        self.assertFalse(ops.close(torch.tensor([float("inf")]), torch.tensor([float("-inf")]),
                                   (1e-4, 1e-5)))
        self.assertFalse(ops.finite(nan))
        self.assertTrue(ops.finite(torch.tensor([1])))
        dtype, shape, raw, cplx = ops.parts(torch.tensor([1.5, -2.0]))
        self.assertEqual((dtype, shape, raw, cplx),
                         ("float32", [2], struct.pack("<2f", 1.5, -2.0), False))

        class Lazy(torch.Tensor):
            pass

        # A subclass's methods are the operator code's: it is an object, never read.
        self.assertIsNone(ops.parts(torch.randn(2).as_subclass(Lazy)))
        self.assertEqual(ops.parts(torch.nn.Parameter(torch.ones(1)))[:2], ("float32", [1]))

    def test_samples_are_gathered_in_row_major_order_whatever_the_strides_and_dtype(self):
        torch, ops = self.torch, self.ops

        def raw(t):
            return bytes(t.contiguous().reshape(-1).view(torch.uint8).tolist())

        pos = ops.sample_positions(1000, 10, 5)
        self.assertEqual(pos.dtype, torch.int64)
        self.assertEqual([int(p) // 100 for p in pos], list(range(10)))  # one in each run
        self.assertTrue(torch.equal(pos, ops.sample_positions(1000, 10, 5)))
        self.assertFalse(torch.equal(pos, ops.sample_positions(1000, 10, 6)))
        x = torch.randn(40, 30).t()  # not contiguous
        at = ops.sample_positions(1200, 50, 7)
        got = ops.sampled_parts(x, 50, 7)
        self.assertEqual((got[0], got[1], got[3], got[4]),
                         ("float32", [30, 40], False, {"elements": 50, "seed": 7}))
        self.assertEqual(got[2], raw(x.reshape(-1)[at]))
        for t in (x.to(torch.float16), x.to(torch.bfloat16), x > 0, (x * 10).to(torch.int64)):
            got = ops.sampled_parts(t, 50, 7)
            self.assertEqual(got[2], raw(t.reshape(-1)[at]), t.dtype)
            self.assertEqual(ops.encoded_size(t), (1200, t.element_size()))
        z = torch.randn(30, 20, dtype=torch.complex64)
        got = ops.sampled_parts(z, 50, 7)
        self.assertEqual((got[0], got[1], got[3]), ("float32", [30, 20, 2], True))
        self.assertEqual(got[2], raw(torch.view_as_real(z).reshape(-1)[at]))
        self.assertEqual(ops.encoded_size(z), (1200, 4))
        small = torch.randn(50)  # no larger than the sample: whole
        self.assertEqual(ops.sampled_parts(small, 50, 7), ops.parts(small) + (None,))

        class Lazy(torch.Tensor):
            pass

        lazy = torch.randn(100).as_subclass(Lazy)
        self.assertIsNone(ops.sampled_parts(lazy, 10, 1))
        self.assertIsNone(ops.encoded_size(lazy))

    def test_patching_torch_later_does_not_reach_the_check(self):
        torch, ops = self.torch, self.ops
        x = torch.randn(4)
        saved = torch.Tensor.mul_, torch.rand, torch.Tensor.cpu
        try:
            torch.Tensor.mul_ = lambda self, other: self  # new content turned off
            torch.rand = lambda *a, **k: None
            torch.Tensor.cpu = lambda self: self.zero_()
            p = ops.perturbed(x, 3, 0.125)
            self.assertFalse(torch.equal(p, x))
            self.assertEqual(ops.parts(x)[2], x.numpy().tobytes())
        finally:
            torch.Tensor.mul_, torch.rand, torch.Tensor.cpu = saved


    def test_a_timed_site_with_real_tensors(self):
        torch = self.torch
        fake = fake_torch()  # the CUDA events and synchronize; tensors and the check are real
        fake.Tensor, fake.int32 = torch.Tensor, torch.int32
        fake.empty = lambda n, dtype=None, device=None: torch.empty(n, dtype=dtype)

        def make(plan=None):
            params = {"warmup": 1, "reps": 5, "min_reps": 1, "max_ms_per_site": 60000,
                      "check": {"seed": SECRET, "tolerances": TOL, "plan": plan}}
            return timing.CudaTimer(fake, params, ops=self.ops)

        def scaled_add(x, y, out):  # writes its output buffer, returns nothing
            torch.add(x, y, alpha=0.5, out=out)

        x, y = torch.randn(64), torch.randn(64)
        idx = torch.arange(8)
        ref = make()
        ref.measure("op", scaled_add, (x, y), {"out": torch.empty(64)}, lambda: None)
        ref.measure("gather", lambda t, i: t[i], (x, idx), {}, lambda: None)
        checks = [s["check"] for s in ref.sites]
        self.assertEqual(checks[0]["perturbed"], ["args[0]", "args[1]", "kwargs.out"])
        self.assertEqual(checks[0]["observed"], ["kwargs.out"])
        self.assertEqual(checks[1]["perturbed"], ["args[0]"])
        self.assertEqual(checks[1]["observed"], ["args[1]"])  # an index: read back, unchanged

        cache = {}

        def stale(x, y, out):
            if x.shape not in cache:
                torch.add(x, y, alpha=0.5, out=out)
                cache[x.shape] = out.clone()
            out.copy_(cache[x.shape])

        cand = make(plan_of(ref))
        cand.measure("op", stale, (x, y), {"out": torch.empty(64)}, lambda: None)
        honest = make(plan_of(ref))
        honest.measure("op", scaled_add, (x, y), {"out": torch.empty(64)}, lambda: None)
        for i in range(5):
            want = decode(ref.sites[0]["check"]["outputs"][i], bytes(ref.check.blob))
            self.assertEqual(decode(honest.sites[0]["check"]["outputs"][i],
                                    bytes(honest.check.blob)), want)
            got = decode(cand.sites[0]["check"]["outputs"][i], bytes(cand.check.blob))
            self.assertEqual(len(got["kwargs.out"]), 64)
            self.assertNotEqual(got["kwargs.out"], want["kwargs.out"])


    def test_on_the_gpu_the_timer_and_the_check_together(self):
        """The whole timed site with CUDA events, the flush and CUDA generators: only where a GPU
        is (the device machine: PY python/test_kjudge_triton_runner.py)."""
        torch = self.torch
        if not torch.cuda.is_available():
            self.skipTest("no CUDA device")
        x = torch.randn(1000, device="cuda")
        p = self.ops.perturbed(x, 5, 0.125)
        self.assertEqual((p.device, p.dtype, p.shape), (x.device, x.dtype, x.shape))
        self.assertTrue(torch.equal(p, self.ops.perturbed(x, 5, 0.125)))
        self.assertFalse(torch.equal(p, x))

        def make(plan=None):
            params = {"warmup": 1, "reps": 5, "min_reps": 1, "flush_bytes": 1 << 20,
                      "check": {"seed": SECRET, "tolerances": TOL, "plan": plan}}
            return timing.CudaTimer(torch, params, ops=self.ops)

        y = torch.randn(1000, device="cuda")
        ref = make()
        ref.measure("add", torch.add, (x, y), {}, lambda: None)
        self.assertEqual(ref.sites[0]["check"]["perturbed"], ["args[0]", "args[1]"])
        self.assertTrue(all(t > 0 for t in ref.sites[0]["samples_ms"]))
        cache = {}

        def stale(a, b):
            return cache.setdefault(tuple(a.shape), torch.add(a, b))

        cand = make(plan_of(ref))
        cand.measure("add", stale, (x, y), {}, lambda: None)
        honest = make(plan_of(ref))
        honest.measure("add", torch.add, (x, y), {}, lambda: None)
        for i in range(5):
            want = decode(ref.sites[0]["check"]["outputs"][i], bytes(ref.check.blob))
            self.assertEqual(decode(honest.sites[0]["check"]["outputs"][i],
                                    bytes(honest.check.blob)), want)
            got = decode(cand.sites[0]["check"]["outputs"][i], bytes(cand.check.blob))
            self.assertNotEqual(got, want)

        # Outputs too large for the budget: sampled on the device, the same positions as on
        # the CPU, the same in every process.
        w = torch.randn(64, 512, device="cuda").t()
        self.assertEqual(self.ops.sampled_parts(w, 1000, 3)[2],
                         self.ops.sampled_parts(w.cpu(), 1000, 3)[2])

        def sampling(plan=None):
            params = {"warmup": 1, "reps": 5, "min_reps": 1, "flush_bytes": 1 << 20,
                      "check": {"seed": SECRET, "tolerances": TOL, "plan": plan,
                                "max_bytes_per_site": 64 << 10, "sample_elements": 1000}}
            return timing.CudaTimer(torch, params, ops=self.ops)

        big = torch.randn(256, 1024, device="cuda")
        ref = sampling()
        ref.measure("add", torch.add, (big, big), {}, lambda: None)
        check = ref.sites[0]["check"]
        self.assertEqual((check["whole"], check["sample"]), (0, 1000))
        self.assertEqual(len(ref.check.blob), 5 * 4000)
        honest = sampling(plan_of(ref))
        honest.measure("add", torch.add, (big, big), {}, lambda: None)
        self.assertEqual(bytes(honest.check.blob), bytes(ref.check.blob))


if __name__ == "__main__":
    unittest.main()
