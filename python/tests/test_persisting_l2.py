#!/usr/bin/env python3
"""Tests of persisting L2 taken back (kjudge_triton/persisting_l2.py), with a fake driver. Standard
library only. Run: /usr/bin/python3 python/tests/test_persisting_l2.py; all of them:
python/README.md.
"""

import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    FT, FakeOps, fake_torch, SECRET, TOL, add, FakeDriver)
from kjudge_triton import persisting_l2, timing  # noqa: E402


class PersistingL2Test(unittest.TestCase):
    """Persisting L2 is taken back before every timed repetition (tests/cheats/task/persist_l2.cu
    is the task path's cheat; an operator would do the same through ctypes)."""

    def test_every_timed_repetition_takes_persisting_l2_back_before_its_flush(self):
        driver = FakeDriver()
        order = []
        fake = fake_torch()
        real_zero = FT.zero_

        def zero(t):
            order.append("flush")
            return real_zero(t)

        fake.Tensor = type("T", (FT,), {"zero_": zero})
        l2 = persisting_l2.PersistingL2(driver)
        params = {"warmup": 1, "reps": 4, "min_reps": 4, "max_ms_per_site": 60000,
                  "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        t = timing.CudaTimer(fake, params, ops=FakeOps(), persisting_l2=l2)
        real_call = l2.__call__
        l2_calls = []
        t.persisting_l2 = lambda: (order.append("l2"), l2_calls.append(1), real_call())
        t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        site = t.sites[0]
        reps = len(site["samples_ms"]) + site["not_counted"]
        self.assertEqual(len(l2_calls), reps)
        self.assertEqual(order[:2], ["l2", "flush"])
        self.assertEqual([c for c in driver.calls if c[0] == "limit"],
                         [("limit", persisting_l2.PersistingL2.LIMIT_PERSISTING_L2_CACHE_SIZE,
                           0)] * reps)
        self.assertEqual(sum(1 for c in driver.calls if c[0] == "reset"), reps)
        self.assertEqual(l2.resets, reps)
        self.assertEqual(l2.describe(), "reset before every timed repetition")

    def test_a_gpu_without_persisting_l2_is_said_and_left_alone(self):
        driver = FakeDriver(most=0)
        l2 = persisting_l2.PersistingL2(driver)
        l2()
        self.assertEqual(l2.resets, 0)
        self.assertEqual(l2.describe(), "not reset: this GPU has no persisting L2")
        self.assertFalse([c for c in driver.calls if c[0] != "attribute"])

    def test_a_failing_driver_call_says_why_and_is_not_tried_again(self):
        driver = FakeDriver(fail=201)
        l2 = persisting_l2.PersistingL2(driver)
        l2()
        l2()
        self.assertIn("cuCtxSetLimit returned 201", l2.describe())
        self.assertEqual(len([c for c in driver.calls if c[0] == "limit"]), 1)

    def test_no_driver_is_said_not_raised(self):
        l2 = persisting_l2.PersistingL2(object())
        l2()
        self.assertTrue(l2.describe().startswith("not reset: the CUDA driver's functions"))


if __name__ == "__main__":
    unittest.main()
