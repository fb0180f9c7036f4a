# A known-bad candidate for rmsnorm_fused_llama (tests/gpu/run-triton-checks.sh bad): the mean
# of squares divides by N + 1 instead of N, a plausible off-by-one. The rows of 1, 64 and 128
# columns come out wrong by sqrt(2), 0.8 % and 0.4 % (beyond float16's 0.2 %); the row of 8192
# columns by 0.006 %, inside the tolerance. It runs without error; expected verdict "mismatch".
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_fwd_fused(
    X,  # pointer to the input
    Y,  # pointer to the output
    W,  # pointer to the weights
    stride,  # how much to increase the pointer when moving by 1 row
    N,  # number of columns in X
    eps,  # epsilon to avoid division by zero
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _var += x * x
    var = tl.sum(_var, axis=0) / (N + 1)  # the bug: should be / N
    rstd = 1 / tl.sqrt(var + eps)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = x * rstd
        y = x_hat * w
        tl.store(Y + cols, y.to(tl.float16), mask=mask)


def rmsnorm_forward(x, weight, eps):
    y = torch.empty_like(x)
    x_arg = x.view(-1, x.shape[-1])
    M, N = x_arg.shape
    BLOCK_SIZE = 128 * 2 * 2 * 2 * 2 * 2 * 2 * 2
    _rms_norm_fwd_fused[(M,)](x_arg, y, weight,
                              x_arg.stride(0), N, eps,
                              BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
    return y
