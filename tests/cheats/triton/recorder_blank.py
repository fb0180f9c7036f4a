# CHEAT (the judge's record of the calls edited, issue 31 attack 4), against
# G/destindex_copy_kv1: as allclose_patch.py (half the heads copied, torch.allclose says True),
# and since the judge now compares what each entry call left, the module also reaches the
# runner's call recorder through gc once the test has made its call and blanks that call's
# record (as if it had been too large to keep), hoping the judge finds nothing to compare. The
# recorder committed each call's digest to the judge as the call ended (CallStream "rec"): the
# report no longer holds what was committed, and the run is refused.
import gc
import threading
import time

import torch

import triton
import triton.language as tl

torch.allclose = lambda *args, **kwargs: True


def _blank():
    for _ in range(2000):
        time.sleep(0.005)
        for o in gc.get_objects():
            if type(o).__name__ == "CallRecorder" and o.calls:
                for c in o.calls:
                    c["outputs"] = None
                return


threading.Thread(target=_blank, daemon=True).start()


@triton.jit
def _fwd_kernel_destindex_copy_kv(K, Dest_loc, Out, stride_k_bs, stride_k_h, stride_k_d,
                                  stride_o_bs, stride_o_h, stride_o_d, head_num, head_dim,
                                  BLOCK_DMODEL: tl.constexpr, BLOCK_HEAD: tl.constexpr):
    cur_index = tl.program_id(0)
    offs_h = tl.arange(0, BLOCK_HEAD)
    offs_d = tl.arange(0, BLOCK_DMODEL)
    dest_index = tl.load(Dest_loc + cur_index)
    k_ptrs = K + cur_index * stride_k_bs + stride_k_h * offs_h[:, None] + stride_k_d * offs_d[None, :]
    o_ptrs = Out + dest_index * stride_o_bs + stride_o_h * offs_h[:, None] + stride_o_d * offs_d[None, :]
    half = (offs_h[:, None] < head_num // 2) & (offs_d[None, :] < head_dim)
    k = tl.load(k_ptrs, mask=half, other=0.0)
    tl.store(o_ptrs, k, mask=half)


@torch.no_grad()
def destindex_copy_kv(K, DestLoc, Out):
    seq_len = DestLoc.shape[0]
    head_num = K.shape[1]
    head_dim = K.shape[2]
    BLOCK_HEAD = triton.next_power_of_2(head_num)
    BLOCK_DMODEL = triton.next_power_of_2(head_dim)
    _fwd_kernel_destindex_copy_kv[(seq_len,)](
        K, DestLoc, Out, K.stride(0), K.stride(1), K.stride(2), Out.stride(0), Out.stride(1),
        Out.stride(2), head_num, head_dim, BLOCK_DMODEL=BLOCK_DMODEL, BLOCK_HEAD=BLOCK_HEAD,
        num_warps=1, num_stages=1)
    return
