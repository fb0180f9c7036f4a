# A known-bad candidate for add_example (tests/gpu/run-triton-checks.sh bad): the reference's
# kernel, exactly, launched 64 times per call. Every launch writes the same sums, so the output
# is bit-identical (expected verdict "pass"), but each call pays 64 launches: the speedup must
# come out clearly below 1, its interval excluding 1.
import torch
import triton
import triton.language as tl

REPEAT = 64


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
    out = torch.zeros_like(x)
    BLOCK_SIZE = 4
    n_elements = x.numel()
    num_blocks = (n_elements + BLOCK_SIZE - 1) // BLOCK_SIZE
    if num_blocks == 0:
        return out
    for _ in range(REPEAT):  # the deliberate waste: the same work, again and again
        add_kernel[(num_blocks,)](x, y, out, n_elements, BLOCK_SIZE)
    return out
