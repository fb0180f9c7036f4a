import cupy as cp

_HISTOGRAM = cp.RawKernel(r"""
extern "C" __global__ void histogram256(const unsigned char* data, long long n, int* out) {
    __shared__ int local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[data[i]], 1);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        if (local[i]) atomicAdd(&out[i], local[i]);
}
""", "histogram256")


def histogram256(data):
    if data.ndim != 1 or data.dtype != cp.uint8:
        raise ValueError("data must be a 1-D uint8 array")
    data = cp.ascontiguousarray(data)
    out = cp.zeros(256, dtype=cp.int32)
    n = data.size
    if n:
        blocks = min(1024, (n + 255) // 256)
        _HISTOGRAM((blocks,), (256,), (data, cp.int64(n), out))
    return out
