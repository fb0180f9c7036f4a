#!/usr/bin/env python3
"""Peaks of the GPU the judge runs on, measured rather than taken from a data sheet: device
memory bandwidth from a large device-to-device copy, and dense matmul FLOP/s in float16,
bfloat16, float32 (TF32 off, so float32 is float32), tfloat32 (float32 inputs, TF32 on) and
int8 (torch._int_mm, where available). The achieved numbers of
`kjudge triton eval --peaks FILE` are divided by these (docs/triton.md, "GPU efficiency").

    python3 kjudge_gpu_peaks.py --out FILE [--cache-dir DIR] [--force] [--device N]

With --cache-dir, a result for the same GPU name (and torch version) is read from
DIR/<gpu-name>.json instead of measured again; --force measures anyway. Each number is the best
of several timed repetitions (CUDA events, after warm-up): a peak is what the GPU can do, so the
fastest repetition is the estimate, not the median."""

import argparse
import json
import os
import re
import sys
import time


# 2: the tfloat32 and int8 matmul peaks. A cached file of an older version is measured again.
SCHEMA_VERSION = 2


def best_ms(torch, fn, reps, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end))
    return best


def measure(torch, reps):
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    # 1 GiB each way (or a quarter of the memory on a small GPU): far beyond any L2, so the copy
    # runs at DRAM speed. A copy reads and writes every byte: 2 x size moved.
    size = min(1 << 30, props.total_memory // 8)
    src = torch.empty(size, dtype=torch.uint8, device="cuda")
    src.fill_(1)
    dst = torch.empty_like(src)
    copy_ms = best_ms(torch, lambda: dst.copy_(src), reps)
    bandwidth = 2 * size / (copy_ms / 1000)
    del src, dst
    torch.cuda.empty_cache()

    torch.backends.cuda.matmul.allow_tf32 = False
    flops = {}
    n = 8192
    for name in ("float16", "bfloat16", "float32"):
        dtype = getattr(torch, name)
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, n, device="cuda", dtype=dtype)
        c = torch.empty(n, n, device="cuda", dtype=dtype)
        ms = best_ms(torch, lambda: torch.matmul(a, b, out=c), max(3, reps // 2))
        flops[name] = 2 * n ** 3 / (ms / 1000)
        if name == "float32":
            # float32 inputs on the tensor cores: what Triton's tl.dot does with float32 by
            # default (input_precision "tf32"), so a float32 GEMM is read against this peak.
            torch.backends.cuda.matmul.allow_tf32 = True
            ms = best_ms(torch, lambda: torch.matmul(a, b, out=c), max(3, reps // 2))
            flops["tfloat32"] = 2 * n ** 3 / (ms / 1000)
            torch.backends.cuda.matmul.allow_tf32 = False
        del a, b, c
    # int8 x int8 -> int32 (operations per second, not floating-point), where torch has it.
    try:
        a = torch.randint(-8, 8, (n, n), device="cuda", dtype=torch.int8)
        b = torch.randint(-8, 8, (n, n), device="cuda", dtype=torch.int8)
        ms = best_ms(torch, lambda: torch._int_mm(a, b), max(3, reps // 2))
        flops["int8"] = 2 * n ** 3 / (ms / 1000)
        del a, b
    except Exception:  # noqa: BLE001 - no _int_mm on this torch or GPU: no int8 peak
        pass
    torch.cuda.empty_cache()
    return {
        "kind": "kjudge-gpu-peaks",
        "schema_version": SCHEMA_VERSION,
        "gpu": props.name,
        "torch": torch.__version__,
        "cuda": getattr(torch.version, "cuda", None) or "",
        "memory_bandwidth_bytes_per_s": bandwidth,
        "copy_bytes": size,
        "matmul_flops_per_s": flops,
        "matmul_n": n,
        "reps": reps,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def slug(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "gpu"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--cache-dir")
    p.add_argument("--force", action="store_true")
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--reps", type=int, default=20)
    args = p.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("kjudge_gpu_peaks: no CUDA device", file=sys.stderr)
        return 3
    torch.cuda.set_device(args.device)
    name = torch.cuda.get_device_properties(args.device).name
    cached = os.path.join(args.cache_dir, slug(name) + ".json") if args.cache_dir else None
    result = None
    if cached and not args.force and os.path.exists(cached):
        with open(cached) as f:
            old = json.load(f)
        # Another torch may reach other peaks (its matmul kernels): measure again then.
        if (old.get("gpu") == name and old.get("torch") == torch.__version__
                and old.get("schema_version", 1) >= SCHEMA_VERSION):
            result = old
            result["cached"] = cached
    if result is None:
        result = measure(torch, args.reps)
        if cached:
            os.makedirs(args.cache_dir, exist_ok=True)
            with open(cached, "w") as f:
                json.dump(result, f, indent=2)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
