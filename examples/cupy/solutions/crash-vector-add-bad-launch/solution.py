import cupy as cp

_ADD = cp.RawKernel(r"""
extern "C" __global__ void add(const float* a, const float* b, float* c, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
""", "add")


def vector_add(a, b):
    c = cp.empty_like(a)
    # 2048 threads per block: more than any GPU allows, so the launch fails.
    _ADD((1,), (2048,), (a, b, c, cp.int64(a.size)))
    return c
