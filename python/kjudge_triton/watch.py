"""What the operator code left running beside its timed calls (threads, torch modes, trace and
profile hooks, the runner's own code rebound): reported per timing site, so the judge can flag
work done outside the events (runtime_hook).
"""

import sys
import threading

from .tamper import runner_changes, runner_snapshot


# Timing: CUDA events around each call the test makes, L2 flushed before each repetition.


class RuntimeWatch:
    """What the operator code left running in this process while its calls were timed: Python
    threads it started that are still alive, a torch function or dispatch mode it pushed, a trace
    or profile hook it set. Each can do an operator's work outside the events (a thread that
    launches the kernels after the call returned and after the device-wide synchronize, so no
    event sees them; a mode that defers the work a call asks for). The timer cannot stop them in
    one process, so it reports them per site (`watch`) and the judge flags the candidate
    (`runtime_hook`). The baseline is taken before any operator code runs, torch and triton
    already imported, so what they start themselves is not counted; the functions are held
    here, so code that patches them later does not hide from this check."""

    def __init__(self, torch):
        self._enumerate = threading.enumerate
        self._dummy = getattr(threading, "_DummyThread", ())
        self._gettrace = sys.gettrace
        self._getprofile = sys.getprofile
        # The Thread objects, not their idents: an ident is reused once its thread has ended, so a
        # new thread could pass for one of the baseline's.
        self._threads = set(self._enumerate())
        self._trace = self._gettrace()
        self._profile = self._getprofile()
        c = getattr(torch, "_C", None)
        self._modes = [(what, getattr(c, name, None)) for what, name in (
            ("torch function mode", "_len_torch_function_stack"),
            ("torch dispatch mode", "_len_torch_dispatch_stack"))]
        # The runner's own code: this module's names and its classes' attributes, each object as
        # it is now. Operator code can reach the runner (`import __main__`, sys.modules) and
        # rebind its timer, its check or its report; that shows here as an object replaced.
        self._runner = runner_snapshot()

    def seen(self):
        """What is running now that was not at the baseline, one short phrase each."""
        found = []
        for t in self._enumerate():
            # A dummy is a thread Python did not start that ran Python code: torch's autograd
            # engine runs a custom Function's backward on a device thread of its own, whoever's
            # operator it is. What Python code starts is a Thread proper.
            if t not in self._threads and not isinstance(t, self._dummy):
                found.append("thread %r" % t.name)
        for what, depth in self._modes:
            try:
                n = int(depth()) if depth is not None else 0
            except Exception:  # noqa: BLE001 - a torch without it: nothing to see
                n = 0
            if n > 0:
                found.append(what)
        if self._gettrace() is not self._trace:
            found.append("sys.settrace hook")
        if self._getprofile() is not self._profile:
            found.append("sys.setprofile hook")
        found.extend("runner's %s replaced" % name for name in runner_changes(self._runner))
        return found
