#!/usr/bin/env python3
"""Tests of the watch on what the operator leaves running (kjudge_triton/watch.py). Standard
library only. Run: /usr/bin/python3 python/tests/test_watch.py; all of them: python/README.md.
"""

import sys
import threading
import types
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import (  # noqa: E402 - first: puts python/ on sys.path
    FT, FakeOps, fake_torch, SECRET, TOL, add)
from kjudge_triton import (  # noqa: E402
    errors, marks as marks_module, timing, watch as watch_module, zerofill)


class RuntimeWatchTest(unittest.TestCase):
    """What the operator code leaves running beside its timed calls (a thread, a torch mode, a
    trace hook) is reported per site; what ran before the baseline is not."""

    def site(self, fake=None, watch=None, before=None):
        fake = fake or fake_torch()
        p = {"warmup": 1, "reps": 3, "min_reps": 2, "max_ms_per_site": 60000,
             "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        t = timing.CudaTimer(fake, p, ops=FakeOps(), watch=watch or watch_module.RuntimeWatch(fake))
        if before:
            before()
        t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        return t.sites[0]

    def test_nothing_left_running_reports_nothing(self):
        self.assertNotIn("watch", self.site())

    def test_a_thread_the_operator_started_is_reported_by_name(self):
        stop = threading.Event()
        worker = threading.Thread(target=stop.wait, name="late-launcher", daemon=True)
        try:
            s = self.site(before=worker.start)
        finally:
            stop.set()
            worker.join()
        self.assertEqual(s["watch"], ["thread 'late-launcher'"])

    def test_a_thread_alive_before_the_baseline_is_not(self):
        stop = threading.Event()
        worker = threading.Thread(target=stop.wait, name="torch-own", daemon=True)
        worker.start()
        try:
            s = self.site()
        finally:
            stop.set()
            worker.join()
        self.assertNotIn("watch", s)

    def test_a_thread_python_did_not_start_is_not(self):
        # As torch's autograd engine runs a backward written in Python on a thread of its own.
        import _thread
        ready, stop = _thread.allocate_lock(), _thread.allocate_lock()
        ready.acquire()
        stop.acquire()

        def foreign():
            threading.current_thread()  # registers a dummy, as any Python code there would
            ready.release()
            stop.acquire()

        def start():
            _thread.start_new_thread(foreign, ())
            ready.acquire()
        try:
            s = self.site(before=start)
        finally:
            stop.release()
        self.assertNotIn("watch", s)

    def test_a_pushed_torch_mode_and_a_trace_hook_are_reported(self):
        fake = fake_torch()
        depth = {"function": 0, "dispatch": 0}
        fake._C = types.SimpleNamespace(_len_torch_function_stack=lambda: depth["function"],
                                        _len_torch_dispatch_stack=lambda: depth["dispatch"])
        watch = watch_module.RuntimeWatch(fake)
        old = sys.gettrace()

        def hook(frame, event, arg):
            return None

        def push():
            depth["dispatch"] = 1
            sys.settrace(hook)
        try:
            s = self.site(fake, watch, before=push)
        finally:
            sys.settrace(old)
        self.assertEqual(s["watch"], ["sys.settrace hook", "torch dispatch mode"])

    def test_operator_code_that_rebinds_the_runners_own_code_is_reported(self):
        # Operator code reaches the runner through sys.modules (it runs as __main__) and
        # replaces a function of its check and a method of a class; names it adds are not the
        # runner's and are not listed.
        runner = sys.modules[errors.__name__]
        real_check, real_seen = runner.describe_short, watch_module.RuntimeWatch.seen

        def patch():
            runner.describe_short = lambda e: ""
            zerofill.ZeroFill.forged = True
            runner.added_by_the_operator = 1
        try:
            s = self.site(before=patch)
        finally:
            runner.describe_short = real_check
            del zerofill.ZeroFill.forged
            del runner.added_by_the_operator
        self.assertEqual(s["watch"], ["runner's describe_short replaced"])
        self.assertIs(watch_module.RuntimeWatch.seen, real_seen)
        self.assertNotIn("watch", self.site())
        watch = watch_module.RuntimeWatch(fake_torch())
        real_report = marks_module.CallMarks.report
        marks_module.CallMarks.report = lambda marks: {}
        try:
            self.assertEqual(watch.seen(), ["runner's CallMarks.report replaced"])
        finally:
            marks_module.CallMarks.report = real_report
        self.assertEqual(watch.seen(), [])

    def test_patching_threading_later_does_not_hide_a_thread(self):
        stop = threading.Event()
        worker = threading.Thread(target=stop.wait, name="hidden", daemon=True)
        real = threading.enumerate

        def start_and_hide():
            worker.start()
            threading.enumerate = lambda: [threading.main_thread()]
        try:
            s = self.site(before=start_and_hide)
        finally:
            threading.enumerate = real
            stop.set()
            worker.join()
        self.assertEqual(s["watch"], ["thread 'hidden'"])


if __name__ == "__main__":
    unittest.main()
