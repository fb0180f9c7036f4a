#!/usr/bin/env python3
"""Tests of the CUPTI marks (kjudge_triton/marks.py), with a fake profiler. Standard library only.
Run: /usr/bin/python3 python/tests/test_marks.py; all of them: python/README.md.
"""

import json
import sys
import threading
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    FT, kjfake_module, write_operator, forget_kjfake_module, FakeOps, fake_torch, SECRET, TOL,
    timer, add)
from kjudge_triton import marks as marks_module, run, timing  # noqa: E402


class CallMarksTest(unittest.TestCase):
    """--cupti: every call of the operator code is marked in the profiler's clock, the timed ones
    with their site and repetition, so the judge can place each kernel CUPTI saw."""

    def hooks(self, finished=(1,)):
        clock = {"now": 1000, "finishes": list(finished)}

        def now():
            clock["now"] += 10
            return clock["now"]

        def finish():
            return clock["finishes"].pop(0) if clock["finishes"] else 0

        return now, finish

    def timed(self, marks, hold_need_ms=None):
        fake = fake_torch()
        params = {"warmup": 2, "reps": 4, "min_reps": 2, "max_ms_per_site": 60000,
                  "cupti": True, "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        if hold_need_ms is not None:  # the GPU waited on the host until a hold of this much
            state = {"spin_ms": 0.0}
            fake.cuda._sleep = lambda cycles: state.update(spin_ms=cycles / float(1 << 20))

            def query(event):
                waited = state["spin_ms"] < hold_need_ms
                state["spin_ms"] = 0.0
                return waited

            fake.cuda.Event.query = query
        t = timing.CudaTimer(fake, params, ops=FakeOps(), marks=marks)
        calls = []

        def op(x, y):
            calls.append(marks.now())
            return add(x, y)

        t.measure("add", op, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        t.measure("add", op, (FT([3.0]), FT([1.0])), {}, lambda: None)
        return t, calls

    def test_every_call_is_marked_and_the_timed_ones_by_site_and_repetition(self):
        marks = marks_module.CallMarks(self.hooks())
        t, calls = self.timed(marks)
        timed = [c for c in marks.calls if c[1] >= 0]
        self.assertEqual([(c[0], c[1]) for c in timed],
                         [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)])
        self.assertEqual(len(timed), sum(len(s["samples_ms"]) for s in t.sites))
        # Each call of the operator code lies inside exactly one window.
        for at in calls:
            inside = [c for c in marks.calls if c[2] < at < c[3]]
            self.assertEqual(len(inside), 1, at)
        # The test's own call and the warm-ups (and the probes) are marked untimed.
        self.assertGreaterEqual(len([c for c in marks.calls if c[1] == -1 and c[0] == 0]), 3)
        self.assertEqual(len(marks.calls), len(calls))
        rep = marks.report()
        self.assertEqual(rep["clock"], True)
        self.assertEqual(rep["finished"], True)
        self.assertEqual(rep["tid"], threading.get_native_id())

    def test_a_repetition_not_counted_is_an_untimed_call(self):
        marks = marks_module.CallMarks(self.hooks())
        t, calls = self.timed(marks, hold_need_ms=0.1)
        self.assertGreater(t.sites[0]["not_counted"], 0)
        timed = [c for c in marks.calls if c[1] >= 0 and c[0] == 0]
        self.assertEqual([c[1] for c in timed], list(range(len(t.sites[0]["samples_ms"]))))
        self.assertEqual(len(marks.calls), len(calls))

    def test_a_record_someone_else_finished_first_is_reported(self):
        marks = marks_module.CallMarks(self.hooks(finished=(0,)))
        self.assertEqual(marks.report()["finished"], False)

    def test_without_the_profiler_nothing_is_marked_and_the_report_says_why(self):
        marks = marks_module.CallMarks()  # this process has no libkjudge_profiler.so preloaded
        self.assertFalse(marks.active)
        fake = fake_torch()
        params = {"warmup": 1, "reps": 2, "min_reps": 1, "cupti": True,
                  "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        t = timing.CudaTimer(fake, params, ops=FakeOps(), marks=marks)
        t.measure("add", add, (FT([1.0]), FT([2.0])), {}, lambda: None)
        rep = marks.report()
        self.assertEqual((rep["clock"], rep["calls"]), (False, []))
        self.assertIn("kjudge_profiler_now_ns", rep["why"])

    def test_a_whole_timed_run_reports_its_marks_and_the_import(self):
        d = kjfake_module()
        real = marks_module.profiler_hooks
        marks_module.profiler_hooks = lambda: self.hooks()
        try:
            cand, tpath = write_operator(
                d, "from kjfake import FT\ndef op(x):\n    return FT([2 * v for v in x.values])\n",
                "from kjfake import FT\ndef test_op():\n    return {'a': op(FT([0.5])).values}\n"
                "r = test_op()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["time"], "require_torch": False,
                   "timing": {"warmup": 1, "reps": 3, "min_reps": 1, "cupti": True,
                              "check": {"seed": SECRET, "tolerances": TOL}}}
            rec, _ = run.run(req, (fake_torch(), None, FakeOps()))
        finally:
            marks_module.profiler_hooks = real
            forget_kjfake_module(d)
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        c = rec["cupti"]
        self.assertEqual((c["clock"], c["finished"]), (True, True))
        self.assertEqual([m[1] for m in c["calls"] if m[1] >= 0], [0, 1, 2])
        self.assertLess(c["import"][1], min(m[2] for m in c["calls"]))
        # No CUDA driver behind the fake torch: the record says persisting L2 was not reset.
        self.assertTrue(rec["env"]["persisting_l2"].startswith("not reset: "),
                        rec["env"]["persisting_l2"])
        self.assertEqual(rec["timing"]["persisting_l2_resets"], 0)
        json.dumps(rec)  # what goes over the channel

    def test_not_asked_no_marks(self):
        t = timer()
        self.assertIsNone(t.marks)


if __name__ == "__main__":
    unittest.main()
