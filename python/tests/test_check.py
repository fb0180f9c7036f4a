#!/usr/bin/env python3
"""Tests of the check of every timed call (kjudge_triton/check.py) with a stand-in for torch.
Standard library only. Run: /usr/bin/python3 python/tests/test_check.py; all of them:
python/README.md.
"""

import json
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    FT, kjfake_module, write_operator, forget_kjfake_module, FakeOps, fake_torch, decode,
    SECRET, TOL, timer, plan_of, add, StaleAdd)
from kjudge_triton import channel, check as check_module, run as run_module  # noqa: E402


class TimedCheckTest(unittest.TestCase):
    X, Y = FT([0.5, -1.25, 3.0]), FT([2.0, 0.75, -0.125])

    def test_the_reference_decides_what_gets_new_content_and_every_timed_output_is_kept(self):
        t = timer()
        calls = []

        def op(x, idx, mask, scale):
            calls.append([v for v in x.values])
            return FT([v * m * scale for v, m in zip(x.values, mask.values)])

        idx = FT([0, 2, 1], "int64")
        mask = FT([1.0, 0.0, 1.0])  # whole numbers: a mask keeps its meaning
        result = t.measure("op", op, (self.X, idx, mask, 2.0), {}, lambda: None)
        self.assertEqual(result.values, [1.0, 0.0, 6.0])  # the test's own call, untouched
        site = t.sites[0]
        check = site["check"]
        self.assertEqual(check["mode"], "perturbed", check)
        self.assertEqual(check["perturbed"], ["args[0]"])
        # Read back: what did not get new content (it could be an output); x is only read.
        self.assertEqual(check["observed"], ["args[1]", "args[2]"])
        self.assertEqual(len(check["outputs"]), len(site["samples_ms"]))
        self.assertEqual(len(site["samples_ms"]), 6)
        # 1 own call, 2 warm-ups, 3 probe calls, 6 timed calls: only the timed ones are new.
        self.assertEqual(len(calls), 12)
        timed = calls[6:]
        self.assertEqual(len({tuple(c) for c in timed}), 6)
        for c in timed:
            self.assertNotEqual(c, self.X.values)
            # Signs and zeros stay, the size moves by at most 1/8 + 1/8 and change.
            for new, old in zip(c, self.X.values):
                self.assertGreater(new / old, 0.76)
                self.assertLess(new / old, 1.27)
        for rep, c in zip(check["outputs"], timed):
            kept = decode(rep, bytes(t.check.blob))
            expect = [v * m * 2.0 for v, m in zip(c, mask.values)]
            for got, want in zip(kept["result"], expect):
                self.assertAlmostEqual(got, want, places=5)
        self.assertEqual(t.check.blob[:0], b"")
        json.dumps(t.sites)  # the report is JSON

    def test_an_in_place_output_is_kept_beside_the_result(self):
        t = timer()

        def op(x, out=None):
            out.values = [2 * v for v in x.values]

        t.measure("op", op, (self.X,), {"out": FT([0.0, 0.0, 0.0])}, lambda: None)
        check = t.sites[0]["check"]
        # The test's own call filled the buffer: it gets new content too, which the call
        # overwrites, and so it is read back.
        self.assertEqual(check["perturbed"], ["args[0]", "kwargs.out"])
        self.assertEqual(check["observed"], ["kwargs.out"])
        kept = decode(check["outputs"][0], bytes(t.check.blob))
        self.assertEqual(kept["result"], "none")
        self.assertEqual(len(kept["kwargs.out"]), 3)
        self.assertNotEqual(kept["kwargs.out"], [1.0, -2.5, 6.0])

    def test_the_candidate_gets_the_references_inputs_and_a_stale_cache_shows(self):
        ref = timer()
        ref.measure("add", add, (self.X, self.Y), {}, lambda: None)
        plan = plan_of(ref)
        self.assertEqual(plan[0]["perturb"], ["args[0]", "args[1]"])
        honest = timer(plan)
        calls = []

        def counted(x, y):
            calls.append(1)
            return add(x, y)

        honest.measure("add", counted, (self.X, self.Y), {}, lambda: None)
        # The probe's three calls are made again: every process makes the same calls.
        self.assertEqual(len(calls), 1 + 2 + 3 + 6)
        self.assertEqual(ref.sites[0]["check"]["probe"],
                         [[], ["args[0]", "args[1]"], ["args[0]", "args[1]"]])
        stale = timer(plan)
        first = stale.measure("add", StaleAdd(), (self.X, self.Y), {}, lambda: None)
        self.assertEqual(first.values, [2.5, -0.5, 2.875])  # right on the test's own call
        blobs = [bytes(t.check.blob) for t in (ref, honest, stale)]
        for i in range(6):
            want = decode(ref.sites[0]["check"]["outputs"][i], blobs[0])
            self.assertEqual(decode(honest.sites[0]["check"]["outputs"][i], blobs[1]), want)
            got = decode(stale.sites[0]["check"]["outputs"][i], blobs[2])
            self.assertNotEqual(got, want)  # the judge finds every one of them wrong

    def test_an_operator_with_state_sees_the_same_calls_in_every_process(self):
        class Counter:  # steps a state it keeps, as an optimizer steps a model it is handed
            def __init__(self):
                self.steps = 0

            def __call__(self, x, model):
                model.steps += 1
                return FT([v + model.steps for v in x.values])

        ref = timer()
        ref.measure("step", Counter(), (self.X, Counter()), {}, lambda: None)
        cand = timer(plan_of(ref))
        cand.measure("step", Counter(), (self.X, Counter()), {}, lambda: None)
        for i in range(6):
            self.assertEqual(decode(cand.sites[0]["check"]["outputs"][i], bytes(cand.check.blob)),
                             decode(ref.sites[0]["check"]["outputs"][i], bytes(ref.check.blob)))

    def test_plain_copies_where_new_content_would_change_what_the_reference_does(self):
        cases = []

        def raises(x):  # a precondition on the values
            if x.values != TimedCheckTest.X.values:
                raise ValueError("not the values I know")
            return FT(x.values)

        cases.append((raises, "raised ValueError on new content"))

        def nan(x):
            return FT([v if v in TimedCheckTest.X.values else float("nan") for v in x.values])

        cases.append((nan, "makes result NaN or infinite"))

        def shape(x):
            return FT(x.values) if x.values == TimedCheckTest.X.values else (FT(x.values), None)

        cases.append((shape, "changes the kind, dtype or shape"))
        drawn = [0.0]

        def noisy(x):
            if x.values == TimedCheckTest.X.values:
                return FT(x.values)
            drawn[0] += 1.0
            return FT([v + drawn[0] for v in x.values])

        cases.append((noisy, "disagrees with itself on new content (result)"))
        for fn, why in cases:
            t = timer()
            t.measure("op", fn, (self.X,), {}, lambda: None)
            check = t.sites[0]["check"]
            self.assertEqual(check["mode"], "unperturbed", fn.__name__)
            self.assertIn(why, check["reason"], fn.__name__)
            self.assertEqual(check["perturbed"], [])
            self.assertEqual(check["observed"], ["args[0]"])  # plain copies: all read back
            # Still every output kept: the judge checks them against the reference's on the
            # same plain copies.
            self.assertEqual(len(check["outputs"]), 6)

    def test_nothing_to_change(self):
        t = timer()
        t.measure("op", lambda x, n: FT(x.values), (FT([1.0, 2.0]), 3), {}, lambda: None)
        self.assertEqual(t.sites[0]["check"]["reason"],
                         "no floating-point tensor argument holds a fraction")
        t = timer(perturb=False)
        t.measure("op", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual(t.sites[0]["check"]["reason"], "new content is turned off")

    def test_every_call_starts_from_the_test_calls_random_state(self):
        t = timer()
        resets = []
        t.measure("add", add, (self.X, self.Y), {}, lambda: resets.append(1))
        self.assertEqual(len(resets), 2 + 3 + 6)  # warm-ups, probe calls, timed calls

    def test_repetitions_follow_the_plan_and_are_cut_only_where_no_sample_fits(self):
        # Outputs of three floats: a sample of them is all of them, so nothing smaller fits.
        ref = timer(reps=30, max_bytes_per_site=12 * 4)  # 12 floats: four calls of three
        ref.measure("add", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual(len(ref.sites[0]["samples_ms"]), 4)
        self.assertEqual(plan_of(ref)[0]["reps"], 4)
        cand = timer(plan_of(ref), reps=30)
        cand.measure("add", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual(len(cand.sites[0]["samples_ms"]), 4)
        # All sites of a process together are bounded too.
        both = timer(reps=30, max_bytes=20 * 4)
        both.measure("add", add, (self.X, self.Y), {}, lambda: None)
        both.measure("add", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual([len(s["samples_ms"]) for s in both.sites], [6, 2])  # 18 + 6 floats
        # A call the reference did not make: plain copies, and it says so.
        cand.measure("add", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual(cand.sites[1]["check"]["mode"], "unperturbed")
        self.assertEqual(cand.sites[1]["check"]["reason"], "the reference made no such call")

    def test_seeds_depend_on_the_secret_the_site_the_repetition_and_the_argument(self):
        seeds = {check_module.perturb_seed(s, i, rep, p) for s in (1, 2) for i in (0, 1)
                 for rep in (0, 1, "probe") for p in ("args[0]", "args[1]")}
        self.assertEqual(len(seeds), 24)
        self.assertEqual(check_module.perturb_seed(1, 0, 0, "args[0]"),
                         check_module.perturb_seed(1, 0, 0, "args[0]"))
        self.assertLess(max(seeds), 2 ** 63)

    def test_copies_keep_lists_tuples_namedtuples_and_objects(self):
        import collections
        Pair = collections.namedtuple("Pair", "a b")
        obj = object()
        args = ([self.X, 1], (self.Y,), Pair(self.X, 2), obj)
        kwargs = {"w": self.Y, "n": 4}
        names = [p for p, _ in check_module.arg_paths(args, kwargs, FakeOps().is_tensor)]
        self.assertEqual(names, ["args[0][0]", "args[1][0]", "args[2][0]", "kwargs.w"])
        a, k = check_module.copy_args(args, kwargs, FakeOps().is_tensor, lambda p, t: p)
        self.assertEqual(a, [["args[0][0]", 1], ("args[1][0]",), Pair("args[2][0]", 2), obj])
        self.assertIsInstance(a[2], Pair)
        self.assertEqual(k, {"w": "kwargs.w", "n": 4})

    def test_a_whole_run_puts_every_output_in_one_blob_in_order(self):
        d = kjfake_module()
        try:
            cand, tpath = write_operator(
                d,
                "from kjfake import FT\n"
                "def op(x):\n    return FT([2 * v for v in x.values])\n",
                "from kjfake import FT\n"
                "def test_op():\n"
                "    a = op(FT([0.5, 1.25])).values[1]\n"
                "    return {'a': a, 'b': op(FT([3.5])).values}\n"
                "r = test_op()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["test", "time"], "require_torch": False,
                   "timing": {"warmup": 1, "reps": 3, "min_reps": 1,
                              "check": {"seed": SECRET, "tolerances": TOL}}}
            rec, data = run_module.run(req, (fake_torch(), None, FakeOps()))
        finally:
            forget_kjfake_module(d)
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertEqual(rec["outputs"]["data_bytes"], 16)  # the test's own: 2 Python floats
        # Then what each call gave in the test (its result and its tensor arguments after it).
        at = 16
        calls = rec["call_outputs"]
        self.assertEqual([c["entry"] for c in calls], ["op", "op"])
        for c, (x, got) in zip(calls, (([0.5, 1.25], [1.0, 2.5]), ([3.5], [7.0]))):
            self.assertEqual(c["outputs"]["offset"], at)
            at += c["outputs"]["data_bytes"]
            self.assertEqual(decode(c["outputs"], data), {"result": got, "args[0]": x})
        # Then the timed calls', site by site.
        sites = rec["timing"]["sites"]
        self.assertEqual([s["check"]["mode"] for s in sites], ["perturbed", "perturbed"])
        for s in sites:
            for rep in s["check"]["outputs"]:
                self.assertEqual(rep["offset"], at)  # in order, one after the other
                at += rep["data_bytes"]
                got = decode(rep, data)["result"]
                self.assertEqual(len(got), 2 if s["index"] == 0 else 1)
        self.assertEqual(at, len(data))
        payload = channel.channel_bytes(rec, data)
        self.assertEqual(json.loads(payload.partition(b"\n")[0])["data_bytes"], len(data))


class SampledCheckTest(unittest.TestCase):
    """Timed calls whose whole outputs do not fit the byte budgets keep a sample of each large
    tensor, at positions every process draws alike; the plan says which calls are whole."""

    N = 4096  # 16384 bytes a call, against budgets of a few calls' samples
    X = FT([0.5 + (i % 97) / 8.0 for i in range(N)])
    Y = FT([-0.25 + (i % 89) / 16.0 for i in range(N)])
    SAMPLE = 64  # the runner's SAMPLE_ELEMENTS and SAMPLE_MIN_ELEMENTS, scaled down
    SMALL = {"sample_elements": SAMPLE, "sample_min_elements": 4}

    def site(self, plan=None, op=add, reps=10, **check):
        t = timer(plan, reps=reps, **dict(self.SMALL, **check))
        t.measure("add", op, (self.X, self.Y), {}, lambda: None)
        return t

    def entries(self, t, site=0):
        return [{e["name"]: e for e in rep["entries"]} for rep in t.sites[site]["check"]["outputs"]]

    def test_a_site_with_a_large_output_keeps_bounded_bytes_and_every_repetition(self):
        t = self.site(max_bytes_per_site=16 << 10)
        site = t.sites[0]
        # 10 calls at 16384 bytes do not fit 16 KiB; 10 samples of 64 floats (2560 bytes) do,
        # and no call whole beside them: all sampled, none cut (min_reps is 2).
        self.assertEqual(len(site["samples_ms"]), 10)
        self.assertEqual((site["check"]["whole"], site["check"]["sample"]), (0, 64))
        self.assertEqual(len(t.check.blob), 10 * 64 * 4)
        for rep, e in enumerate(self.entries(t)):
            self.assertEqual(e["result"]["shape"], [self.N])  # the tensor's own shape
            self.assertEqual(e["result"]["nbytes"], 64 * 4)
            self.assertEqual(e["result"]["sampled"],
                             {"elements": 64,
                              "seed": check_module.sample_seed(SECRET, 0, rep, "result")})
        # The inputs are only read (new content, never written): not read back, not sampled.
        self.assertEqual(site["check"]["observed"], [])
        json.dumps(t.sites)

    def test_the_first_calls_are_whole_as_far_as_the_room_left_allows(self):
        budget = 2 * 16384 + 10 * 256  # two whole calls beside ten samples
        t = self.site(max_bytes_per_site=budget)
        self.assertEqual((t.sites[0]["check"]["whole"], t.sites[0]["check"]["sample"]), (2, 64))
        entries = self.entries(t)
        for e in entries[:2]:
            self.assertNotIn("sampled", e["result"])
            self.assertEqual(e["result"]["nbytes"], 16384)
        for e in entries[2:]:
            self.assertEqual(e["result"]["sampled"]["elements"], 64)
        self.assertEqual(len(t.check.blob), 2 * 16384 + 8 * 256)
        self.assertLessEqual(len(t.check.blob), budget)

    def test_the_process_budget_shrinks_later_sites_samples_and_then_their_repetitions(self):
        t = timer(reps=10, max_bytes=3000, **self.SMALL)
        for _ in range(4):
            t.measure("add", add, (self.X, self.Y), {}, lambda: None)
        got = [(len(s["samples_ms"]), s["check"]["whole"], s["check"]["sample"])
               for s in t.sites]
        # 10 x 256 bytes; 440 left: 8 floats (320); 120 left: the floor, 4 floats (16 bytes)
        # for 7 calls; 8 left: min_reps calls at the floor, the only bytes past the budget.
        self.assertEqual(got, [(10, 0, 64), (10, 0, 8), (7, 0, 4), (2, 0, 4)])
        self.assertEqual(len(t.check.blob), 2560 + 320 + 112 + 32)

    def test_samples_are_the_same_in_every_process_and_new_in_every_call(self):
        ref = self.site(max_bytes_per_site=16 << 10)
        plan = plan_of(ref)
        self.assertEqual((plan[0]["whole"], plan[0]["sample"]), (0, 64))
        # Another process with the same secret and plan: the same positions of the same
        # outputs, byte for byte, though its own budgets would keep everything whole.
        other = self.site(plan)
        self.assertEqual(other.sites[0]["check"]["outputs"], ref.sites[0]["check"]["outputs"])
        self.assertEqual(bytes(other.check.blob), bytes(ref.check.blob))
        seeds = {e["result"]["sampled"]["seed"] for e in self.entries(ref)}
        self.assertEqual(len(seeds), 10)
        # Another secret: other positions (and other inputs).
        stranger = self.site(plan, seed=99)
        self.assertNotEqual(self.entries(stranger)[0]["result"]["sampled"]["seed"],
                            self.entries(ref)[0]["result"]["sampled"]["seed"])
        self.assertNotEqual(bytes(stranger.check.blob), bytes(ref.check.blob))

    def test_the_plan_hands_the_split_on(self):
        ref = self.site(max_bytes_per_site=2 * 16384 + 10 * 256)
        cand = self.site(plan_of(ref))  # the default 16 MiB budget: it would keep all whole
        self.assertEqual(cand.sites[0]["check"]["whole"], 2)
        self.assertEqual([("sampled" in e["result"]) for e in self.entries(cand)],
                         [False, False] + [True] * 8)
        self.assertEqual(bytes(cand.check.blob), bytes(ref.check.blob))

    def test_a_call_planned_whole_that_does_not_fit_is_sampled(self):
        # The reference's outputs fit whole; a candidate returning 4000 floats does not:
        # its calls are sampled (the judge then finds a sample where the reference's output is
        # whole), and what it keeps stays within the budget.
        small = timer(reps=10, max_bytes_per_site=10000, **self.SMALL)
        short = FT(self.X.values[:100])
        small.measure("add", add, (short, short), {}, lambda: None)
        self.assertEqual(small.sites[0]["check"]["whole"], 10)

        def bigger(x, y):
            return FT(add(x, y).values * 40)

        cand = timer(plan_of(small), reps=10, max_bytes_per_site=10000, **self.SMALL)
        cand.measure("add", bigger, (short, short), {}, lambda: None)
        entries = self.entries(cand)
        self.assertTrue(all("sampled" in e["result"] for e in entries))
        self.assertEqual(entries[0]["result"]["shape"], [4000])
        self.assertLessEqual(len(cand.check.blob), 10000)

    def test_a_candidate_wrong_at_sampled_positions_is_caught_there(self):
        """Sampling is a probability: a difference at a few scattered elements is caught only by
        the calls whose sample holds one of them (the argument is in the runner, above
        FLOAT_DTYPES). What is certain, and tested here: the same positions in every process,
        so a wrong element that a call's sample holds shows in that call; and a wrong run of
        2n/k consecutive elements holds a whole stratum, so every sampled call shows it."""
        budget = 16 << 10
        ref = self.site(max_bytes_per_site=budget)
        plan = plan_of(ref)
        ops = FakeOps()
        # One element that call 3's sample holds.
        wrong = ops.sample_positions(self.N, 64,
                                     check_module.sample_seed(SECRET, 0, 3, "result"))[40]

        def off_at(positions):
            def op(x, y):
                out = add(x, y)
                for i in positions:
                    out.values[i] += 1.0
                return out
            return op

        one = self.site(plan, op=off_at([wrong]), max_bytes_per_site=budget)
        blob_r, blob_c = bytes(ref.check.blob), bytes(one.check.blob)
        for rep in range(10):
            want = decode(ref.sites[0]["check"]["outputs"][rep], blob_r)["result"]
            got = decode(one.sites[0]["check"]["outputs"][rep], blob_c)["result"]
            drawn = wrong in ops.sample_positions(
                self.N, 64, check_module.sample_seed(SECRET, 0, rep, "result"))
            self.assertEqual(got != want, drawn, rep)
            if rep == 3:
                self.assertTrue(drawn)
                self.assertEqual([abs(a - b) > 0.5 for a, b in zip(got, want)].count(True), 1)
        run = range(1000, 1000 + 2 * (self.N // 64 + 1))
        block = self.site(plan, op=off_at(run), max_bytes_per_site=budget)
        for rep in range(10):
            self.assertNotEqual(decode(block.sites[0]["check"]["outputs"][rep],
                                       bytes(block.check.blob))["result"],
                                decode(ref.sites[0]["check"]["outputs"][rep], blob_r)["result"])

    def test_positions_are_stratified_and_a_small_leaf_is_kept_whole(self):
        ops = FakeOps()
        pos = ops.sample_positions(1000, 10, 5)
        self.assertEqual([p // 100 for p in pos], list(range(10)))
        self.assertEqual(pos, ops.sample_positions(1000, 10, 5))
        self.assertNotEqual(pos, ops.sample_positions(1000, 10, 6))
        check = check_module.CallCheck(ops, {"seed": SECRET, "sample_elements": 4})
        plan = {"whole": 0, "sample": 4}
        kept = check.keep({"big": FT([1.0] * 10), "small": FT([2.0] * 4), "n": 3}, 0, 0, plan, 0)
        by = {e["name"]: e for e in kept["entries"]}
        self.assertEqual(by["big"]["sampled"]["elements"], 4)
        self.assertNotIn("sampled", by["small"])
        self.assertNotIn("sampled", by["n"])
        self.assertEqual(kept["data_bytes"], 16 + 16 + 8)

    def test_seeds_depend_on_the_secret_the_site_the_repetition_and_the_leaf(self):
        seeds = {check_module.sample_seed(s, i, rep, n) for s in (1, 2) for i in (0, 1)
                 for rep in (0, 1) for n in ("result", "args[0]")}
        self.assertEqual(len(seeds), 16)
        self.assertNotEqual(check_module.sample_seed(1, 0, 0, "args[0]"),
                            check_module.perturb_seed(1, 0, 0, "args[0]"))


if __name__ == "__main__":
    unittest.main()
