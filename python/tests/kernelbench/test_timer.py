"""The timer's two ends of a call (timing.py): the stream's end from the events, and the tail
past it read on the host between waiting for the end event and waiting for the whole device.
A stand-in torch scripts what the device does: work left on another stream makes the device's
synchronize wait; a call that leaves work only to the host (Python objects to free, a slow
return) must not read as a tail."""

import os
import signal
import sys
import time
import types
import unittest

import helpers  # noqa: F401  (puts python/ on the path)

from kjudge_kernelbench.timing import Timer


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


class TimerWindow(unittest.TestCase):
    def test_a_signal_handler_cannot_run_between_the_wait_and_the_clock(self):
        # The solution's handler sleeps while its side work finishes, then says nothing is left:
        # run between the end event's wait and the first clock, it would hide the tail.
        device = _Device()

        def handler(signum, frame):
            time.sleep(0.06)
            device.pending = 0.0

        old = signal.signal(signal.SIGUSR1, handler)
        try:
            timer = Timer(_torch(device, lambda: os.kill(os.getpid(), signal.SIGUSR1)), {})
            timer.flush = object()
            timer.persisting_l2 = lambda: None

            def call():
                device.pending = 0.05
                return 1
            _, stream_ms, device_ms = timer.call(call, (), "s", 0, 0)
        finally:
            signal.signal(signal.SIGUSR1, old)
        self.assertGreaterEqual(device_ms - stream_ms, 45.0)


if __name__ == "__main__":
    sys.exit(unittest.main())
