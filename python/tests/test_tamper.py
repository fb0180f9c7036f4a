#!/usr/bin/env python3
"""Tests of the tamper check (kjudge_triton/tamper.py). Standard library only. Run:
/usr/bin/python3 python/tests/test_tamper.py; all of them: python/README.md.
"""

import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    write_operator, FakeOps, fake_torch, timer)
from kjudge_triton import channel, errors, held, run, tamper, timing  # noqa: E402


class TamperTest(unittest.TestCase):
    """Issue 31: operator code that rebinds the runner's own code (its module's names, its
    classes' methods, the functions its live objects hold) is reported, and the judge refuses
    the run."""

    def test_a_rebound_module_name_is_named(self):
        t = tamper.Tamper()
        real = channel.channel_bytes
        try:
            channel.channel_bytes = lambda record, data: b""
            self.assertIn("runner's channel_bytes replaced", t.changes())
        finally:
            channel.channel_bytes = real
        self.assertEqual(t.changes_now(), [])  # what is there now; changes() keeps the past

    def test_every_module_of_the_package_is_the_runners_code(self):
        # The runner was one module (__main__); its code is now the package's modules, and a
        # name rebound in any of them is named as before, once however many modules hold it.
        import kjudge_triton
        for name in kjudge_triton.MODULES:
            __import__("kjudge_triton." + name)
        self.assertEqual([m.__name__ for m in tamper.runner_modules()],
                         ["kjudge_triton"] + ["kjudge_triton." + m for m in kjudge_triton.MODULES])
        t = tamper.Tamper()
        real = timing._clock
        try:
            held._clock = timing._clock = lambda: 0.0
            self.assertEqual(t.changes_now(), ["runner's _clock replaced"])
        finally:
            held._clock = timing._clock = real
        self.assertEqual(t.changes_now(), [])

    def test_a_rebound_class_method_is_named(self):
        t = tamper.Tamper()
        real = timing.CudaTimer.measure
        try:
            timing.CudaTimer.measure = lambda self, *a: None
            self.assertIn("runner's CudaTimer.measure replaced", t.changes())
        finally:
            timing.CudaTimer.measure = real

    def test_code_replaced_in_place_is_named(self):
        # The function objects stay; what they run does not (held-out variants: a method's
        # __code__, torch's Event.elapsed_time's __code__ the timer holds, a closure's cell).
        t = tamper.Tamper()
        real = timing.CudaTimer._cycles.__code__
        try:
            timing.CudaTimer._cycles.__code__ = (lambda self, ms: 1).__code__
            self.assertIn("runner's CudaTimer._cycles replaced", t.changes())
        finally:
            timing.CudaTimer._cycles.__code__ = real
        self.assertEqual(t.changes_now(), [])
        cell = held._dumps.__closure__[0]
        was = cell.cell_contents
        try:
            cell.cell_contents = lambda value, level: ["{}"]
            self.assertIn("runner's _dumps replaced", t.changes_now())
        finally:
            cell.cell_contents = was
        fake = fake_torch()

        def elapsed(self_, end):
            return end.t - self_.t

        fake.cuda.Event.elapsed_time = elapsed
        tm = timing.CudaTimer(fake, {"check": {"seed": 1}}, ops=FakeOps())
        w = tamper.Tamper()
        w.watch("timer", tm)
        elapsed.__code__ = (lambda self_, end: 0.1).__code__
        self.assertIn("the runner's timer._elapsed replaced", w.changes())

    def test_an_objects_functions_replaced_added_or_its_class_swapped_are_named(self):
        tm = timer()
        t = tamper.Tamper()
        t.watch("timer", tm)
        real = tm._elapsed
        tm._elapsed = lambda a, b: 0.5 * real(a, b)  # the 10.49x cheat, through gc
        tm.extra = lambda: None
        self.assertEqual(t.changes(), ["the runner's timer._elapsed replaced",
                                       "the runner's timer.extra added"])
        tm._elapsed = real
        del tm.extra
        tm.__class__ = type("Evil", (timing.CudaTimer,), {})
        self.assertEqual(t.changes_now(), ["the runner's timer changed its class"])

    def test_a_change_undone_before_the_end_is_still_reported(self):
        t = tamper.Tamper()
        real = errors.describe_short
        try:
            errors.describe_short = lambda e: ""
            t.note()  # the timer looks after every timed call
        finally:
            errors.describe_short = real
        self.assertEqual(t.changes(), ["runner's describe_short replaced"])

    def test_a_whole_run_reports_what_its_operator_code_rebound(self):
        d = tempfile.mkdtemp()
        cand, test = write_operator(
            d, "import sys\nR = sys.modules['kjudge_triton.errors']\n"
               "R.describe_short = lambda e: 'nothing'\ndef f(x):\n    return x + 1\n",
            "def test_f():\n    return {'a': f(1)}\nresult_gold = test_f()\n")
        real = errors.describe_short
        try:
            record, _ = run.run({"nonce": "n", "candidate_path": cand, "test_path": test,
                               "seed": 1, "modes": ["test"], "require_torch": False})
        finally:
            errors.describe_short = real
        self.assertEqual(record["status"], "ok")
        self.assertEqual(record["tampered"], ["runner's describe_short replaced"])

    def test_an_honest_run_reports_nothing(self):
        d = tempfile.mkdtemp()
        cand, test = write_operator(d, "def f(x):\n    return x + 1\n",
                                    "def test_f():\n    return {'a': f(1)}\n"
                                    "result_gold = test_f()\n")
        record, _ = run.run({"nonce": "n", "candidate_path": cand, "test_path": test, "seed": 1,
                           "modes": ["test"], "require_torch": False})
        self.assertNotIn("tampered", record)


if __name__ == "__main__":
    unittest.main()
