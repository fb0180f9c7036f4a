"""The timer's two ends of a call (timing.py): the stream's end from the events, and the tail
past it read on the host between waiting for the end event and waiting for the whole device.
A stand-in torch scripts what the device does: work left on another stream makes the device's
synchronize wait; a call that leaves work only to the host (Python objects to free, a slow
return) must not read as a tail. The end clock (libkjudge_end_clock.so, built by CMake; ctest
names it in KJUDGE_END_CLOCK) is driven through C stand-ins for the driver's functions."""

import ctypes
import os
import signal
import sys
import time
import types
import unittest

import helpers  # noqa: F401  (puts python/ on the path)

from kjudge_kernelbench import timing
from kjudge_kernelbench.timing import EndClock, Timer


class _Device:
    """What the device still has to do once the stream's end event passed (seconds)."""

    def __init__(self):
        self.pending = 0.0

    def synchronize(self, *a):
        time.sleep(self.pending)
        self.pending = 0.0


def _torch(device, on_wait=None):
    class Event:
        def __init__(self, enable_timing=False):
            self.t = None

        def record(self, stream=None):
            self.t = time.perf_counter()

        def elapsed_time(self, other):
            return (other.t - self.t) * 1000.0

        def synchronize(self):
            if on_wait is not None:
                on_wait()

    cuda = types.SimpleNamespace(Event=Event, synchronize=device.synchronize,
                                 get_device_properties=lambda d: None,
                                 current_device=lambda: 0)
    tensor = types.SimpleNamespace(zero_=lambda t: t)
    return types.SimpleNamespace(cuda=cuda, Tensor=tensor, empty=None, int32=None)


class TimerTail(unittest.TestCase):
    def setUp(self):
        self.device = _Device()
        self.timer = Timer(_torch(self.device), {})
        self.timer.flush = object()
        self.timer.persisting_l2 = lambda: None

    def test_work_left_on_another_stream_is_a_tail(self):
        def call():
            self.device.pending = 0.05  # 50 ms still running elsewhere at the stream's end
            return 1
        out, stream_ms, device_ms = self.timer.call(call, (), "s", 0, 0)
        self.assertEqual(out, 1)
        self.assertGreaterEqual(device_ms - stream_ms, 45.0)

    def test_work_left_to_the_host_is_no_tail(self):
        # The call's own host time is inside the stream's time (its end event is recorded when
        # it returns); after the end event nothing is pending, so the tail is an empty wait.
        def call():
            time.sleep(0.02)
            return [object() for _ in range(10000)]
        _, stream_ms, device_ms = self.timer.call(call, (), "s", 0, 0)
        self.assertGreaterEqual(stream_ms, 19.0)
        self.assertLess(device_ms - stream_ms, 5.0)


def _end_clock_library():
    """The built libkjudge_end_clock.so (ctest sets KJUDGE_END_CLOCK: CMakeLists.txt)."""
    path = os.environ.get("KJUDGE_END_CLOCK", "")
    return path if path and os.path.isfile(path) else None


class _Driver:
    """cuEventRecord, cuEventSynchronize and cuCtxSynchronize for the end clock: C functions
    (ctypes callbacks, or libc's raise as a wait that takes a signal) in place of libcuda's."""

    def __init__(self, device, wait=None):
        self.recorded = []
        record_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t)
        wait_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_size_t)
        sync_t = ctypes.CFUNCTYPE(ctypes.c_int)

        def record(event, stream):
            self.recorded.append((event, stream))
            return 0

        def sync():
            device.synchronize()
            return 0
        self.cuEventRecord = record_t(record)
        self.cuEventSynchronize = wait if wait is not None else wait_t(lambda e: 0)
        self.cuCtxSynchronize = sync_t(sync)


def _native_torch(device, streams):
    """A stand-in torch whose events have CUDA handles and whose current stream can change."""
    torch = _torch(device)

    class Event:
        count = 0

        def __init__(self, enable_timing=False):
            Event.count += 1
            self.cuda_event = 0x1000 + Event.count
            self.t = time.perf_counter()

        def record(self, stream=None):
            self.t = time.perf_counter()

        def elapsed_time(self, other):
            return 1.0

        def synchronize(self):
            pass

    torch.cuda.Event = Event
    torch.cuda.current_stream = lambda: streams[-1]
    return torch


