"""CUPTI marks: where each call of the operator code lies in time on the preloaded profiler's
clock (libkjudge_profiler.so, --cupti), so the judge can place every kernel the profiler saw
(src/triton/timing/cupti.cpp).
"""

import threading

from .errors import describe_short


class CallMarks:
    """Where each call of the operator code lies in time, for the judge's CUPTI profiler
    (libkjudge_profiler.so, preloaded by the judge with --cupti): the profiler records every
    kernel, copy and memset of the process with the time and thread that launched it, and the
    judge (src/triton/timing/cupti.cpp) places each by these windows. A timed call's window is
    [site, rep, start, end] with rep its index in the site's samples; every other call of the
    operator code (the test's own, the warm-ups, the probes, a repetition not counted) is
    [site, -1, start, end], and executing the operator code as a module (its own setup) is
    `import`. The clock is the profiler's own (kjudge_profiler_now_ns: CUPTI's,
    the records' clock), resolved here before any operator code runs; without it there is
    nothing to place and the report says why. finish() writes the profiler's record (the
    runner ends with os._exit, which skips the exit handler that would): 0 means something
    wrote it earlier, and the work after that is missing."""

    def __init__(self, hooks=None):
        self.calls = []
        self.imported = None  # [start, end] of executing the operator code as a module
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
        return int(self._now())

    def untimed(self, site, fn):
        """fn, its calls marked untimed calls of `site`."""
        marks = self

        def call(*args, **kwargs):
            t0 = marks.now()
            try:
                return fn(*args, **kwargs)
            finally:
                marks.calls.append([site, -1, t0, marks.now()])

        return call

    def report(self):
        out = {"clock": self.active, "tid": self.tid, "calls": self.calls}
        if self.imported is not None:
            out["import"] = self.imported
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
    """The preloaded profiler's clock and finish, looked up in the process's global scope (an
    LD_PRELOAD library's symbols are there). Raises when the library is not loaded."""
    import ctypes
    lib = ctypes.CDLL(None)
    now = lib.kjudge_profiler_now_ns
    now.restype, now.argtypes = ctypes.c_uint64, []
    finish = lib.kjudge_profiler_finish
    finish.restype, finish.argtypes = ctypes.c_int, []
    return now, finish
