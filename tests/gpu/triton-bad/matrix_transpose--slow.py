# A known-bad candidate for matrix_transpose (tests/gpu/run-triton-checks.sh bad): the
# reference's kernel launched 64 times per call, each launch writing the same transpose.
# Expected verdict "pass" (bit-identical output; the random input comes from the same seeded
# torch.randn as the reference's), speedup clearly below 1 with its interval excluding 1.
import torch
import triton
import triton.language as tl

REPEAT = 64


@triton.jit
def kernel(
    M,
    Out,
    matrix_stridex,
    matrix_stridey,
    out_stridex,
    out_stridey,
    SIZE_M: tl.constexpr,
    D_HEAD: tl.constexpr,
):
    size_m_arange = tl.arange(0, SIZE_M)
    d_head_arange = tl.arange(0, D_HEAD)
    matrix_ptr = M + d_head_arange[None, :] * matrix_stridey + size_m_arange[:, None] * matrix_stridex
    out_ptr = Out + d_head_arange[None, :] * out_stridex + size_m_arange[:, None] * out_stridey
    matrix = tl.load(matrix_ptr)
    tl.store(out_ptr, matrix)


def wrapper(size_m, d_head):
    matrix = torch.randn((size_m, d_head), dtype=torch.float16, device="cuda")
    out = torch.zeros((d_head, size_m), dtype=torch.float16, device="cuda")
    for _ in range(REPEAT):  # the deliberate waste: the same transpose, again and again
        kernel[(1,)](matrix, out, *matrix.stride(), *out.stride(), size_m, d_head)
    return out
