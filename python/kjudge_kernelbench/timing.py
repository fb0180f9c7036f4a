"""The timer (Timer): one call timed as kjudge times (KernelBench's cuda_event method, made
stricter): every stream of the device synchronized, persisting L2 taken back, a buffer larger
than L2 written, then CUDA events around the call on the current stream: the time to the
stream's end. The tail past it is what the whole device still had to do once the stream's end
event had passed, read on the host: the clock after waiting for that event, and again after
torch.cuda.synchronize (which waits for every stream). Both waits wake the host alike, so an
honest call's tail is the cost of one empty synchronize, however much the call left to the
host (an event recorded after the synchronize would count the host's wake-up and whatever the
call left to Python). A call that leaves work running on another stream has a long tail, and the
judge then times every side to the device's end (src/kernelbench/judge/grade.cpp).

The end of the call (the end event's record and wait, both clocks, the device's synchronize)
is one foreign call of libkjudge_end_clock.so (EndClock): no code of the solution can run between
those steps. Held signals and a paused collector were not enough: Python runs a handler in the
main thread whichever thread took the signal, and torch's own threads take them.
"""

import gc
import signal
import time

from .errors import describe_short

RESOLUTION_MS = 0.0005


class PersistingL2:
    """Persisting L2 taken back before every timed call through the CUDA driver (as the task
    harness and the Triton runner do): a solution that set aside persisting L2 for its inputs
    would keep them cached through the flush. `why` says why it cannot be done here."""

    LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
    ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108

    def __init__(self, lib=None):
        self.why = None
        self.resets = 0
        try:
            import ctypes
            if lib is None:
                lib = ctypes.CDLL("libcuda.so.1")
            self._set_limit = lib.cuCtxSetLimit
            self._set_limit.restype = ctypes.c_int
            self._set_limit.argtypes = [ctypes.c_int, ctypes.c_size_t]
            self._reset = lib.cuCtxResetPersistingL2Cache
            self._reset.restype = ctypes.c_int
            self._reset.argtypes = []
            device, most = ctypes.c_int(0), ctypes.c_int(0)
            rc = lib.cuCtxGetDevice(ctypes.byref(device))
            if rc == 0:
                rc = lib.cuDeviceGetAttribute(ctypes.byref(most),
                                              self.ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE,
                                              device.value)
            if rc != 0:
                self.why = "the driver answered %d asking for the device's persisting L2" % rc
            elif most.value <= 0:
                self.why = "this GPU has no persisting L2"
        except (OSError, AttributeError, TypeError, ValueError) as e:
            self.why = "the CUDA driver's functions are not reachable: %s" % describe_short(e)

    def __call__(self):
        if self.why is not None:
            return
        a = int(self._set_limit(self.LIMIT_PERSISTING_L2_CACHE_SIZE, 0))
        b = int(self._reset()) if a == 0 else 0
        if a != 0 or b != 0:
            self.why = "cuCtxSetLimit returned %d, cuCtxResetPersistingL2Cache %d" % (a, b)
            return
        self.resets += 1


def _c_getter(torch, base, name):
    """The getter of `name` on torch._C's `base` type (whose attributes no Python code can
    rebind); plain attribute access where there is none (the CPU tests' stand-ins)."""
    descriptor = getattr(getattr(torch, "_C", None), base, type).__dict__.get(name)
    if descriptor is not None and hasattr(descriptor, "__get__"):
        return lambda obj: descriptor.__get__(obj, type(obj))
    return lambda obj: getattr(obj, name)


