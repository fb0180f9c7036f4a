"""Tensors as the runner handles them, with torch's functions taken before any solution code
runs (Tensors): inputs moved to the GPU, outputs compared with KernelBench's tolerance (shapes
and dtypes must match, NaN and Inf never pass), and the memory an output shares with an input, an
earlier output or the reference's.
"""

def leaves(obj, path="out"):
    """(path, value) of every leaf of a nested tuple, list or dict (sorted keys)."""
    if isinstance(obj, (tuple, list)):
        out = []
        for i, v in enumerate(obj):
            out.extend(leaves(v, "%s[%d]" % (path, i)))
        return out
    if isinstance(obj, dict):
        out = []
        for k in sorted(obj, key=repr):
            out.extend(leaves(obj[k], "%s[%r]" % (path, k)))
        return out
    return [(path, obj)]


class Tensors:
    def __init__(self, torch):
        self.torch = torch
        self._is_tensor = torch.is_tensor
        self._isfinite = torch.isfinite
        self._isclose = torch.isclose
        self._float_types = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

    def is_tensor(self, x):
        return self._is_tensor(x)

    def map(self, obj, fn):
        """obj with every tensor leaf replaced by fn(tensor)."""
        if self._is_tensor(obj):
            return fn(obj)
        if isinstance(obj, tuple):
            return tuple(self.map(v, fn) for v in obj)
        if isinstance(obj, list):
            return [self.map(v, fn) for v in obj]
        if isinstance(obj, dict):
            return {k: self.map(v, fn) for k, v in obj.items()}
        return obj

    def to_device(self, obj, device):
        return self.map(obj, lambda t: t.to(device))

    def clone(self, obj):
        return self.map(obj, lambda t: t.clone())

    def nbytes(self, obj):
        return sum(t.numel() * t.element_size() for _, t in leaves(obj) if self._is_tensor(t))

    # -- memory shared --

    def spans(self, obj):
        """[start, end) of the storage of every CUDA or CPU tensor leaf that has any."""
        out = []
        for _, t in leaves(obj):
            if not self._is_tensor(t):
                continue
            try:
                s = t.untyped_storage()
                n = s.nbytes()
                if n > 0:
                    out.append((t.device.type, s.data_ptr(), s.data_ptr() + n))
            except Exception:  # noqa: BLE001 - a tensor without storage (a subclass, meta)
                continue
        return out

    @staticmethod
    def overlaps(a, b):
        return any(da == db and sa < eb and sb < ea for da, sa, ea in a for db, sb, eb in b)

    # -- comparison --

    def describe(self, t):
        if self._is_tensor(t):
            return "[%s]" % ", ".join(str(int(d)) for d in t.shape), str(t.dtype).replace("torch.", "")
        return type(t).__name__, ""

    def nonfinite(self, obj):
        n = 0
        for _, t in leaves(obj):
            if self._is_tensor(t) and t.dtype in self._float_types and t.numel() > 0:
                n += int((~self._isfinite(t)).sum().item())
        return n

    def compare(self, out, ref, atol, rtol):
        """The solution's output against the reference's: {ok, why, max_abs, mean_abs,
        mismatched, elements, nonfinite, shape, dtype, expected_shape, expected_dtype}."""
        got, want = leaves(out), leaves(ref)
        r = {"ok": False, "why": "", "max_abs": 0.0, "mean_abs": 0.0, "mismatched": 0,
             "elements": 0, "nonfinite": 0}
        first_got = got[0][1] if got else None
        first_want = want[0][1] if want else None
        r["shape"], r["dtype"] = self.describe(first_got)
        r["expected_shape"], r["expected_dtype"] = self.describe(first_want)
        if len(got) != len(want):
            r["why"] = "returned %d values where the reference returns %d" % (len(got), len(want))
            return r
        total_abs, total_n = 0.0, 0
        for (path, g), (_, w) in zip(got, want):
            if self._is_tensor(w) != self._is_tensor(g):
                r["why"] = "%s is a %s where the reference's is a %s" % (
                    path, type(g).__name__, type(w).__name__)
                return r
            if not self._is_tensor(w):
                if isinstance(w, (int, float)) and isinstance(g, (int, float)) and \
                        not isinstance(w, bool):
                    if abs(float(g) - float(w)) > atol + rtol * abs(float(w)):
                        r["why"] = "%s is %r where the reference's is %r" % (path, g, w)
                        return r
                elif g != w:
                    r["why"] = "%s is %r where the reference's is %r" % (path, g, w)
                    return r
                continue
            gs, gd = self.describe(g)
            ws, wd = self.describe(w)
            if gs != ws:
                r["why"] = "%s has shape %s where the reference's has %s" % (path, gs, ws)
                return r
            if gd != wd:
                r["why"] = "%s is %s where the reference's is %s" % (path, gd, wd)
                return r
            if g.device != w.device:
                g = g.to(w.device)
            n = w.numel()
            r["elements"] += n
            if n == 0:
                continue
            if w.dtype in self._float_types:
                bad = int((~self._isfinite(g)).sum().item())
                if bad:
                    r["nonfinite"] += bad
                    r["why"] = "%s holds %d NaN or Inf values (they never pass)" % (path, bad)
                    return r
                diff = (g.float() - w.float()).abs()
                # Finite in the report whatever the values (an overflowing difference is huge,
                # and JSON has no Infinity).
                r["max_abs"] = max(r["max_abs"], min(float(diff.max().item()), 1e300))
                total_abs = min(total_abs + float(diff.sum().item()), 1e300)
                total_n += n
                close = self._isclose(g, w, rtol=rtol, atol=atol)
                r["mismatched"] += int((~close).sum().item())
            else:
                r["mismatched"] += int((g != w).sum().item())
        r["mean_abs"] = total_abs / total_n if total_n else 0.0
        if r["mismatched"]:
            r["why"] = ("%d of %d values differ beyond atol=%g, rtol=%g (max |diff| %.3g)"
                        % (r["mismatched"], r["elements"], atol, rtol, r["max_abs"]))
            return r
        r["ok"] = True
        return r
