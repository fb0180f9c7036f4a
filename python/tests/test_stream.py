#!/usr/bin/env python3
"""Tests of the per-call channel to the judge (kjudge_triton/stream.py), with a fake judge.
Standard library only. Run: /usr/bin/python3 python/tests/test_stream.py; all of them:
python/README.md.
"""

import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    FT, FakeOps, fake_torch, SECRET, TOL, add, FakeJudge)
from kjudge_triton import check, recorder, stream, timing  # noqa: E402


class CallStreamTest(unittest.TestCase):
    """Issue 31: a timed call's key comes from the judge in its turn, after the call before it
    was committed (its samples with its done, its output's digest with its kept); nothing a
    timed call depends on is in the process before."""

    def measure(self, judge, op=add, reps=4, fake=None):
        p = {"warmup": 1, "reps": reps, "min_reps": 2, "max_ms_per_site": 60000,
             "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        ops = FakeOps()
        t = timing.CudaTimer(fake or fake_torch(), p, ops=ops, stream=stream.CallStream(judge.fd))
        t.measure("add", op, (FT([1.5, 2.25]), FT([0.5, 0.25])), {}, lambda: None)
        return t, ops

    def test_every_timed_call_is_keyed_done_and_kept_in_turn(self):
        judge = FakeJudge()
        try:
            t, ops = self.measure(judge)
        finally:
            judge.close()
        site = t.sites[0]
        kinds = [m[0] for m in judge.messages]
        self.assertEqual(kinds, ["key", "done", "kept"] * 4)
        for rep in range(4):
            key, done, kept = judge.messages[3 * rep:3 * rep + 3]
            self.assertEqual(key, ["key", "0", str(rep)])
            self.assertEqual(done[:3], ["done", "0", str(rep)])
            self.assertEqual(float(done[4] if site["end"] == "device" else done[3]),
                             site["samples_ms"][rep])
            out = site["check"]["outputs"][rep]
            blob = bytes(t.check.blob[out["offset"]:out["offset"] + out["data_bytes"]])
            self.assertEqual(kept, ["kept", "0", str(rep),
                                    __import__("hashlib").sha256(blob).hexdigest()])
        # The new content of each timed call is drawn from the key the judge sent for it, not
        # from the request's seed.
        want = {check.perturb_seed(int(FakeJudge.key(0, rep), 16), 0, rep, path)
                for rep in range(4) for path in ("args[0]", "args[1]")}
        made = {seed for seed, _ in ops.made}
        self.assertTrue(want <= made, (want, made))
        self.assertFalse({check.perturb_seed(SECRET, 0, rep, "args[0]") for rep in range(4)} & made)

    def test_a_repetition_not_counted_keeps_its_key(self):
        judge = FakeJudge()
        fake = fake_torch()
        state = {"n": 0}

        def query(event):  # the first two queries find the start passed: done again
            state["n"] += 1
            return state["n"] <= 2

        fake.cuda.Event.query = query
        fake.cuda._sleep = lambda cycles: None
        try:
            t, _ = self.measure(judge, fake=fake)
        finally:
            judge.close()
        self.assertEqual(t.sites[0]["not_counted"], 2)
        self.assertEqual([m[0] for m in judge.messages], ["key", "done", "kept"] * 4)

    def test_a_judge_that_says_no_ends_the_timing(self):
        judge = FakeJudge(refuse_at=3)  # the second call's key
        try:
            with self.assertRaises(stream.StreamError):
                self.measure(judge)
        finally:
            judge.close()

    def test_what_each_entry_call_left_is_committed_as_it_is_recorded(self):
        judge = FakeJudge()
        try:
            rec = recorder.CallRecorder(FakeOps(), stream=stream.CallStream(judge.fd))
            rec.record("add", FT([1.0, 2.0]), (FT([0.5]),), {})
            rec.record("add", object(), (), {})  # nothing it can encode as a tensor: kept as other
            import time as _t
            _t.sleep(0.05)
        finally:
            judge.close()
        self.assertEqual([m[:2] for m in judge.messages], [["rec", "0"], ["rec", "1"]])
        first = rec.calls[0]["outputs"]
        blob = bytes(rec.blob[first["offset"]:first["offset"] + first["data_bytes"]])
        self.assertEqual(judge.messages[0][2], __import__("hashlib").sha256(blob).hexdigest())

    def test_without_a_judge_the_keys_are_the_requests_seed(self):
        keys = stream.LocalKeys(77)
        self.assertEqual((keys.key(0, 1), keys.done(0, 1, 1.0, 1.0)), (77, 77))


if __name__ == "__main__":
    unittest.main()