class EndClock:
    """One call's end in one foreign call of libkjudge_end_clock.so
    (src/kernelbench/end_clock/end_clock.cpp): the end event recorded on the call's stream, its
    wait, the host clock, the whole device's wait, the clock again. ctypes releases the GIL for
    it and Python runs no handler until it returns. `driver` holds cuEventRecord,
    cuEventSynchronize and cuCtxSynchronize: libcuda's, or the CPU tests' stand-ins."""

    STEPS = ("record the end event", "wait for the end event", "synchronize the device")

    def __init__(self, library, driver=None):
        import ctypes
        if driver is None:
            driver = ctypes.CDLL("libcuda.so.1")
        self._lib = ctypes.CDLL(library)
        fn = self._lib.kj_end_clock
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_size_t, ctypes.c_size_t,
                                               ctypes.POINTER(ctypes.c_double)]
        self._fn = fn
        self._steps = tuple(ctypes.cast(getattr(driver, name), ctypes.c_void_p)
                            for name in ("cuEventRecord", "cuEventSynchronize",
                                         "cuCtxSynchronize"))
        self._driver = driver
        self._host = (ctypes.c_double * 2)()

    def __call__(self, event, stream):
        """(host clock once the end event passed, once the device is idle), in seconds."""
        host = self._host
        rc = self._fn(self._steps[0], self._steps[1], self._steps[2], event, stream, host)
        if rc != 0:
            raise RuntimeError("the end clock could not %s: CUDA error %d"
                               % (self.STEPS[min(rc // 1000, 3) - 1], rc % 1000))
        return host[0], host[1]


class Timer:
    def __init__(self, torch, params, marks=None, end_clock=None):
        # Taken before the solution runs: patching torch.cuda.Event or synchronize later does not
        # reach these.
        self._event = torch.cuda.Event
        self._record = torch.cuda.Event.record
        self._elapsed = torch.cuda.Event.elapsed_time
        self._sync = torch.cuda.synchronize
        self._wait = torch.cuda.Event.synchronize
        self._clock = time.perf_counter
        self._current_stream = getattr(torch.cuda, "current_stream", None)  # stand-ins lack it
        # Handles through the C types' own getters: torch.cuda.Stream and Event are Python
        # subclasses whose properties a solution could rebind to hand the end clock another
        # stream or event.
        self._stream_handle = _c_getter(torch, "_CudaStreamBase", "cuda_stream")
        self._event_handle = _c_getter(torch, "_CudaEventBase", "cuda_event")
        # The request names the library (the judge always does: eval_stream.cpp); without one,
        # the CPU tests' stand-in torch ends calls in Python, signals held back and the
        # collector paused, which a handler run for another thread's signal gets past.
        if end_clock is None and params.get("end_clock"):
            end_clock = EndClock(params["end_clock"])
        self.end_clock = end_clock
        self._events = None
        self._sigmask = signal.pthread_sigmask
        self._signals = signal.valid_signals()
        self._gc_enabled = gc.isenabled
        self._gc_disable = gc.disable
        self._gc_enable = gc.enable
        self._zero = torch.Tensor.zero_
        self._empty = torch.empty
        self._int32 = torch.int32
        self._props = torch.cuda.get_device_properties
        self._current = torch.cuda.current_device
        self.flush_bytes = int(params.get("flush_bytes", 0) or 0)
        self.flush = None
        self.l2_bytes = 0
        self.persisting_l2 = None
        self.marks = marks

    def prepare(self):
        """The flush buffer and the driver's functions, inside a GPU phase (before the solution
        runs: its import and init are the first GPU phase after the reference's)."""
        if self.flush is not None:
            return
        props = self._props(self._current())
        self.l2_bytes = int(getattr(props, "L2_cache_size", 0) or 0)
        size = self.flush_bytes or max(2 * self.l2_bytes, 256 << 20)
        self.flush_bytes = size
        self.flush = self._empty(size // 4, dtype=self._int32, device="cuda")
        self.persisting_l2 = PersistingL2()
        if self.end_clock is not None:
            self._make_events()

    def _make_events(self):
        # torch makes an event's CUDA handle at its first record: both are recorded once, before
        # the solution runs, and the end event's handle is taken then.
        start, end = self._event(enable_timing=True), self._event(enable_timing=True)
        for e in (start, end):
            self._record(e)
        self._sync()
        self._events = (start, end, int(self._event_handle(end)))

    def call(self, fn, args, side, phase, index):
        """(output, ms to the stream's end, ms to the device's end) of fn(*args)."""
        if self.end_clock is not None:
            return self._call_native(fn, args, side, phase, index)
        start = self._event(enable_timing=True)
        end = self._event(enable_timing=True)
        self._sync()
        self.persisting_l2()
        self._zero(self.flush)
        marks = self.marks
        t0 = marks.now() if marks is not None else 0
        self._record(start)
        out = fn(*args)
        self._record(end)
        t1 = marks.now() if marks is not None else 0
        collecting = self._gc_enabled()
        self._gc_disable()
        held = self._sigmask(signal.SIG_BLOCK, self._signals)
        try:
            self._wait(end)
            h1 = self._clock()
            self._sync()
            h2 = self._clock()
        finally:
            self._sigmask(signal.SIG_SETMASK, held)
            if collecting:
                self._gc_enable()
        if marks is not None:
            marks.add(side, phase, index, t0, t1)
        # A call that queued no GPU work reads 0: the events' resolution (0.5 us) is its floor,
        # so every time is positive, as the protocol and the log ratios need.
        ms = max(float(self._elapsed(start, end)), RESOLUTION_MS)
        return (out, ms, ms + max(h2 - h1, 0.0) * 1000.0)

    def _call_native(self, fn, args, side, phase, index):
        if self._events is None:
            self._make_events()
        start, end, end_handle = self._events
        stream = self._current_stream()
        handle = int(self._stream_handle(stream))
        self._sync()
        self.persisting_l2()
        self._zero(self.flush)
        marks = self.marks
        t0 = marks.now() if marks is not None else 0
        self._record(start, stream)
        out = fn(*args)
        # The end event goes on the stream the call started on: a solution that switched the
        # current stream and left it switched does not move the end to its own stream.
        h1, h2 = self.end_clock(end_handle, handle)
        t1 = marks.now() if marks is not None else 0
        if marks is not None:
            marks.add(side, phase, index, t0, t1)
        ms = max(float(self._elapsed(start, end)), RESOLUTION_MS)
        return (out, ms, ms + max(h2 - h1, 0.0) * 1000.0)

    def describe(self):
        return {"flush_bytes": self.flush_bytes, "l2_bytes": self.l2_bytes,
                "end_clock": "native" if self.end_clock is not None else "python",
                "persisting_l2": "reset before every timed call" if self.persisting_l2 is not None
                and self.persisting_l2.why is None else
                "not reset: %s" % (self.persisting_l2.why if self.persisting_l2 else "no timer")}
