"""CUPTI marks: where each call of a model lies in time on the preloaded profiler's clock
(libkjudge_profiler.so), so the judge can tell which kernels each call ran
(src/kernelbench/judge/cupti.cpp). A call is [side, phase, index, start, end]: side 0 the
solution, 1 the reference, 2 the compiled reference; phase 0 a correctness trial, 1 a warm-up,
2 a timed pair. The clock and the record's finish are looked up before any solution code runs;
without the profiler there is nothing to mark and the report says why.
"""

import threading

from .errors import describe_short


class CallMarks:
    def __init__(self, hooks=None):
        self.calls = []
        self.why = ""
        self._now = self._finish = None
        try:
            self._now, self._finish = hooks if hooks is not None else profiler_hooks()
        except Exception as e:  # noqa: BLE001 - no profiler: the report says so
            self.why = "the profiler's clock was not found: %s" % describe_short(e)
        self.tid = threading.get_native_id()

    @property
    def active(self):
        return self._now is not None

    def now(self):
        return int(self._now()) if self._now is not None else 0

    def add(self, side, phase, index, start, end):
        if self._now is not None and len(self.calls) < 400000:
            self.calls.append([side, phase, index, start, end])

    def report(self):
        out = {"clock": self.active, "tid": self.tid, "calls": self.calls}
        if not self.active:
            out["why"] = self.why or "the profiler's clock was not found"
            return out
        try:
            out["finished"] = int(self._finish()) == 1
        except Exception as e:  # noqa: BLE001
            out["finished"] = False
            out["why"] = "the profiler's finish failed: %s" % describe_short(e)
        return out


def profiler_hooks():
    """The preloaded profiler's clock and finish, from the process's global scope."""
    import ctypes
    lib = ctypes.CDLL(None)
    now = lib.kjudge_profiler_now_ns
    now.restype, now.argtypes = ctypes.c_uint64, []
    finish = lib.kjudge_profiler_finish
    finish.restype, finish.argtypes = ctypes.c_int, []
    return now, finish