@unittest.skipUnless(_end_clock_library(), "KJUDGE_END_CLOCK names no built libkjudge_end_clock.so")
class EndClockWindow(unittest.TestCase):
    def timer(self, device, driver, streams):
        clock = EndClock(_end_clock_library(), driver)
        timer = Timer(_native_torch(device, streams), {}, end_clock=clock)
        timer.flush = object()
        timer.persisting_l2 = lambda: None
        return timer

    def test_a_signal_handler_cannot_run_between_the_wait_and_the_clock(self):
        # The solution's handler sleeps while its side work finishes, then says nothing is left:
        # run between the end event's wait and the first clock, it would hide the tail. The wait
        # takes the signal (libc's raise): Python runs the handler no sooner than the end
        # clock's next callback, the device's synchronize, whose time is the tail's.
        device = _Device()

        def handler(signum, frame):
            time.sleep(0.06)
            device.pending = 0.0

        libc = ctypes.CDLL(None)
        driver = _Driver(device, wait=libc["raise"])
        old = signal.signal(signal.SIGUSR1, handler)
        try:
            timer = self.timer(device, driver, [types.SimpleNamespace(cuda_stream=7)])

            def call():
                device.pending = 0.05
                return 1
            # The event's handle is what the wait gets: here, the signal libc's raise takes.
            timer._events = (timer._event(), timer._event(), signal.SIGUSR1)
            _, stream_ms, device_ms = timer.call(call, (), "s", 0, 0)
        finally:
            signal.signal(signal.SIGUSR1, old)
        self.assertGreaterEqual(device_ms - stream_ms, 45.0)

    def test_the_end_event_goes_on_the_stream_the_call_started_on(self):
        device = _Device()
        driver = _Driver(device)
        streams = [types.SimpleNamespace(cuda_stream=7)]
        timer = self.timer(device, driver, streams)

        def call():
            streams.append(types.SimpleNamespace(cuda_stream=99))  # left switched
            device.pending = 0.03
            return 2
        out, stream_ms, device_ms = timer.call(call, (), "s", 0, 0)
        self.assertEqual(out, 2)
        end = timer._events[1].cuda_event
        self.assertEqual(timer._events[2], end)
        self.assertEqual(driver.recorded, [(end, 7)])
        self.assertGreaterEqual(device_ms - stream_ms, 25.0)
        self.assertIsNotNone(timer.end_clock)

    def test_the_drivers_functions_are_found_by_their_names_in_libcuda(self):
        # The toolkit's stub libcuda exports what the driver does and answers every call with
        # CUDA_ERROR_STUB_LIBRARY (34): the names resolve, and the failing step is named.
        stub = next((p for p in ("/usr/local/cuda/lib64/stubs/libcuda.so",
                                 "/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so")
                     if os.path.isfile(p)), None)
        if stub is None:
            self.skipTest("no CUDA toolkit stub libcuda.so here")
        clock = EndClock(_end_clock_library(), ctypes.CDLL(stub))
        with self.assertRaisesRegex(RuntimeError, "record the end event: CUDA error 34"):
            clock(0, 0)

    def test_a_stream_property_rebound_on_the_subclass_is_not_read(self):
        # torch.cuda.Stream is a Python subclass of torch._C._CudaStreamBase: the handle comes
        # from the base's own getter, whatever the solution rebinds on the subclass.
        class Base:
            cuda_stream = property(lambda s: 7)

        class Stream(Base):
            pass
        device = _Device()
        driver = _Driver(device)
        timer = self.timer(device, driver, [Stream()])
        Stream.cuda_stream = property(lambda s: 99)
        timer._stream_handle = timing._c_getter(types.SimpleNamespace(
            _C=types.SimpleNamespace(_CudaStreamBase=Base)), "_CudaStreamBase", "cuda_stream")
        timer.call(lambda: 1, (), "s", 0, 0)
        self.assertEqual(driver.recorded[0][1], 7)

    def test_a_failing_step_is_named_with_the_drivers_code(self):
        device = _Device()
        wait_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_size_t)
        driver = _Driver(device, wait=wait_t(lambda e: 700))  # CUDA_ERROR_ILLEGAL_ADDRESS
        timer = self.timer(device, driver, [types.SimpleNamespace(cuda_stream=0)])
        with self.assertRaisesRegex(RuntimeError, "wait for the end event: CUDA error 700"):
            timer.call(lambda: None, (), "s", 0, 0)


if __name__ == "__main__":
    sys.exit(unittest.main())
