import cupy as cp

_THREADS = 256
_ROW_SUM = cp.RawKernel(r"""
extern "C" __global__ void row_sum(const float* x, float* out, int cols) {
    __shared__ double part[256];
    const float* row = x + (long long)blockIdx.x * cols;
    double acc = 0.0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += row[c];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) part[threadIdx.x] += part[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = (float)part[0];
}
""", "row_sum")


def row_sum(x):
    if x.ndim != 2 or x.dtype != cp.float32:
        raise ValueError("x must be a 2-D float32 array")
    x = cp.ascontiguousarray(x)
    rows, cols = x.shape
    out = cp.empty(rows, dtype=cp.float32)
    if rows:
        _ROW_SUM((rows,), (_THREADS,), (x, out, cp.int32(cols)))
    return out
