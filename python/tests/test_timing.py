#!/usr/bin/env python3
"""Tests of the timer (kjudge_triton/timing.py) with a stand-in for torch: its clock, its end
events, its holds. Standard library only. Run: /usr/bin/python3 python/tests/test_timing.py; all
of them: python/README.md.
"""

import sys
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    FT, FakeOps, fake_torch, SECRET, TOL, add)
from kjudge_triton import held, timing  # noqa: E402


class ClockTest(unittest.TestCase):
    """The runner's host clock is the one time.perf_counter was as it loaded: operator code
    that replaces it (tests/cheats/triton/patched_timer.py) does not slow the runner's."""

    def test_a_replaced_perf_counter_is_not_the_runners_clock(self):
        real = time.perf_counter
        try:
            time.perf_counter = lambda: 0.0
            a = held._clock()
            time.sleep(0.01)
            self.assertGreaterEqual(held._clock() - a, 0.009)
            self.assertEqual(time.perf_counter(), 0.0)
        finally:
            time.perf_counter = real

    def test_an_event_patched_after_the_timer_is_made_is_not_what_it_reads(self):
        # The timer is made before the operator code runs; patching then (as patched_timer.py
        # does with a tenth of the real time) does not reach its samples.
        def samples(patch):
            fake = fake_torch()
            p = {"warmup": 1, "reps": 4, "min_reps": 2, "max_ms_per_site": 60000,
                 "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
            t = timing.CudaTimer(fake, p, ops=FakeOps())
            real = fake.cuda.Event.elapsed_time
            if patch:
                fake.cuda.Event.elapsed_time = lambda self, end: 0.1 * real(self, end)
            t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
            fake.cuda.Event.elapsed_time = real
            return t.sites[0]["samples_ms"]

        honest = samples(False)
        self.assertGreater(min(honest), 0)
        self.assertEqual(samples(True), honest)


class EndEventTest(unittest.TestCase):
    """The end event sits right behind the call's work; a long tail past it (work on another
    stream, finished only by the device-wide synchronize) moves the site to the device-wide end."""

    def site(self, sync_ms, **params):
        fake = fake_torch()
        Event = fake.cuda.Event

        def synchronize():  # the time the device-wide synchronize waits
            Event.clock[0] += sync_ms

        fake.cuda.synchronize = synchronize
        p = {"warmup": 1, "reps": 4, "min_reps": 2, "max_ms_per_site": 60000,
             "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        p.update(params)
        t = timing.CudaTimer(fake, p, ops=FakeOps())
        t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        return t.sites[0]

    def test_a_call_whose_work_ends_with_it_is_timed_to_the_stream_end(self):
        # Each record advances the fake clock 1 ms: start → end is 1 ms, end → after 1 ms.
        s = self.site(0.0, side_work_ms=5)
        self.assertEqual(s["end"], "stream")
        self.assertEqual(s["samples_ms"], [1.0] * 4)
        self.assertEqual(s["tail_ms"], 1.0)

    def test_work_that_outlasts_the_call_is_timed_to_the_device_wide_end(self):
        s = self.site(10.0, side_work_ms=5)
        self.assertEqual(s["end"], "device")
        self.assertEqual(s["tail_ms"], 11.0)
        self.assertEqual(s["samples_ms"], [12.0] * 4)


class HoldTest(unittest.TestCase):
    """A call the host queues more slowly than the GPU runs it is timed behind a spin that holds
    the stream; a call that waits on the GPU itself is timed without one (host_bound)."""

    def site(self, need_ms=None, has_query=True, slow_at_longest=0):
        """need_ms: the spin that covers the call (None: none does, the call synchronizes);
        slow_at_longest: how many of the first queries at the longest hold (2 ms) find the host
        slow, so that the hold does not cover the call. Counted at the longest hold, not from
        the first query: how fast the hold grows there depends on how fast this host queues."""
        fake = fake_torch()
        state = {"spin_ms": 0.0, "spins": 0, "queries": 0, "at_longest": 0}

        def spin(cycles):  # calibrated below at 2^20 cycles a ms (each record is 1 ms)
            state["spin_ms"] = cycles / float(1 << 20)
            state["spins"] += 1

        def query(event):  # True: the GPU already reached the start event (it waited on us)
            slow = False
            if state["spin_ms"] >= 2.0:
                slow = state["at_longest"] < slow_at_longest
                state["at_longest"] += 1
            waited = need_ms is None or state["spin_ms"] < need_ms or slow
            state["queries"] += 1
            state["spin_ms"] = 0.0
            return waited

        fake.cuda._sleep = spin
        if has_query:
            fake.cuda.Event.query = query
        p = {"warmup": 1, "reps": 5, "min_reps": 2, "max_ms_per_site": 60000,
             "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        t = timing.CudaTimer(fake, p, ops=FakeOps())
        # The host's clock, faked: every reading is 10 µs after the last, so how long this
        # machine takes to queue the fake call (a loaded CI host: ms) does not size the hold.
        clock = {"now": 0.0}

        def perf_counter():
            clock["now"] += 1e-5
            return clock["now"]

        # The runner reads its own clock, taken at load (a cheat cannot swap it), so that is
        # what the test replaces.
        real = timing._clock
        timing._clock = perf_counter
        try:
            t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        finally:
            timing._clock = real
        return t.sites[0], state

    def test_a_launch_bound_call_gets_a_hold_that_covers_it(self):
        s, state = self.site(need_ms=0.1)
        self.assertGreaterEqual(s["hold_ms"], 0.1)
        self.assertLess(s["hold_ms"], 0.4)  # it doubled from ~0.02 ms until covered
        self.assertFalse(s["host_bound"])
        self.assertGreater(s["not_counted"], 0)
        self.assertEqual(len(s["samples_ms"]), 5)
        self.assertEqual(len(s["check"]["outputs"]), 5)

    def test_a_slow_host_once_at_the_longest_hold_does_not_make_a_call_host_bound(self):
        # Covered from a 1.5 ms hold on, but the host is slow at the first two queries at 2 ms.
        s, state = self.site(need_ms=1.5, slow_at_longest=2)
        self.assertEqual(state["at_longest"], 2 + 5)
        self.assertFalse(s["host_bound"])
        self.assertEqual(s["hold_ms"], 2.0)
        self.assertEqual(len(s["samples_ms"]), 5)

    def test_a_host_slow_three_times_running_at_the_longest_hold_is_host_bound(self):
        s, state = self.site(need_ms=1.5, slow_at_longest=3)
        self.assertTrue(s["host_bound"])
        self.assertEqual(s["hold_ms"], 0.0)
        self.assertEqual(len(s["samples_ms"]), 5)

    def test_a_call_that_waits_on_the_gpu_is_timed_without_a_hold(self):
        s, _ = self.site(need_ms=None)
        self.assertTrue(s["host_bound"])
        self.assertEqual(s["hold_ms"], 0.0)
        self.assertEqual(len(s["samples_ms"]), 5)

    def test_a_call_the_gpu_is_slower_at_gets_no_hold(self):
        s, state = self.site(need_ms=0.0)
        self.assertEqual(s["hold_ms"], 0.0)
        self.assertEqual(state["spins"], 0)
        self.assertEqual(s["not_counted"], 0)

    def test_without_event_query_nothing_is_held(self):
        s, state = self.site(need_ms=None, has_query=False)
        self.assertEqual((s["hold_ms"], s["host_bound"], state["spins"]), (0.0, False, 0))


if __name__ == "__main__":
    unittest.main()
