"""Persisting L2 taken back before every timed repetition, through the CUDA driver, as the task
harness does: an operator cannot keep its inputs cached through the L2 flush.
"""

from .errors import describe_short


class PersistingL2:
    """Takes persisting L2 back before every timed repetition, as the task harness does
    (harness/kjudge_harness.cu, L2Flusher): an operator that set aside persisting L2 for its
    inputs (a persisting-L2 limit and an access-policy window on its stream, through ctypes)
    would keep them cached through the flush, whose writes are of normal priority. Through the
    CUDA driver, on the context torch made current: the limit goes back to 0 and every
    persisting line to normal. The functions are looked up when the timer is made, before any
    operator code runs. Where they cannot be had or fail (no driver, a GPU without persisting
    L2), `why` says so and nothing is tried again; the run goes on, and reports it."""

    LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06           # CUlimit
    ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108    # CUdevice_attribute

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

    def describe(self):
        if self.why is None:
            return "reset before every timed repetition"
        return "not reset: " + self.why
