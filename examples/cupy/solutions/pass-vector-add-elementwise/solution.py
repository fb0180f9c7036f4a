import cupy as cp

_ADD = cp.ElementwiseKernel("T a, T b", "T c", "c = a + b", "vector_add_elementwise")


def vector_add(a, b):
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError("a and b must be 1-D arrays of the same length")
    if a.dtype != b.dtype or a.dtype not in (cp.float32, cp.float64):
        raise ValueError("a and b must both be float32 or both float64")
    return _ADD(a, b)
