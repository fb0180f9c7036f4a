"""Results: flattening whatever the test returned into named leaves, and encoding the leaves
(the report's manifest entries and the little-endian data blob they point into). The judge reads
this format (src/triton/outputs/tensor_file.h); every other module that reports values goes through
encode_results.
"""

import struct
import sys

from .errors import TEXT_CAP


# dtype names the judge reads (src/triton/outputs/tolerance.h parse_dtype); anything else is
# reported as an entry of kind "other" and never passes a comparison.
SUPPORTED_DTYPES = {
    "float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
    "int8", "int16", "int32", "int64", "uint8", "bool",
}


# Results: flattening whatever the test returned into named leaves, and encoding the leaves.


def flatten(value, name="", out=None, depth=0):
    """[(name, leaf)] for a nest of dicts, lists and tuples. Names: dict keys joined by '.',
    sequence items as [i]; a bare leaf at the root is named 'result'."""
    if out is None:
        out = []
    if depth > 64:
        raise ValueError("results nested deeper than 64 levels at '%s'" % name)
    if isinstance(value, dict):
        for key, item in value.items():
            part = key if isinstance(key, str) else repr(key)
            flatten(item, part if not name else name + "." + part, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            flatten(item, "%s[%d]" % (name, i), out, depth + 1)
    else:
        out.append((name or "result", value))
    return out


def unique_names(pairs):
    """A name seen twice (a dict key 'a.b' beside a nested a -> b) gets '#2', '#3'."""
    seen = {}
    result = []
    for name, leaf in pairs:
        n = seen.get(name, 0) + 1
        seen[name] = n
        result.append((name if n == 1 else "%s#%d" % (name, n), leaf))
    return result


def torch_tensor_parts(torch, np):
    """A function: value -> None (not a tensor or array) or (dtype, shape, raw bytes, complex)."""

    def parts(v):
        if torch is not None and isinstance(v, torch.Tensor):
            t = v.detach()
            if t.is_sparse:
                t = t.to_dense()
            if t.is_quantized:
                t = t.dequantize()
            is_complex = t.is_complex()
            if is_complex:
                t = torch.view_as_real(t.resolve_conj())
            t = t.resolve_neg().contiguous().cpu()
            dtype = str(t.dtype).replace("torch.", "")
            shape = list(t.shape)
            if dtype not in SUPPORTED_DTYPES:
                return dtype, shape, None, is_complex
            flat = t.reshape(-1)
            if flat.numel() == 0:
                raw = b""
            elif np is not None:
                raw = flat.view(torch.uint8).numpy().tobytes()
            else:
                raw = bytes(flat.view(torch.uint8).tolist())
            return dtype, shape, raw, is_complex
        if np is not None and isinstance(v, (np.ndarray, np.generic)):
            a = np.asarray(v)
            is_complex = np.iscomplexobj(a)
            if is_complex:
                a = np.stack([a.real, a.imag], axis=-1)
            dtype = "bool" if a.dtype == np.bool_ else a.dtype.name
            shape = list(a.shape)
            if dtype not in SUPPORTED_DTYPES:
                return dtype, shape, None, is_complex
            raw = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
            return dtype, shape, raw, is_complex
        return None

    return parts


def encode_results(value, tensor_parts, sampled_parts=None):
    """(entries, data): the manifest entries and the concatenated little-endian data.

    With `sampled_parts` (the timed-call check's sampled repetitions, CallCheck.keep), each leaf
    goes through sampled_parts(name, leaf) instead, which returns what tensor_parts does plus a
    fifth item: None where the tensor is kept whole, else {"elements": k, "seed": s}, and then
    the raw data holds only those k elements (at positions drawn from s, sample_positions) while
    "shape" stays the tensor's own: the entry says so as "sampled"."""
    if sys.byteorder != "little":
        raise RuntimeError("the runner writes little-endian data and this machine is big-endian")
    entries = []
    data = bytearray()
    for name, leaf in unique_names(flatten(value)):
        entry = {"name": name}
        sample = None
        if sampled_parts is None:
            parts = tensor_parts(leaf)
        else:
            parts = sampled_parts(name, leaf)
            if parts is not None:
                parts, sample = parts[:4], parts[4]
        if parts is not None:
            dtype, shape, raw, is_complex = parts
            entry.update({"kind": "tensor", "dtype": dtype, "shape": shape})
            if is_complex:
                entry["complex"] = True  # stored as real, imaginary in a last axis of 2
            if raw is None:
                entry["kind"] = "other"
                entry["type"] = "tensor of dtype " + dtype
            else:
                if sample is not None:
                    entry["sampled"] = dict(sample)
                entry["offset"] = len(data)
                entry["nbytes"] = len(raw)
                data += raw
        elif leaf is None:
            entry["kind"] = "none"
        elif isinstance(leaf, bool):
            entry.update({"kind": "tensor", "dtype": "bool", "shape": [], "scalar": True,
                          "offset": len(data), "nbytes": 1})
            data += bytes([1 if leaf else 0])
        elif isinstance(leaf, int):
            if -(2 ** 63) <= leaf < 2 ** 63:
                raw = leaf.to_bytes(8, "little", signed=True)
                entry.update({"kind": "tensor", "dtype": "int64", "shape": [], "scalar": True,
                              "offset": len(data), "nbytes": 8})
                data += raw
            else:
                entry.update({"kind": "other", "type": "int", "repr": repr(leaf)[:200]})
        elif isinstance(leaf, float):
            entry.update({"kind": "tensor", "dtype": "float64", "shape": [], "scalar": True,
                          "offset": len(data), "nbytes": 8})
            data += struct.pack("<d", leaf)
        elif isinstance(leaf, str):
            entry.update({"kind": "text", "text": leaf[:TEXT_CAP], "chars": len(leaf)})
        else:
            entry.update({"kind": "other", "type": type(leaf).__name__,
                          "repr": repr(leaf)[:200]})
        entries.append(entry)
    return entries, bytes(data)
