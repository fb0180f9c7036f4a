"""Describing a call: the bytes it moves and the values it was given, for the judge's work
counts (src/triton/timing/work_table.cpp) and its GPU efficiency figures.
"""

import inspect


# Describing a call: the bytes it moves and the values it was given (the judge's work counts).


def tensor_bytes(values, tensor_type, depth=0):
    """A lower bound on the bytes one operator call moves through device memory: every distinct
    CUDA tensor among `values` (arguments, keyword arguments and the result; inside lists,
    tuples and dict values too) read or written once. Distinct by (data_ptr, nbytes), so an
    in-place operator that returns its input, or a tensor passed twice, counts once. Scratch
    buffers, re-reads, and tensors reached through objects are not counted: the real traffic is
    at least this, never less (docs/triton.md, "GPU efficiency")."""
    seen = {}

    def visit(v, d):
        if d > 8:
            return
        if isinstance(v, tensor_type):
            if getattr(v, "is_cuda", False):
                n = int(v.numel()) * int(v.element_size())
                seen[(int(v.data_ptr()), n)] = n
        elif isinstance(v, (list, tuple)):
            for x in v:
                visit(x, d + 1)
        elif isinstance(v, dict):
            for x in v.values():
                visit(x, d + 1)

    for v in values:
        visit(v, depth)
    return sum(seen.values())


VALUES_CAP = 64      # values described per call at most
VALUE_TEXT_CAP = 64  # characters of a string argument kept


def call_values(fn, args, kwargs, result, tensor_type):
    """What one operator call was given and returned, for the judge's per-operator work counts
    (src/triton/timing/work_table.cpp): [{"name", "kind", ...}], where name is the parameter's
    name when the call binds to fn's signature ("a", "q"; "args[2]" for *args, the key for
    **kwargs; "args[i]" and the keyword's name when it does not bind), "result", "result[1]" or
    "result.key" for what it returned, and "NAME[i]" for a list or tuple's items. A tensor is
    {"kind": "tensor", "dtype", "shape", "cuda"}; a bool, int or float {"kind": "scalar",
    "value"}; a string {"kind": "text", "value"} (cut to 64 characters); None {"kind": "none"}.
    Anything else is left out. At most 64 values: the counts need shapes, not contents."""
    out = []

    def visit(name, v, depth):
        if len(out) >= VALUES_CAP:
            return
        if isinstance(v, tensor_type):
            dtype = str(getattr(v, "dtype", "?")).replace("torch.", "")
            out.append({"name": name, "kind": "tensor", "dtype": dtype,
                        "shape": [int(x) for x in v.shape],
                        "cuda": bool(getattr(v, "is_cuda", False))})
        elif isinstance(v, (bool, int, float)):
            # JSON has no NaN or infinity, and the judge reads integers as 64-bit.
            if isinstance(v, float) and v - v != 0:
                out.append({"name": name, "kind": "scalar", "value": None})
            elif isinstance(v, float) or -(2 ** 63) <= v < 2 ** 63:
                out.append({"name": name, "kind": "scalar", "value": v})
        elif isinstance(v, str):
            out.append({"name": name, "kind": "text", "value": v[:VALUE_TEXT_CAP]})
        elif v is None:
            out.append({"name": name, "kind": "none"})
        elif isinstance(v, (list, tuple)) and depth < 3:
            for i, x in enumerate(v):
                if len(out) >= VALUES_CAP:  # a long list of sizes need not be walked to its end
                    break
                visit("%s[%d]" % (name, i), x, depth + 1)
        elif isinstance(v, dict) and depth < 3:
            for key, x in v.items():
                if len(out) >= VALUES_CAP:
                    break
                visit("%s.%s" % (name, key), x, depth + 1)

    named = None
    try:
        sig = inspect.signature(fn)
        bound = sig.bind(*args, **kwargs)
        named = []
        for pname, value in bound.arguments.items():
            kind = sig.parameters[pname].kind
            if kind == inspect.Parameter.VAR_POSITIONAL:
                named += [("args[%d]" % i, x) for i, x in enumerate(value)]
            elif kind == inspect.Parameter.VAR_KEYWORD:
                named += list(value.items())
            else:
                named.append((pname, value))
    except Exception:  # noqa: BLE001 - no signature, or the call does not bind to it
        named = [("args[%d]" % i, x) for i, x in enumerate(args)] + list(kwargs.items())
    for pname, value in named:
        visit(pname, value, 0)
    visit("result", result, 0)
    return out
