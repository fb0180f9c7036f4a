#!/usr/bin/env python3
"""Tests of the entry-call recorder (kjudge_triton/recorder.py): entry_args and samples. Standard
library only. Run: /usr/bin/python3 python/tests/test_recorder.py; all of them:
python/README.md.
"""

import sys
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    FT, kjfake_module, write_operator, forget_kjfake_module, FakeOps, fake_torch, decode,
    FakeJudge)
from kjudge_triton import check, recorder, run, stream  # noqa: E402


class EntryArgsTest(unittest.TestCase):
    """The judge's entry_args (an operator whose output is an argument of calls too large to
    record whole): only the named arguments of the named entry's calls are kept, after the
    call, under a cap of their own; other entries' calls are kept whole as before."""

    KEEP = {"entry": "op", "args": [1], "max_bytes": 1 << 20}

    def test_the_recorder_keeps_only_the_named_arguments(self):
        rec = recorder.CallRecorder(FakeOps(), keep=dict(self.KEEP, args=[1, 3, 7]))
        x, out = FT([1.0, 2.0]), FT([3.0, 4.0])
        rec.record("op", None, (x, out, 5, [FT([6.0]), FT([7.0])]), {"y": FT([8.0])})
        rec.record("other", FT([9.0]), (FT([1.5]),), {})  # another entry: kept whole
        self.assertEqual([c["entry"] for c in rec.calls], ["op", "other"])
        blob = bytes(rec.blob)
        first = rec.calls[0]["outputs"]
        # args[1] after the call, args[3] a list of tensors, args[7] not passed: left out; the
        # result, args[0] and the keyword argument are not kept.
        self.assertEqual([e["name"] for e in first["entries"]],
                         ["args[1]", "args[3][0]", "args[3][1]"])
        self.assertEqual(decode(first, blob),
                         {"args[1]": [3.0, 4.0], "args[3][0]": [6.0], "args[3][1]": [7.0]})
        self.assertEqual(decode(rec.calls[1]["outputs"], blob),
                         {"result": [9.0], "args[0]": [1.5]})
        self.assertEqual(rec.kept, {"entry": "op", "args": [1, 3, 7], "calls": 1,
                                    "recorded": 1, "bytes": 16})

    def test_calls_are_kept_whole_within_the_cap_of_their_own(self):
        big = FT([0.0] * 8)  # 32 bytes
        rec = recorder.CallRecorder(FakeOps(), max_bytes=8, keep=dict(self.KEEP, max_bytes=80))
        for _ in range(3):
            rec.record("op", None, (FT([1.0] * 1000), big), {})  # the input is not kept
        # 32 bytes a call under the entry's own cap of 80 (not the whole calls' 8): the third
        # call would pass it, and is not recorded at all.
        self.assertEqual([c["outputs"] is None for c in rec.calls], [False, False, True])
        self.assertEqual(rec.kept["calls"], 3)
        self.assertEqual(rec.kept["recorded"], 2)
        self.assertEqual(rec.kept["bytes"], 64)
        # Without keep, the same call is recorded whole, or sampled within the samples' own
        # budget: with none, not at all.
        whole = recorder.CallRecorder(FakeOps(), max_bytes=80, sample_bytes=0)
        whole.record("op", None, (FT([1.0] * 1000), big), {})
        self.assertIsNone(whole.calls[0]["outputs"])
        self.assertIsNone(whole.kept)

    def test_a_call_too_large_to_keep_whole_keeps_samples_at_the_judges_positions(self):
        # Issue 31: destindex_copy_kv's one call holds 150 MB and its test returns only
        # torch.allclose(src, dest). The call's tensors are sampled, at positions drawn from the
        # key the judge sends once the call has returned.
        judge = FakeJudge()
        try:
            rec = recorder.CallRecorder(FakeOps(), max_bytes=64, stream=stream.CallStream(judge.fd),
                                 sample_elements=4)
            out = FT([float(i) for i in range(100)])
            rec.record("op", None, (FT([7.0] * 3), out), {})
            time.sleep(0.05)
        finally:
            judge.close()
        self.assertEqual([m[:2] for m in judge.messages], [["call", "0"], ["rec", "0"]])
        key = int(FakeJudge.key(0, 0, "s"), 16)
        # FakeJudge answers "call" as it answers "done": with its sample key for (site, rep).
        entries = {e["name"]: e for e in rec.calls[0]["outputs"]["entries"]}
        self.assertEqual(entries["args[1]"]["sampled"],
                         {"elements": 4, "seed": check.sample_seed(key, 0, 0, "args[1]")})
        self.assertEqual(entries["args[1]"]["shape"], [100])
        self.assertNotIn("sampled", entries["args[0]"])  # small enough: whole
        positions = FakeOps().sample_positions(100, 4, check.sample_seed(key, 0, 0, "args[1]"))
        self.assertEqual(decode(rec.calls[0]["outputs"], bytes(rec.blob))["args[1]"],
                         [float(p) for p in positions])

    def test_the_request_is_checked(self):
        self.assertIsNone(recorder.entry_args_request(None))
        self.assertEqual(recorder.entry_args_request({"entry": "f", "args": [0]})["max_bytes"],
                         recorder.ENTRY_ARGS_BYTES)
        for bad in ({"entry": "f", "args": []}, {"entry": "f", "args": [-1]},
                    {"entry": "f", "args": [True]}, {"entry": 3, "args": [0]},
                    {"entry": "f", "args": [0], "max_bytes": 0}, [0], "f"):
            with self.assertRaises(ValueError, msg=repr(bad)):
                recorder.entry_args_request(bad)

    def run_inplace(self, entry_args, torch=True):
        """A run whose operator writes its output into its second argument and returns None,
        as context_attn_bloom's and matmul_kernel's do."""
        d = kjfake_module()
        try:
            cand, tpath = write_operator(
                d,
                "def op(x, out):\n"
                "    out.values[:] = [2 * v for v in x.values]\n",
                "from kjfake import FT\n"
                "def test_op():\n"
                "    out = FT([0.0, 0.0])\n"
                "    return {'test_case_%d' % i: op(FT([i, 0.5]), out) for i in range(3)}\n"
                "result_gold = test_op()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["test"], "require_torch": torch,
                   "entry_args": entry_args}
            return run.run(req, (fake_torch(), None, FakeOps()) if torch else (None, None))
        finally:
            forget_kjfake_module(d)

    def test_a_run_keeps_the_output_argument_after_each_call_and_says_so(self):
        rec, data = self.run_inplace(dict(self.KEEP, max_bytes=16))
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertEqual([e["kind"] for e in rec["outputs"]["entries"]], ["none"] * 3)
        calls = rec["call_outputs"]
        self.assertEqual([c["entry"] for c in calls], ["op"] * 3)
        # One 8-byte tensor per call: two fit in 16 bytes, the third is not recorded.
        self.assertEqual(decode(calls[0]["outputs"], data), {"args[1]": [0.0, 1.0]})
        self.assertEqual(decode(calls[1]["outputs"], data), {"args[1]": [2.0, 1.0]})
        self.assertIsNone(calls[2]["outputs"])
        self.assertEqual(rec["entry_args"], {"entry": "op", "args": [1], "calls": 3,
                                             "recorded": 2, "bytes": 16})
        self.assertEqual(len(data), rec["outputs"]["data_bytes"] + 16)
        # Without the request: the whole call (result and both arguments), no report.
        rec, data = self.run_inplace(None)
        self.assertEqual(decode(rec["call_outputs"][2]["outputs"], data),
                         {"result": "none", "args[0]": [2.0, 0.5], "args[1]": [4.0, 1.0]})
        self.assertNotIn("entry_args", rec)

    def test_a_malformed_request_or_no_torch_is_a_setup_error(self):
        rec, data = self.run_inplace({"entry": "op", "args": "1"})
        self.assertEqual(rec["error"]["stage"], "setup")
        self.assertEqual(data, b"")
        rec, _ = self.run_inplace(self.KEEP, torch=False)
        self.assertEqual(rec["error"]["stage"], "setup")
        self.assertIn("needs torch", rec["error"]["message"])


if __name__ == "__main__":
    unittest.main()
