# CHEAT (persisting L2), against G/add_example: before each call, add_wrapper sets aside the
# device's persisting L2 (the context's limit) and puts an access-policy window over its first
# input on the current stream, through the CUDA driver (ctypes), so that the input would stay in
# L2 through the timer's flush, whose writes are of normal priority. The runner now takes
# persisting L2 back before every timed repetition (limit 0, every persisting line normal), as
# the task harness does: the input is evicted like any other line, and the cheat gains nothing.
import ctypes

import torch
import triton
import triton.language as tl

_cuda = ctypes.CDLL("libcuda.so.1")


class _Window(ctypes.Structure):  # CUaccessPolicyWindow
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t),
                ("hitRatio", ctypes.c_float), ("hitProp", ctypes.c_int),
                ("missProp", ctypes.c_int)]


class _Value(ctypes.Union):  # CUlaunchAttributeValue (CUstreamAttrValue), 64 bytes
    _fields_ = [("accessPolicyWindow", _Window), ("pad", ctypes.c_char * 64)]


def _attribute(number):
    device, value = ctypes.c_int(0), ctypes.c_int(0)
    _cuda.cuCtxGetDevice(ctypes.byref(device))
    _cuda.cuDeviceGetAttribute(ctypes.byref(value), number, device.value)
    return value.value


def _persist(t):
    most = _attribute(108)     # CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE
    window = _attribute(109)   # CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE
    if most <= 0 or window <= 0:
        return
    _cuda.cuCtxSetLimit(ctypes.c_int(0x06), ctypes.c_size_t(most))  # PERSISTING_L2_CACHE_SIZE
    v = _Value()
    v.accessPolicyWindow = _Window(t.data_ptr(), min(t.numel() * t.element_size(), window),
                                   1.0, 2, 1)  # hits persisting, misses streaming
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    _cuda.cuStreamSetAttribute(stream, ctypes.c_int(1), ctypes.byref(v))  # ACCESS_POLICY_WINDOW


@triton.jit
def add_kernel(
    in_ptr0,
    in_ptr1,
    out_ptr,
    n_elements,
    BLOCK_SIZE: "tl.constexpr",
):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(in_ptr0 + offsets, mask=mask)
    y = tl.load(in_ptr1 + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)


def add_wrapper(x, y):
    _persist(x)
    out = torch.zeros_like(x)
    BLOCK_SIZE = 4
    n_elements = x.numel()
    num_blocks = (n_elements + BLOCK_SIZE - 1) // BLOCK_SIZE
    add_kernel[(num_blocks,)](x, y, out, n_elements, BLOCK_SIZE)
    return out
