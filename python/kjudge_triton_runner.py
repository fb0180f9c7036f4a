#!/usr/bin/env python3
"""kjudge's TritonBench runner: runs one operator's test code against one piece of operator code
(a candidate's, or the reference's) and reports to the judge. Standard library + torch (+ the
triton the code imports) only. The judge (src/eval/triton_run.cpp) starts it in the sandbox, one
process per run; the protocol is documented in docs/triton.md ("The runner protocol").

    python3 -I kjudge_triton_runner.py --request-fd R --result-fd W     (as the judge starts it)
    python3 -I kjudge_triton_runner.py --request FILE --output-dir DIR  (by hand, for debugging)

Order of work (each step's failure is reported with its stage):
  setup     read the request, import torch, seed            (a failure here is the judge's)
  syntax    compile the operator code                        (SyntaxError: the candidate's)
  import    execute the operator code as module __main__
  test_syntax  compile the test code                         (the dataset's)
  call      execute the test code: it calls the operator
  result    find and encode what the test returned
  time      time the operator calls, keeping every timed call's output for the judge to
            check: whole, or a sample of each large tensor where the whole would not fit the
            byte budgets (mode "time" only)

With "zero_fill": true in the request, torch.empty, empty_like, empty_strided and
Tensor.new_empty(_strided) return zero-filled tensors from before the operator code runs until
the test's results (or its timed calls) are in hand: the judge asks for it for operators whose
own test reads memory it never set (src/eval/triton_defect_table.cpp), for reference and
candidate alike, in test and timed runs (in timed runs the fill is part of both sides' time).
With "entry_args": {"entry": NAME, "args": [i, ...], "max_bytes": N} (test mode only), the calls
of that entry record only those arguments, after each call, up to N bytes in all, instead of the
whole call up to 16 MiB (CallRecorder): an operator whose output is an argument of calls too
large to record whole; the report says how many calls were kept ("entry_args").

Honest limit: the operator code runs in this very process. Nothing here can stop code that is
determined to reach the runner's objects (gc, sys.modules, /proc/self/fd). What the judge relies
on instead (issue 31, docs/notes-i31-triton.md): the keys of each timed call's inputs and
sample come from the judge in its turn (CallStream), what each call measured and returned is
committed to the judge as it ends, the runner reports its own code rebound (Tamper), and with
the CUPTI profiler the judge holds the timing to what the GPU did, on its own clock.
"""

import argparse
import ast
import builtins
import hashlib
import hmac
import inspect
import json
import os
import random
import struct
import sys
import threading
import time
import traceback
import types

# The host clock, taken as this module loads, before any operator code runs: code that
# replaces time.perf_counter (tests/cheats/triton/patched_timer.py) changes what it calls, not
# what the runner's budgets, host times and stage times read.
_clock = time.perf_counter
# Likewise what the runner reports and hashes with, and how it leaves (issue 31: a candidate that
# replaced json.dumps halved every sample the report carried). Rebinding these names later is
# seen by the tamper check (Tamper), and what the report says of the timed calls was already
# committed to the judge call by call (CallStream), so a report rewritten at the end is refused.
_sha256 = hashlib.sha256
_hmac_new = hmac.new
_os_read, _os_write, _os_exit, _os_close = os.read, os.write, os._exit, os.close


def _compact_json_dumps():
    """json.dumps(value, separators=(",", ":")) made of the C encoder as it is now: json's module
    functions and JSONEncoder's methods are looked up at each call, so operator code could
    replace them; this encoder object is built once, here."""
    from json import encoder as je
    make = getattr(je, "c_make_encoder", None)
    ascii_ = getattr(je, "c_encode_basestring_ascii", None)
    if make is None or ascii_ is None:  # a Python without the C speedups
        enc = json.JSONEncoder(separators=(",", ":"))
        iterencode = enc.iterencode
        return lambda value: "".join(iterencode(value))

    def default(o):
        raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)

    encode = make(None, default, ascii_, None, ":", ",", False, False, True)
    join = "".join
    return lambda value: join(encode(value, 0))


_dumps = _compact_json_dumps()

PROTOCOL = 1
TRACEBACK_CAP = 8000
TEXT_CAP = 4096

# dtype names the judge reads (src/eval/tolerance.h parse_dtype); anything else is reported as
# an entry of kind "other" and never passes a comparison.
SUPPORTED_DTYPES = {
    "float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
    "int8", "int16", "int32", "int64", "uint8", "bool",
}


class StageError(Exception):
    """An exception raised by user code, tagged with the stage it happened in."""

    def __init__(self, stage, exc):
        super().__init__(stage)
        self.stage = stage
        self.exc = exc


def describe_exception(stage, exc):
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    if len(tb) > TRACEBACK_CAP:  # keep the end: the frame that raised is there
        tb = "[... cut ...]\n" + tb[-TRACEBACK_CAP:]
    message = str(exc)
    if isinstance(exc, SyntaxError):
        message = "%s (%s, line %s)" % (exc.msg, os.path.basename(exc.filename or "?"), exc.lineno)
    return {
        "stage": stage,
        "exception_type": type(exc).__name__,
        "message": message[:TEXT_CAP],
        "traceback": tb,
    }


# ---------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------
# Reading the test code: which variable holds the results, and which names it calls.


def _top_level(body):
    """Top-level statements, looking inside `if __name__ == "__main__":` blocks too."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _top_level(node.body)


def find_result_source(test_tree):
    """How to get the test's results: ('variable', NAME, 'NAME = test_x()') for the last
    top-level assignment from a call to a test function; else ('call', FUNC, 'test_x()') for the
    last test function the code defines but never calls (context_attn_bloom.py); else None."""
    defined = [n.name for n in test_tree.body if isinstance(n, ast.FunctionDef)]
    found = None
    called = set()
    for node in _top_level(test_tree.body):
        value = getattr(node, "value", None)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            called.add(value.func.id)
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and value.func.id in defined):
                found = ("variable", node.targets[0].id,
                         "%s = %s()" % (node.targets[0].id, value.func.id))
    if found:
        return found
    for fn in reversed([n for n in test_tree.body if isinstance(n, ast.FunctionDef)]):
        required = len(fn.args.args) - len(fn.args.defaults)
        if fn.name.startswith("test") and required == 0 and fn.name not in called:
            return ("call", fn.name, "%s()" % fn.name)
    return None


def names_bound_by(tree):
    """Names a module binds at top level (defs, classes, assignments, imports)."""
    bound = set()
    for node in _top_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        bound.add(n.id)
    return bound


def names_loaded_by(tree):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def attribute_calls(tree):
    """{name: {attr, ...}} for every call NAME.ATTR(...) in the tree: a class's static or class
    methods the test calls directly (streamk_matmul's test calls `matmul.forward(None, a, b)` of
    a torch.autograd.Function, never its apply)."""
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                isinstance(n.func.value, ast.Name):
            out.setdefault(n.func.value.id, set()).add(n.func.attr)
    return out


def defined_in_main(obj, depth=0):
    """Whether the operator code defined obj (exec'd as module __main__), rather than imported
    it: only its own functions are operator entries."""
    if depth > 3:
        return False
    if getattr(obj, "__module__", None) == "__main__":
        return True
    inner = getattr(obj, "fn", None)  # triton's JITFunction, Autotuner, Heuristics
    if inner is not None and inner is not obj and defined_in_main(inner, depth + 1):
        return True
    owner = getattr(obj, "__self__", None)  # SomeFunction.apply bound to its class
    return isinstance(owner, type) and defined_in_main(owner, depth + 1)


# ---------------------------------------------------------------------------------------------
# Entries: the operator's functions that the test code calls, wrapped so that each call the test
# makes runs with its own copy of the RNG state (the inputs of later test cases do not depend on
# how many random numbers the operator drew) and, in mode "time", is timed.


class Rng:
    """Seeding and saving/restoring every generator the tests draw from."""

    def __init__(self, torch, np):
        self.torch = torch
        self.np = np

    def seed(self, seed):
        random.seed(seed)
        if self.np is not None:
            self.np.random.seed(seed % (2 ** 32))
        if self.torch is not None:
            self.torch.manual_seed(seed)  # CPU and every CUDA device

    def state(self):
        s = {"random": random.getstate()}
        if self.np is not None:
            s["np"] = self.np.random.get_state()
        if self.torch is not None:
            s["torch"] = self.torch.get_rng_state()
            if self.torch.cuda.is_available() and self.torch.cuda.is_initialized():
                s["cuda"] = self.torch.cuda.get_rng_state_all()
        return s

    def restore(self, s):
        random.setstate(s["random"])
        if "np" in s:
            self.np.random.set_state(s["np"])
        if "torch" in s:
            self.torch.set_rng_state(s["torch"])
        if "cuda" in s:
            self.torch.cuda.set_rng_state_all(s["cuda"])


class Entries:
    """Wraps the operator's entry points; counts calls; hands outermost calls to a timer, or to a
    recorder of what each call gave (test mode)."""

    def __init__(self, rng, timer=None, recorder=None):
        self.rng = rng
        self.timer = timer
        self.recorder = recorder
        self.depth = 0
        self.counts = {}
        self.wrapped = []

    def wrap(self, name, fn):
        entries = self

        def entry(*args, **kwargs):
            if entries.depth > 0:  # an entry calling another: only the outermost call counts
                return fn(*args, **kwargs)
            entries.depth += 1
            entries.counts[name] = entries.counts.get(name, 0) + 1
            try:
                saved = entries.rng.state()
                try:
                    if entries.timer is not None:
                        result = entries.timer.measure(name, fn, args, kwargs,
                                                       lambda: entries.rng.restore(saved))
                    else:
                        result = fn(*args, **kwargs)
                        if entries.recorder is not None:
                            entries.recorder.record(name, result, args, kwargs)
                except BaseException:
                    try:  # the operator's own exception is the one to report
                        entries.rng.restore(saved)
                    except BaseException:  # noqa: BLE001
                        pass
                    raise
                entries.rng.restore(saved)
                return result
            finally:
                entries.depth -= 1

        entry.__name__ = getattr(fn, "__name__", name)
        entry.__doc__ = getattr(fn, "__doc__", None)
        entry.__wrapped__ = fn
        return entry

    def install(self, ns, names, torch, attrs=None):
        """Replaces ns[name] (or a class's apply/__call__) for each name the test calls, and the
        static and class methods of the code's classes that the test calls by name (`attrs`,
        from attribute_calls)."""
        for name in sorted(names):
            obj = ns.get(name)
            if obj is None or isinstance(obj, types.ModuleType) or not defined_in_main(obj):
                continue
            if isinstance(obj, type):
                if torch is not None and issubclass(obj, torch.autograd.Function):
                    obj.apply = staticmethod(self.wrap(name + ".apply", obj.apply))
                    self.wrapped.append(name + ".apply")
                elif torch is not None and issubclass(obj, torch.nn.Module):
                    call = obj.__call__
                    wrapped = self.wrap(name + ".__call__", lambda *a, **k: call(*a, **k))
                    obj.__call__ = lambda self_, *a, **k: wrapped(self_, *a, **k)
                    self.wrapped.append(name + ".__call__")
                self._wrap_methods(name, obj, (attrs or {}).get(name, ()))
                continue  # other classes are data (configs, buffers), not operators
            if hasattr(type(obj), "__getitem__") and hasattr(obj, "run"):
                # A triton kernel the test launches itself (kernel[grid](...)); an Autotuner is
                # not even callable. Its class is swapped for a subclass, not the object for a
                # proxy: other kernels that call it find it through their globals and triton
                # checks isinstance(JITFunction).
                self._wrap_launcher(name, obj)
                continue
            if not callable(obj):
                continue
            ns[name] = self.wrap(name, obj)
            self.wrapped.append(name)

    def _wrap_methods(self, name, cls, called):
        """Wraps the static and class methods of `cls` that the test calls as NAME.ATTR(...),
        where the class itself defines them (apply, already an entry, and inherited methods
        excepted). Instance methods are left alone: the instance, not the class, is called."""
        for attr in sorted(called):
            if attr == "apply" and (name + ".apply") in self.wrapped:
                continue
            raw = cls.__dict__.get(attr)
            if isinstance(raw, staticmethod):
                setattr(cls, attr, staticmethod(self.wrap(name + "." + attr, raw.__func__)))
            elif isinstance(raw, classmethod):
                setattr(cls, attr, classmethod(self.wrap(name + "." + attr, raw.__func__)))
            else:
                continue
            self.wrapped.append(name + "." + attr)

    def _wrap_launcher(self, name, kernel):
        entries = self
        base = type(kernel)

        def getitem(self_, grid):
            return entries.wrap(name + "[grid]", base.__getitem__(self_, grid))

        try:
            kernel.__class__ = type(base.__name__, (base,), {"__getitem__": getitem})
            self.wrapped.append(name + "[grid]")
        except TypeError:
            pass  # a layout that cannot be swapped: the launch stays untimed (documented)


# ---------------------------------------------------------------------------------------------
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
    (src/eval/triton_work_table.cpp): [{"name", "kind", ...}], where name is the parameter's
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


# ---------------------------------------------------------------------------------------------
# Checking every timed call (docs/triton.md, "Every timed output checked"). Each timed
# repetition runs on fresh copies of the tensor arguments; the floating-point ones the
# reference's first timing process found safe to change get new content, seeded by the judge's
# secret, the call site and the repetition (the same in every process of a job, so the
# reference's process sees the very inputs the candidate's does). What each timed call returned,
# and what it wrote into its arguments, goes back to the judge, which compares it with the
# reference's output on the same inputs: a candidate that caches by content finds nothing to
# reuse, and one that computes only the test's own call is caught.
#
# What is kept of each timed call is bounded, whatever the size of the operator's outputs
# (a rope_embedding call site returns 256 MiB and writes as much into an argument): a timed call
# keeps its whole output while the site's and the process's byte budgets allow, and otherwise a
# *sample* of each tensor leaf, SAMPLE_ELEMENTS elements at most, gathered on the device (only
# the sample is copied to the host). Which calls of a site are whole (the first `whole`) and how
# many elements the others keep of each leaf (`sample`) is decided by the reference's first
# timing process and handed on in the plan, so that every process of a job keeps the same.
#
# The positions of a sample are drawn from a generator seeded by the judge's secret, the site,
# the repetition and the leaf's name (sample_seed), over the leaf's elements in row-major order:
# the same in every process for the same site, call and shape, and unknown to the operator
# before its call returns (it would have to read the secret out of the runner). They are
# stratified: the n elements are cut into k equal runs of n/k and one position is drawn
# uniformly in each. So a sampled call catches, with certainty, any difference that covers a
# run of 2n/k consecutive elements (for 16x128x64x512 float32, n/k = 1024: two rows of 512),
# and a difference at m scattered elements escapes one call's sample with probability at most
# exp(-m k / n) (each run misses its m_i wrong elements with probability 1 - m_i k / n), and all
# R sampled calls of a site, whose positions are drawn afresh, with at most exp(-m k R / n). A
# candidate wrong on 1 % of its elements is caught by one call (e^-655); one wrong at 64
# scattered elements of 2^26 escapes a call with probability 0.94 and 30 calls with 0.15. Such
# a difference is what sampling gives up: the test's own call, the whole-output calls, and every
# call of a site whose outputs fit the budget are still compared whole.

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
PERTURB_RELATIVE = 0.125        # the size of the change, relative to each value
CHECK_BYTES_PER_SITE = 16 << 20  # outputs kept per call site (whole, or sampled beyond that)
CHECK_BYTES = 128 << 20          # and per process, all sites together
# Elements a sampled call keeps of each tensor leaf at most (a leaf this small or smaller is
# kept whole): 256 KiB of float32. Fewer, by halves down to SAMPLE_MIN_ELEMENTS, only where the
# site's sampled calls would not fit its budget otherwise (many leaves, or a process budget that
# earlier sites used up); the repetitions are cut (never below min_reps) only where even those
# do not fit.
SAMPLE_ELEMENTS = 65536
SAMPLE_MIN_ELEMENTS = 1024


def arg_paths(args, kwargs, is_tensor):
    """[(path, tensor)] for the tensors the timer copies: the arguments themselves and the items
    of list and tuple arguments, named "args[1]", "args[2][0]", "kwargs.out"."""
    out = []

    def visit(prefix, v):
        if is_tensor(v):
            out.append((prefix, v))
        elif isinstance(v, (list, tuple)):
            out.extend(("%s[%d]" % (prefix, i), x) for i, x in enumerate(v) if is_tensor(x))

    for i, v in enumerate(args):
        visit("args[%d]" % i, v)
    for key, v in kwargs.items():
        visit("kwargs.%s" % key, v)
    return out


def copy_args(args, kwargs, is_tensor, make):
    """(args, kwargs) with every tensor arg_paths names replaced by make(path, tensor); lists and
    tuples holding one are rebuilt, everything else is passed as it is (objects are shared)."""

    def one(prefix, v):
        if is_tensor(v):
            return make(prefix, v)
        if isinstance(v, (list, tuple)) and any(is_tensor(x) for x in v):
            items = [make("%s[%d]" % (prefix, i), x) if is_tensor(x) else x
                     for i, x in enumerate(v)]
            if hasattr(v, "_fields"):  # a namedtuple takes its fields one by one
                return type(v)(*items)
            return type(v)(items)
        return v

    return ([one("args[%d]" % i, v) for i, v in enumerate(args)],
            {key: one("kwargs.%s" % key, v) for key, v in kwargs.items()})


def observation(result, args, kwargs, observe, is_tensor):
    """What one call is judged by: its result, and the arguments listed in `observe` as they are
    after the call (an in-place operator's output)."""
    found = dict(arg_paths(args, kwargs, is_tensor))
    kept = {"result": result}
    for path in observe:
        if path in found:
            kept[path] = found[path]
    return kept


def perturb_seed(secret, site, rep, path):
    """The seed of one argument's new content: the same in every process given the same
    secret, and unrelated between repetitions, sites and arguments."""
    text = "%d/%d/%s/%s" % (secret, site, rep, path)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little") >> 1


def sample_seed(secret, site, rep, name):
    """The seed of the positions a sampled timed call keeps of its output leaf `name`: the same
    in every process given the same secret, and unrelated between repetitions, sites, leaves
    and the new content's seeds (perturb_seed)."""
    text = "sample/%d/%d/%s/%s" % (secret, site, rep, name)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little") >> 1


class TorchOps:
    """The tensor operations the check needs, taken before the operator code runs (as the
    timer's are): patching torch.Tensor.clone, .mul_, .cpu or torch.rand later does not reach
    them, so the operator code can neither turn the new content off nor run work of its own
    while its output is read back. Tensors of another type than torch.Tensor (a subclass whose
    methods are the operator code's) are not read: they are reported as objects."""

    def __init__(self, torch, np=None):
        T = torch.Tensor
        self.np = np
        self.tensor = T
        self.plain = (T, torch.nn.Parameter)
        self.strided = torch.strided
        self.float32, self.float64, self.uint8 = torch.float32, torch.float64, torch.uint8
        self.int64 = torch.int64
        # Integer dtypes by element size: a sample is gathered as raw elements of any dtype.
        self._raw_dtypes = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
        self._element_size = T.element_size
        self._arange, self._randint, self._take = torch.arange, torch.randint, torch.take
        self._div, self._remainder = torch.div, torch.remainder
        self._clone, self._detach, self._contiguous = T.clone, T.detach, T.contiguous
        self._cpu, self._reshape, self._view, self._to = T.cpu, T.reshape, T.view, T.to
        self._mul_, self._numel = T.mul_, T.numel
        self._to_dense, self._dequantize = T.to_dense, T.dequantize
        self._is_complex, self._resolve_conj, self._resolve_neg = (
            T.is_complex, T.resolve_conj, T.resolve_neg)
        self._numpy, self._tolist = T.numpy, T.tolist
        self._view_as_real = torch.view_as_real
        self._generator, self._rand, self._select = torch.Generator, torch.rand, torch.select
        self._add, self._mul, self._floor = torch.add, torch.mul, torch.floor
        self._sub, self._abs, self._le = torch.sub, torch.abs, torch.le
        self._ne, self._round, self._isfinite = torch.ne, torch.round, torch.isfinite
        self._logical_and, self._logical_not = torch.logical_and, torch.logical_not
        self._any, self._all, self._equal = torch.any, torch.all, torch.equal
        self._where, self._nan_to_num = torch.where, torch.nan_to_num
        self._no_grad = torch.no_grad
        self._sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)

    def is_tensor(self, v):
        return isinstance(v, self.tensor)

    def dtype(self, t):
        return str(t.dtype).replace("torch.", "")

    def sync(self):
        self._sync()

    def clone(self, t):
        return self._clone(t)

    def is_float(self, t):
        return (self.dtype(t) in FLOAT_DTYPES and t.layout == self.strided
                and not t.is_quantized)

    def perturbable(self, t):
        """A float tensor with a finite value that is not a whole number: masks, one-hot
        labels, counts and constants (ones, zeros, -inf) keep their exact values."""
        if not self.is_float(t) or self._numel(t) == 0:
            return False
        with self._no_grad():
            x = self._detach(t)
            fraction = self._logical_and(self._ne(x, self._round(x)), self._isfinite(x))
            return bool(self._any(fraction))

    def perturbed(self, t, seed, relative):
        """A copy of t (same dtype, shape and strides as a clone) times a factor per element:
        the tensor's scale moves by relative/2 to relative, up or down, and each element by up
        to relative more. Signs and zeros stay; a sum, a norm or a normalized output changes."""
        dev = t.device
        g = self._generator(device=dev)
        g.manual_seed(seed)
        out = self._clone(t)
        with self._no_grad():
            s = self._rand((2,), generator=g, device=dev, dtype=self.float32)
            u = self._rand(tuple(t.shape), generator=g, device=dev, dtype=self.float32)
            up = self._floor(self._mul(self._select(s, 0, 0), 2.0))  # 0 or 1
            sign = self._sub(self._mul(up, 2.0), 1.0)
            size = self._add(self._mul(self._select(s, 0, 1), 0.5), 0.5)
            scale = self._add(self._mul(self._mul(sign, size), relative), 1.0)
            each = self._add(self._mul(u, 2.0 * relative), 1.0 - relative)
            self._mul_(out, self._to(self._mul(each, scale), t.dtype))
        return out

    def _flat_bytes(self, t):
        t = self._contiguous(self._detach(t))
        return self._view(self._reshape(t, (-1,)), self.uint8) if self._numel(t) else None

    def same(self, a, b):
        """The same dtype, shape and bytes (NaN equal to itself)."""
        if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape):
            return False
        x, y = self._flat_bytes(a), self._flat_bytes(b)
        return x is None or bool(self._equal(x, y))

    def finite(self, t):
        if self.dtype(t) not in FLOAT_DTYPES:
            return True
        with self._no_grad():
            return bool(self._all(self._isfinite(self._detach(t))))

    def close(self, a, b, tolerance):
        """Whether a and b agree under the judge's tolerance for their dtype: the same
        non-finite values in the same places, |a - b| <= atol + rtol * |b| elsewhere; exact
        equality for what has no tolerance (integers, bool)."""
        if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape):
            return False
        if tolerance is None or self.dtype(a) not in FLOAT_DTYPES:
            return self.same(a, b)
        rtol, atol = tolerance
        with self._no_grad():
            x = self._to(self._detach(a), self.float64)
            y = self._to(self._detach(b), self.float64)
            fx, fy = self._isfinite(x), self._isfinite(y)
            if not bool(self._equal(fx, fy)):
                return False
            # Non-finite places must hold the same value: NaN, +inf, -inf as 1, 2, 3.
            kinds = [self._nan_to_num(self._where(f, 0.0, v), nan=1.0, posinf=2.0, neginf=3.0)
                     for f, v in ((fx, x), (fy, y))]
            if not bool(self._equal(kinds[0], kinds[1])):
                return False
            x, y = self._where(fx, x, 0.0), self._where(fy, y, 0.0)
            bound = self._add(self._mul(self._abs(y), rtol), atol)
            return bool(self._all(self._le(self._abs(self._sub(x, y)), bound)))

    def _plain(self, v):
        """(tensor, complex) as encode_results reads a plain tensor: detached, dense,
        dequantized, a complex one as view_as_real; still on its device, strides as they are."""
        t = self._detach(v)
        if t.is_sparse:
            t = self._to_dense(t)
        if t.is_quantized:
            t = self._dequantize(t)
        is_complex = bool(self._is_complex(t))
        if is_complex:
            t = self._view_as_real(self._resolve_conj(t))
        return self._resolve_neg(t), is_complex

    def _raw(self, t):
        """The bytes of a contiguous CPU tensor."""
        if self._numel(t) == 0:
            return b""
        flat = self._view(self._reshape(t, (-1,)), self.uint8)
        return self._numpy(flat).tobytes() if self.np is not None else bytes(self._tolist(flat))

    def _gathered(self, t):
        """t's elements in row-major order, on the host. A CUDA tensor is read the same way
        whatever its strides (an index, one torch.take of its raw elements, one copy to the
        host), so that the GPU work of the read-back is the same for every candidate whose
        output has the reference's dtype and shape: the judge holds what is launched while an
        output is read back to the reference's (issue 31: work hidden in a hook that runs there,
        cupti_hidden_work)."""
        n = int(self._numel(t))
        if n == 0 or not bool(t.is_cuda):
            return self._cpu(self._contiguous(t))
        raw = self._view(t, self._raw_dtypes[int(self._element_size(t))])
        idx = self._arange(n, dtype=self.int64, device=t.device)
        picked = self._cpu(self._take(raw, idx))
        return self._reshape(self._view(picked, t.dtype), tuple(int(x) for x in t.shape))

    def parts(self, v):
        """encode_results' reader for outputs of timed calls (torch_tensor_parts with the
        functions taken early); None for anything that is not a plain tensor or a numpy value."""
        if type(v) in self.plain:
            t, is_complex = self._plain(v)
            t = self._gathered(t)
            dtype, shape = self.dtype(t), [int(x) for x in t.shape]
            if dtype not in SUPPORTED_DTYPES:
                return dtype, shape, None, is_complex
            return dtype, shape, self._raw(t), is_complex
        if self.np is not None and isinstance(v, (self.np.ndarray, self.np.generic)):
            return torch_tensor_parts(None, self.np)(v)
        return None

    def encoded_size(self, v):
        """(elements, bytes each) that parts(v) would encode, from the shape alone (nothing is
        read or copied); None for what parts does not read as a tensor. A complex tensor counts
        its real view's elements; a dtype the judge does not read, nothing."""
        if type(v) in self.plain:
            n, size = int(self._numel(v)), int(self._element_size(v))
            if v.is_quantized:
                return n, 4  # dequantized to float32
            if bool(self._is_complex(v)):
                return 2 * n, size // 2
            return (n, size) if self.dtype(v) in SUPPORTED_DTYPES else (0, 0)
        if self.np is not None and isinstance(v, (self.np.ndarray, self.np.generic)):
            a = self.np.asarray(v)
            if self.np.iscomplexobj(a):
                return 2 * int(a.size), int(a.itemsize) // 2
            return int(a.size), int(a.itemsize)
        return None

    def sample_positions(self, numel, count, seed):
        """`count` positions in [0, numel) (count < numel), as an int64 CPU tensor: the n
        elements cut into `count` runs of n/count (the i-th from floor(i n / count)) and one
        position drawn uniformly in each, from a CPU generator seeded `seed` (the same positions
        on every device and in every process)."""
        g = self._generator()
        g.manual_seed(seed)
        i = self._arange(count, dtype=self.int64)
        start = self._div(self._mul(i, numel), count, rounding_mode="floor")
        end = self._div(self._mul(self._add(i, 1), numel), count, rounding_mode="floor")
        u = self._randint(0, 1 << 62, (count,), generator=g, dtype=self.int64)
        return self._add(start, self._remainder(u, self._sub(end, start)))

    def sampled_parts(self, v, count, seed):
        """parts(v) plus a fifth item: for a tensor of more than `count` elements, `count` of
        them at sample_positions(n, count, seed) in row-major order (of the real view for a
        complex one), gathered on its device (torch.take: whatever its strides, no copy of the
        whole) and only those copied to the host, with {"elements": count, "seed": seed};
        smaller ones whole, with None."""
        if type(v) in self.plain:
            t, is_complex = self._plain(v)
            dtype, shape = self.dtype(t), [int(x) for x in t.shape]
            if dtype not in SUPPORTED_DTYPES:
                return dtype, shape, None, is_complex, None
            n = int(self._numel(t))
            if n <= count:
                return dtype, shape, self._raw(self._gathered(t)), is_complex, None
            # Raw elements: take() on an integer view of the same size works for every dtype
            # (bool and the float8 types included); a dtype view keeps the strides.
            raw_t = self._view(t, self._raw_dtypes[int(self._element_size(t))])
            idx = self._to(self.sample_positions(n, count, seed), t.device)
            picked = self._cpu(self._take(raw_t, idx))
            return dtype, shape, self._raw(picked), is_complex, {"elements": count, "seed": seed}
        np = self.np
        if np is not None and isinstance(v, (np.ndarray, np.generic)):
            a = np.asarray(v)
            is_complex = bool(np.iscomplexobj(a))
            if is_complex:
                a = np.stack([a.real, a.imag], axis=-1)
            dtype = "bool" if a.dtype == np.bool_ else a.dtype.name
            if dtype not in SUPPORTED_DTYPES or a.size <= count:
                return torch_tensor_parts(None, np)(v) + (None,)
            idx = self._numpy(self.sample_positions(int(a.size), count, seed))
            picked = np.take(a, idx)  # row-major positions, whatever the array's strides
            raw = np.ascontiguousarray(picked).astype(a.dtype.newbyteorder("<"), copy=False)
            return (dtype, list(a.shape), raw.tobytes(), is_complex,
                    {"elements": count, "seed": seed})
        return None


class CallCheck:
    """The check of one timing process: per call site, which arguments its timed calls get new
    content in and which ones are read back after each call (the site's plan), and the encoded
    outputs of every timed call, in one blob.

    The plan comes from the judge, which takes it from the reference's first timing process; that
    process has none and makes it (`probe`), so every later process, the candidate's included,
    runs on exactly the reference's inputs.

    What is kept of each timed call stays within the byte budgets (`max_bytes` per site,
    `max_total` per process) whatever the outputs' size: the site's first `whole` timed calls
    keep their whole output, the others a sample of at most `sample` elements of each tensor
    leaf (see the comment above FLOAT_DTYPES). Both are in the plan: the reference's first
    process decides them at the site's first timed call (`split`), from the shapes of what it
    returned, and every later process keeps the same calls whole and samples the others at the
    same positions. A call planned whole whose output would not fit the budgets in this process
    (a candidate returning more than the reference) is sampled instead, and the judge finds a
    sample where the reference's output is whole: a mismatch, never a blown memory limit.

    Not deduplicated: a tensor both returned and read back as an argument (an in-place
    operator returning its output, rope_embedding's Q) is encoded, or sampled, once per name;
    the budgets count both, so this costs repetitions or sample size, not memory beyond them."""

    def __init__(self, ops, params):
        self.ops = ops
        self.enabled = bool(params.get("perturb", True))
        self.relative = float(params.get("perturb_relative", PERTURB_RELATIVE))
        self.secret = int(params.get("seed", 0))
        self.max_bytes = int(params.get("max_bytes_per_site", CHECK_BYTES_PER_SITE))
        self.max_total = int(params.get("max_bytes", CHECK_BYTES))
        # The sample sizes: the runner's constants; the parameters are for tests.
        self.sample_elements = max(1, int(params.get("sample_elements", SAMPLE_ELEMENTS)))
        self.sample_min = max(1, min(self.sample_elements,
                                     int(params.get("sample_min_elements", SAMPLE_MIN_ELEMENTS))))
        self.tolerances = {}
        for dtype, t in (params.get("tolerances") or {}).items():
            self.tolerances[dtype] = (float(t["rtol"]), float(t["atol"]))
        plan = params.get("plan")
        self.plan = None if plan is None else list(plan)
        self.blob = bytearray()

    def site_plan(self, index, fn, args, kwargs, reset):
        """{mode, reason, perturb, observe, reps, probe, whole, sample} for call site `index`.
        whole: the timed calls kept whole (the first ones; None: all that fit the budgets, until
        `split` decides in the reference's first process); sample: the elements the others keep
        of each tensor leaf."""
        if self.plan is None:
            return self.probe(index, fn, args, kwargs, reset)
        if index >= len(self.plan) or not isinstance(self.plan[index], dict):
            return {"mode": "unperturbed", "reason": "the reference made no such call",
                    "perturb": [], "observe": [], "reps": None, "probe": [], "whole": None,
                    "sample": self.sample_elements}
        p = self.plan[index]
        reps, whole, sample = p.get("reps"), p.get("whole"), p.get("sample")

        def count(v, least):
            return v if type(v) is int and v >= least else None

        plan = {"mode": str(p.get("mode", "unperturbed")), "reason": str(p.get("reason", "")),
                "perturb": [str(x) for x in p.get("perturb", [])],
                "observe": [str(x) for x in p.get("observe", [])],
                "reps": count(reps, 1),
                "probe": [[str(x) for x in c] for c in p.get("probe", []) if isinstance(c, list)],
                "whole": count(whole, 0),
                "sample": count(sample, 1) or self.sample_elements}
        self.replay(index, fn, args, kwargs, reset, plan["probe"])
        return plan

    def replay(self, index, fn, args, kwargs, reset, probe):
        """The probe's calls again, untimed, on the same inputs: every process then makes the
        same calls in the same order, so an operator that keeps state between calls (a model it
        steps, a cache it fills) is in the same state in each when its timed calls come."""
        ops = self.ops
        for perturb in probe:
            a, k, _ = self.inputs(args, kwargs, perturb, index, "probe")
            reset()
            try:
                fn(*a, **k)
                ops.sync()
            except Exception:  # noqa: BLE001 - the probe's call raised in the reference too
                pass

    def inputs(self, args, kwargs, perturb, index, rep, key=None):
        """Fresh copies of the tensor arguments, those named in `perturb` (and still floating
        point) with new content, drawn from `key` (a timed call's: the judge streams it just
        before the call, CallStream) or the request's seed (the probe's). Returns (args, kwargs,
        the paths changed)."""
        ops = self.ops
        changed = []
        secret = self.secret if key is None else key

        def make(path, t):
            if path in perturb and ops.is_float(t):
                changed.append(path)
                return ops.perturbed(t, perturb_seed(secret, index, rep, path),
                                     self.relative)
            return ops.clone(t)

        a, k = copy_args(args, kwargs, ops.is_tensor, make)
        return a, k, changed

    def leaves(self, result, args, kwargs, observe):
        return unique_names(flatten(observation(result, args, kwargs, observe,
                                                self.ops.is_tensor)))

    def describe(self, v):
        if self.ops.is_tensor(v):
            return ("tensor", self.ops.dtype(v), tuple(int(x) for x in v.shape))
        return (type(v).__name__,)

    def agree(self, x, y):
        ops = self.ops
        if ops.is_tensor(x) and ops.is_tensor(y):
            return ops.close(x, y, self.tolerances.get(ops.dtype(x)))
        if isinstance(x, float) and isinstance(y, float):
            return x == y or (x != x and y != y)
        if isinstance(x, (bool, int, str)) or x is None:
            return x == y
        return True  # objects: the judge does not compare them either

    def probe(self, index, fn, args, kwargs, reset):
        """The reference's first timing process decides a site's plan, untimed. Arguments that
        get new content are the floating-point ones holding a fraction; two calls on the same
        new content must neither raise, nor change the kind, dtype or shape of an output, nor
        make one NaN or infinite, nor disagree with each other. Otherwise the site's timed calls
        run on plain copies (their outputs still checked, against the reference's on the same
        copies), and `reason` says why. What is read back after each call: the result, and
        every tensor argument but those that got new content and that no probe call wrote
        (inputs only read; an output buffer the test's own call already filled is written again
        with the same values on a plain copy, but not on new content)."""
        ops = self.ops
        paths = [path for path, _ in arg_paths(args, kwargs, ops.is_tensor)]
        plan = {"mode": "unperturbed", "reason": "", "perturb": [], "observe": paths,
                "reps": None, "probe": [], "whole": None, "sample": self.sample_elements}
        written = set()

        def call(perturb):
            plan["probe"].append(list(perturb))  # replayed by every later process
            a, k, _ = self.inputs(args, kwargs, perturb, index, "probe")
            before = [(path, ops.clone(t)) for path, t in arg_paths(a, k, ops.is_tensor)]
            reset()
            out = fn(*a, **k)
            ops.sync()
            after = dict(arg_paths(a, k, ops.is_tensor))
            written.update(path for path, t in before if not ops.same(after[path], t))
            return self.leaves(out, a, k, paths)

        base = call(())
        if not self.enabled:
            plan["reason"] = "new content is turned off"
            return plan
        fresh = [path for path, t in arg_paths(args, kwargs, ops.is_tensor)
                 if ops.perturbable(t)]
        if not fresh:
            plan["reason"] = "no floating-point tensor argument holds a fraction"
            return plan
        try:
            runs = [call(fresh), call(fresh)]
        except Exception as e:  # noqa: BLE001 - the reference's own: it decides the plan only
            plan["reason"] = "the reference raised %s on new content: %s" % (
                type(e).__name__, str(e)[:200])
            return plan
        if [(n, self.describe(v)) for n, v in runs[0]] != [(n, self.describe(v)) for n, v in base]:
            plan["reason"] = "new content changes the kind, dtype or shape of its outputs"
            return plan
        for (name, b), (_, v) in zip(base, runs[0]):
            if ops.is_tensor(v) and ops.finite(b) and not ops.finite(v):
                plan["reason"] = "new content makes %s NaN or infinite" % name
                return plan
        for (name, x), (_, y) in zip(runs[0], runs[1]):
            if not self.agree(x, y):
                plan["reason"] = "the reference disagrees with itself on new content (%s)" % name
                return plan
        plan["mode"] = "perturbed"
        plan["perturb"] = fresh
        plan["observe"] = [path for path in paths if path not in fresh or path in written]
        return plan

    def sizes(self, value):
        """[(elements, bytes each)] of what encoding `value` keeps whole, from shapes alone: a
        pair per tensor leaf (ops.encoded_size) and per Python number."""
        out = []
        for _, leaf in flatten(value):
            size = self.ops.encoded_size(leaf)
            if size is not None:
                out.append(size)
            elif isinstance(leaf, bool):
                out.append((1, 1))
            elif isinstance(leaf, (int, float)):
                out.append((1, 8))
        return out

    def split(self, plan, value, reps, min_reps):
        """The reference's first process, at a site's first timed call (`value` its
        observation): sets plan["whole"] and plan["sample"] so that the site's `reps` timed calls
        fit what is left of the budgets, and returns the repetitions, cut (to min_reps at least)
        only where even samples of sample_min elements do not fit. All whole where they fit;
        else sampled calls at the largest sample (halving from sample_elements) that fits, and
        the first calls whole as far as the room left allows."""
        sizes = self.sizes(value)
        budget = max(0, min(self.max_bytes, self.max_total - len(self.blob)))
        whole = sum(n * b for n, b in sizes)

        def sampled(k):
            return sum(min(n, k) * b for n, b in sizes)

        sample = self.sample_elements
        if reps * whole <= budget:
            plan["whole"], plan["sample"] = reps, sample
            return reps
        while sample > self.sample_min and reps * sampled(sample) > budget:
            sample = max(self.sample_min, sample // 2)
        per = sampled(sample)
        if reps * per > budget:
            reps = min(reps, max(min_reps, budget // max(1, per)))
        if whole <= per:  # every leaf within the sample: a sample is the whole output
            plan["whole"] = reps
        elif reps * per > budget:
            plan["whole"] = 0
        else:
            plan["whole"] = min(reps, (budget - reps * per) // (whole - per))
        plan["sample"] = sample
        return reps

    def keep(self, value, site, rep, plan, site_bytes, sample_key=None):
        """Encodes one timed call's observation (`value`) into the blob, whole or sampled as the
        plan says (a call planned whole that would not fit the budgets, with `site_bytes` kept
        for this site so far, is sampled); returns its manifest, whose entries' offsets count
        from `offset`. A sample's positions are drawn from `sample_key` (the judge streams it
        once the call has returned: the operator cannot know them during its call), else from
        the request's seed."""
        ops = self.ops
        planned = plan.get("whole")
        whole = planned is None or rep < planned
        if whole:
            need = sum(n * b for n, b in self.sizes(value))
            whole = (site_bytes + need <= self.max_bytes
                     and len(self.blob) + need <= self.max_total)
        if whole:
            entries, raw = encode_results(value, ops.parts)
        else:
            sample = plan["sample"]
            secret = self.secret if sample_key is None else sample_key

            def sampled_parts(name, leaf):
                return ops.sampled_parts(leaf, sample, sample_seed(secret, site, rep, name))

            entries, raw = encode_results(value, ops.parts, sampled_parts)
        kept = {"entries": entries, "offset": len(self.blob), "data_bytes": len(raw)}
        self.blob += raw
        return kept


CALL_OUTPUT_BYTES = 16 << 20  # test mode: what the calls gave, kept up to this much in all
ENTRY_ARGS_BYTES = 256 << 20  # entry_args: the kept arguments of all the entry's calls
# Test mode: calls too large to keep whole beyond CALL_OUTPUT_BYTES keep a sample of each large
# tensor (SAMPLE_ELEMENTS elements, as the timed calls do), while the samples hold up to this.
CALL_SAMPLE_BYTES = 64 << 20


def encoded_sizes(ops, value):
    """[(elements, bytes each)] of what encoding `value` keeps whole, from shapes alone: a pair
    per tensor leaf (ops.encoded_size) and per Python number."""
    out = []
    for _, leaf in flatten(value):
        size = ops.encoded_size(leaf)
        if size is not None:
            out.append(size)
        elif isinstance(leaf, bool):
            out.append((1, 1))
        elif isinstance(leaf, (int, float)):
            out.append((1, 8))
    return out


def entry_args_request(value):
    """The request's "entry_args" checked: None, or {"entry": name, "args": [positions],
    "max_bytes": n}."""
    if value is None:
        return None
    ok = (isinstance(value, dict) and isinstance(value.get("entry"), str)
          and isinstance(value.get("args"), list) and value["args"]
          and all(type(i) is int and 0 <= i <= 1024 for i in value["args"]))
    max_bytes = value.get("max_bytes", ENTRY_ARGS_BYTES) if isinstance(value, dict) else None
    if not ok or type(max_bytes) is not int or max_bytes <= 0:
        raise ValueError("entry_args %r is not {entry, args, max_bytes}" % (value,))
    return {"entry": value["entry"], "args": list(value["args"]), "max_bytes": max_bytes}


class CallRecorder:
    """Test mode: what each outermost call returned and left in its tensor arguments. The judge
    compares a candidate's with the reference's: where they differ although the test passed
    (an auxiliary output, a scratch buffer the test never looks at), the timed calls' outputs
    are not compared either. The test's own run is the one whose results are checked, so a
    candidate cannot widen that set by behaving otherwise once timed. Calls are kept whole or
    not at all (outputs None): while the blob stays within `max_bytes`.

    With `keep` (the request's entry_args: an operator whose output is an argument and whose
    calls are too large to be kept whole), the calls of the entry `keep["entry"]` keep only the
    arguments at the positions `keep["args"]` ("args[3]"; a list or tuple there as
    "args[3][0]", ...; a position the call does not have is left out), as they are after the
    call, without the result, while the blob stays within `keep["max_bytes"]`; other entries'
    calls are kept as above. `kept` is the report: the entry's calls, those recorded, and
    their bytes.

    A call too large to keep whole (issue 31: destindex_copy_kv's call holds 150 MB, and its
    test returns only `torch.allclose(src, dest)`, which a candidate can patch) keeps a sample of
    each tensor larger than SAMPLE_ELEMENTS instead, at positions drawn from a key the judge
    sends once the call has returned (CallStream.call_key), the same for the reference's runs and
    every candidate's: the operator cannot know them while it runs. Samples hold up to
    `sample_bytes` in all; a call beyond that is not recorded."""

    def __init__(self, ops, max_bytes=CALL_OUTPUT_BYTES, keep=None, stream=None,
                 sample_bytes=CALL_SAMPLE_BYTES, sample_elements=SAMPLE_ELEMENTS):
        self.ops = ops
        self.max_bytes = max_bytes
        self.sample_bytes = sample_bytes
        self.sample_elements = sample_elements
        self.sampled = 0  # bytes the samples hold
        self.keep = keep
        # Each call's record is committed to the judge as it is made (CallStream: "rec"): the
        # judge compares the candidate's calls with the reference's, and a record edited
        # afterwards (through gc, once the test has what it wants) no longer matches.
        self.stream = stream if stream is not None else LocalKeys(0)
        self.blob = bytearray()
        self.calls = []
        self.kept = None
        if keep is not None:
            self.kept = {"entry": keep["entry"], "args": list(keep["args"]), "calls": 0,
                         "recorded": 0, "bytes": 0}

    def record(self, name, result, args, kwargs):
        ops = self.ops
        kept = None
        keep = self.keep is not None and name == self.keep["entry"]
        try:
            if keep:
                self.kept["calls"] += 1
                value = {"args[%d]" % i: args[i] for i in self.keep["args"] if i < len(args)}
                cap = self.keep["max_bytes"]
            else:
                paths = [path for path, _ in arg_paths(args, kwargs, ops.is_tensor)]
                value = observation(result, args, kwargs, paths, ops.is_tensor)
                cap = self.max_bytes
            need = sum(n * b for n, b in encoded_sizes(ops, value))
            if keep or len(self.blob) + need <= cap:
                entries, raw = encode_results(value, ops.parts)
                if len(self.blob) + len(raw) <= cap:
                    kept = {"entries": entries, "offset": len(self.blob),
                            "data_bytes": len(raw)}
                    if keep:
                        self.kept["recorded"] += 1
                        self.kept["bytes"] += len(raw)
            else:
                count = self.sample_elements
                per = sum(min(n, count) * b for n, b in encoded_sizes(ops, value))
                if self.sampled + per <= self.sample_bytes:
                    index = len(self.calls)
                    key = self.stream.call_key(index)

                    def sampled_parts(leaf_name, leaf):
                        return ops.sampled_parts(leaf, count,
                                                 sample_seed(key, 0, index, leaf_name))

                    entries, raw = encode_results(value, ops.parts, sampled_parts)
                    self.sampled += len(raw)
                    kept = {"entries": entries, "offset": len(self.blob), "data_bytes": len(raw)}
            if kept is not None:
                self.blob += raw
        except StreamError:
            raise
        except Exception:  # noqa: BLE001 - not recorded: its timed calls are compared whole
            kept = None
        self.calls.append({"entry": name, "outputs": kept})
        self.stream.recorded(len(self.calls) - 1, None if kept is None else digest(
            bytes(self.blob[kept["offset"]:kept["offset"] + kept["data_bytes"]])))


# ---------------------------------------------------------------------------------------------
# Timing: CUDA events around each call the test makes, L2 flushed before each repetition.


class RuntimeWatch:
    """What the operator code left running in this process while its calls were timed: Python
    threads it started that are still alive, a torch function or dispatch mode it pushed, a trace
    or profile hook it set. Each can do an operator's work outside the events (a thread that
    launches the kernels after the call returned and after the device-wide synchronize, so no
    event sees them; a mode that defers the work a call asks for). The timer cannot stop them in
    one process, so it reports them per site (`watch`) and the judge flags the candidate
    (`runtime_hook`). The baseline is taken before any operator code runs, torch and triton
    already imported, so what they start themselves is not counted; the functions are held
    here, so code that patches them later does not hide from this check."""

    def __init__(self, torch):
        self._enumerate = threading.enumerate
        self._dummy = getattr(threading, "_DummyThread", ())
        self._gettrace = sys.gettrace
        self._getprofile = sys.getprofile
        # The Thread objects, not their idents: an ident is reused once its thread has ended, so a
        # new thread could pass for one of the baseline's.
        self._threads = set(self._enumerate())
        self._trace = self._gettrace()
        self._profile = self._getprofile()
        c = getattr(torch, "_C", None)
        self._modes = [(what, getattr(c, name, None)) for what, name in (
            ("torch function mode", "_len_torch_function_stack"),
            ("torch dispatch mode", "_len_torch_dispatch_stack"))]
        # The runner's own code: this module's names and its classes' attributes, each object as
        # it is now. Operator code can reach the runner (`import __main__`, sys.modules) and
        # rebind its timer, its check or its report; that shows here as an object replaced.
        self._runner = runner_snapshot()

    def seen(self):
        """What is running now that was not at the baseline, one short phrase each."""
        found = []
        for t in self._enumerate():
            # A dummy is a thread Python did not start that ran Python code: torch's autograd
            # engine runs a custom Function's backward on a device thread of its own, whoever's
            # operator it is. What Python code starts is a Thread proper.
            if t not in self._threads and not isinstance(t, self._dummy):
                found.append("thread %r" % t.name)
        for what, depth in self._modes:
            try:
                n = int(depth()) if depth is not None else 0
            except Exception:  # noqa: BLE001 - a torch without it: nothing to see
                n = 0
            if n > 0:
                found.append(what)
        if self._gettrace() is not self._trace:
            found.append("sys.settrace hook")
        if self._getprofile() is not self._profile:
            found.append("sys.setprofile hook")
        found.extend("runner's %s replaced" % name for name in runner_changes(self._runner))
        return found


def function_body(v):
    """What a Python function runs, beyond its identity: its code, defaults and the contents of
    its closure's cells (each can be replaced in place: `f.__code__ = g.__code__`,
    `f.__closure__[0].cell_contents = x`); for a bound method its function's and its object;
    for a staticmethod or classmethod the function's. None for what has none (a builtin)."""
    if isinstance(v, (staticmethod, classmethod)):
        v = v.__func__
    if isinstance(v, types.MethodType):
        return (id(v.__self__), function_body(v.__func__))
    if not isinstance(v, types.FunctionType):
        return None
    cells = []
    for c in v.__closure__ or ():
        try:
            cells.append(id(c.cell_contents))
        except ValueError:  # an empty cell
            cells.append(None)
    return (v.__code__, v.__defaults__, repr(v.__kwdefaults__), tuple(cells))


def runner_snapshot():
    """This module's names and its own classes' attributes, with the objects they hold now and
    the live namespaces they are read from (a dict, a class's mappingproxy), and what each
    function among them runs (function_body)."""
    names = globals()
    spaces = [("", names)]
    for name, value in list(names.items()):
        if isinstance(value, type) and getattr(value, "__module__", None) == __name__:
            spaces.append((name + ".", value.__dict__))
    return [(prefix, space, dict(space), {k: function_body(v) for k, v in space.items()})
            for prefix, space in spaces]


def runner_changes(snapshot):
    """The names of the snapshot whose object is no longer the one taken (rebound or deleted),
    or whose function runs other code now; names added since are not the runner's and are not
    listed."""
    missing = object()
    out = []
    for prefix, space, was, bodies in snapshot:
        for key, value in was.items():
            now = space.get(key, missing)
            if now is not value or function_body(now) != bodies[key]:
                out.append(prefix + key)
    return out


class StreamError(RuntimeError):
    """The judge's per-call channel said no, closed, or answered what the runner did not ask."""


class CallStream:
    """The per-call channel to the judge (--stream-fd: a socket the judge serves while the run
    goes on; docs/triton.md, "The runner protocol"). Issue 31: a candidate that, during its
    untimed first call, used the runner's own input maker to compute every timed call's output
    ahead got 4.18x on the H100, because the job's secret sat in this process from the start. Now
    no secret a timed call depends on is here before its turn:

      key S N                     -> k HEX    the new content of timed call N of site S
      done S N STREAM_MS DEVICE_MS -> s HEX    after the call: the positions its sample keeps
      kept S N SHA256             -> a N      what was kept of its output (the report must match);
                                               awaited, so the next launch follows the judge's time
      call I                      -> s HEX    test mode: the positions a sampled entry call keeps
      rec I SHA256|-                          test mode: what entry call I left (CallRecorder)

    The judge answers in order only: key (S, N) only after (S, N - 1) was kept, done only for
    the call keyed, anything else (a message the operator code forged on this descriptor, a
    second ask) refuses the run. It takes the time of every message on its own clock, and with
    the CUPTI profiler a timed call's marks must lie between its key and its done: computing a
    call's output before its key came is not possible, and computing it outside its timed call
    shows as GPU work outside the call (docs/triton.md, "Timing", item 4). What the runner
    reports at the end of each timed call (its samples, its output's digest) is committed here
    as it happens, so the report written at the end cannot say otherwise."""

    LINE_CAP = 256

    def __init__(self, fd):
        self.fd = fd
        self._buf = b""

    def _send(self, text):
        view = memoryview(text.encode("ascii"))
        while view:
            n = _os_write(self.fd, view)
            view = view[n:]

    def _reply(self, tag):
        while b"\n" not in self._buf:
            if len(self._buf) > self.LINE_CAP:
                raise StreamError("the judge's answer is too long")
            chunk = _os_read(self.fd, 512)
            if not chunk:
                raise StreamError("the judge closed the per-call channel")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        words = line.decode("ascii", "replace").split()
        if len(words) != 2 or words[0] != tag:
            raise StreamError("the judge answered %r where the runner asked for %r" % (
                line[:80], tag))
        return int(words[1], 16)

    def key(self, site, rep):
        self._send("key %d %d\n" % (site, rep))
        return self._reply("k")

    def done(self, site, rep, stream_ms, device_ms):
        self._send("done %d %d %r %r\n" % (site, rep, float(stream_ms), float(device_ms)))
        return self._reply("s")

    def kept(self, site, rep, digest):
        # Answered, and awaited: the runner's next launch (the next call's new inputs) comes
        # after the judge took this message's time, never inside the read-back window.
        self._send("kept %d %d %s\n" % (site, rep, digest))
        self._reply("a")

    def recorded(self, index, digest):
        self._send("rec %d %s\n" % (index, digest or "-"))

    def call_key(self, index):
        self._send("call %d\n" % index)
        return self._reply("s")


class LocalKeys:
    """CallStream's stand-in where no judge streams (--request FILE by hand, the runner's own
    tests): every call's key is the request's check seed, as before issue 31."""

    def __init__(self, secret):
        self.secret = int(secret)

    def key(self, site, rep):
        return self.secret

    def done(self, site, rep, stream_ms, device_ms):
        return self.secret

    def kept(self, site, rep, digest):
        pass

    def recorded(self, index, digest):
        pass

    def call_key(self, index):
        return self.secret


def digest(raw):
    return _sha256(raw).hexdigest()


class Tamper:
    """Whether the operator code rebound the runner's own code: this module's names, its
    classes' attributes (runner_snapshot), and the functions its live objects hold (the timer's
    event methods, the check's tensor operations, the recorder, the marks, the stream). An honest
    operator never does; one that does can make the runner report what it likes (issue 31: the
    timer's clock scaled through gc, 10.49x). The report carries what changed (`tampered`) and
    the judge refuses such a run. Taken before any operator code runs."""

    def __init__(self):
        self._runner = runner_snapshot()
        self._objects = []
        self._seen = []  # what note() found, in order: a change undone later still counts

    def note(self):
        """Looks now (the timer calls it after every timed call, outside its events), so that a
        change made for the timed calls and undone before the end is still reported."""
        for change in self.changes_now():
            if change not in self._seen:
                self._seen.append(change)

    def watch(self, name, obj):
        if obj is None:
            return
        held = {k: v for k, v in vars(obj).items() if callable(v)} if hasattr(obj, "__dict__") \
            else {}
        bodies = {k: function_body(v) for k, v in held.items()}
        self._objects.append((name, obj, type(obj), held, bodies))

    def changes(self):
        self.note()
        return self._seen[:32]

    def changes_now(self):
        out = ["runner's %s replaced" % n for n in runner_changes(self._runner)]
        missing = object()
        for name, obj, cls, held, bodies in self._objects:
            if type(obj) is not cls:
                out.append("the runner's %s changed its class" % name)
                continue
            now = vars(obj) if hasattr(obj, "__dict__") else {}
            for key, value in held.items():
                # Held functions are torch's too (the timer's torch.cuda.Event.elapsed_time):
                # their code replaced in place reaches the runner as much as a rebinding.
                if now.get(key, missing) is not value or function_body(value) != bodies[key]:
                    out.append("the runner's %s.%s replaced" % (name, key))
            for key, value in now.items():
                if key not in held and callable(value):
                    out.append("the runner's %s.%s added" % (name, key))
        return out


class CallMarks:
    """Where each call of the operator code lies in time, for the judge's CUPTI profiler
    (libkjudge_profiler.so, preloaded by the judge with --cupti): the profiler records every
    kernel, copy and memset of the process with the time and thread that launched it, and the
    judge (src/eval/triton_cupti.cpp) places each by these windows. A timed call's window is
    [site, rep, start, end] with rep its index in the site's samples; every other call of the
    operator code (the test's own, the warm-ups, the probes, a repetition not counted) is
    [site, -1, start, end], and executing the operator code as a module (its own setup) is
    `import`. The clock is the profiler's own (kjudge_profiler_now_ns: CUPTI's,
    the records' clock), resolved here before any operator code runs; without it there is
    nothing to place and the report says why. finish() writes the profiler's record (the
    runner ends with os._exit, which skips the exit handler that would): 0 means something
    wrote it earlier, and the work after that is missing."""

    def __init__(self, hooks=None):
        self.calls = []
        self.imported = None  # [start, end] of executing the operator code as a module
        self.why = ""
        self._now = self._finish = None
        try:
            self._now, self._finish = hooks if hooks is not None else profiler_hooks()
        except Exception as e:  # noqa: BLE001 - no profiler: the report says so
            self.why = "the profiler's clock was not found: %s" % describe_short(e)
        self.tid = threading.get_native_id()

    @property
    def active(self):
        return self._now is not None

    def now(self):
        return int(self._now())

    def untimed(self, site, fn):
        """fn, its calls marked untimed calls of `site`."""
        marks = self

        def call(*args, **kwargs):
            t0 = marks.now()
            try:
                return fn(*args, **kwargs)
            finally:
                marks.calls.append([site, -1, t0, marks.now()])

        return call

    def report(self):
        out = {"clock": self.active, "tid": self.tid, "calls": self.calls}
        if self.imported is not None:
            out["import"] = self.imported
        if not self.active:
            out["why"] = self.why or "the profiler's clock was not found"
            return out
        try:
            out["finished"] = int(self._finish()) == 1
        except Exception as e:  # noqa: BLE001
            out["finished"] = False
            out["why"] = "the profiler's finish failed: %s" % describe_short(e)
        return out


def describe_short(e):
    return "%s: %s" % (type(e).__name__, str(e)[:200])


def profiler_hooks():
    """The preloaded profiler's clock and finish, looked up in the process's global scope (an
    LD_PRELOAD library's symbols are there). Raises when the library is not loaded."""
    import ctypes
    lib = ctypes.CDLL(None)
    now = lib.kjudge_profiler_now_ns
    now.restype, now.argtypes = ctypes.c_uint64, []
    finish = lib.kjudge_profiler_finish
    finish.restype, finish.argtypes = ctypes.c_int, []
    return now, finish


class PersistingL2:
    """Takes persisting L2 back before every timed repetition, as the task harness does
    (harness/kjudge_harness.cu, L2Flusher): an operator that set aside persisting L2 for its
    inputs (a persisting-L2 limit and an access-policy window on its stream, through ctypes)
    would keep them cached through the flush, whose writes are of normal priority. Through the
    CUDA driver, on the context torch made current: the limit goes back to 0 and every
    persisting line to normal. The functions are looked up when the timer is made, before any
    operator code runs. Where they cannot be had or fail (no driver, a GPU without persisting
    L2), `why` says so and nothing is tried again; the run goes on, and reports it."""

    LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06           # CUlimit
    ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108    # CUdevice_attribute

    def __init__(self, lib=None):
        self.why = None
        self.resets = 0
        try:
            import ctypes
            if lib is None:
                lib = ctypes.CDLL("libcuda.so.1")
            self._set_limit = lib.cuCtxSetLimit
            self._set_limit.restype = ctypes.c_int
            self._set_limit.argtypes = [ctypes.c_int, ctypes.c_size_t]
            self._reset = lib.cuCtxResetPersistingL2Cache
            self._reset.restype = ctypes.c_int
            self._reset.argtypes = []
            device, most = ctypes.c_int(0), ctypes.c_int(0)
            rc = lib.cuCtxGetDevice(ctypes.byref(device))
            if rc == 0:
                rc = lib.cuDeviceGetAttribute(ctypes.byref(most),
                                              self.ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE,
                                              device.value)
            if rc != 0:
                self.why = "the driver answered %d asking for the device's persisting L2" % rc
            elif most.value <= 0:
                self.why = "this GPU has no persisting L2"
        except (OSError, AttributeError, TypeError, ValueError) as e:
            self.why = "the CUDA driver's functions are not reachable: %s" % describe_short(e)

    def __call__(self):
        if self.why is not None:
            return
        a = int(self._set_limit(self.LIMIT_PERSISTING_L2_CACHE_SIZE, 0))
        b = int(self._reset()) if a == 0 else 0
        if a != 0 or b != 0:
            self.why = "cuCtxSetLimit returned %d, cuCtxResetPersistingL2Cache %d" % (a, b)
            return
        self.resets += 1

    def describe(self):
        if self.why is None:
            return "reset before every timed repetition"
        return "not reset: " + self.why


class CudaTimer:
    """Per call site (the n-th outermost entry call of the test): the call the test makes (its
    result goes back to the test), `warmup` untimed calls on plain copies, then up to `reps`
    timed calls on fresh copies (new content where the site's plan says), each timed one after
    writing a buffer larger than L2, each one's output kept for the judge (CallCheck: whole, or
    a sample of each large tensor where the whole would not fit its byte budgets). The time
    of one repetition runs from an event recorded after the flush was queued to an event recorded
    on the same stream right after the call returned. A third event, recorded once
    torch.cuda.synchronize() (every stream of the device) has returned, gives the call's tail:
    when the site's median tail is over `side_work_ms`, work went on outside the call's stream
    and the site is timed to that third event instead (`end: "device"`). Every call starts from
    the random state the test's own call had, so an operator that draws random numbers gives the
    same answer in every process.

    A call the host takes longer to queue than the GPU takes to run (a small operator behind a
    Python wrapper) would be timed by how fast this process's thread queued it, which differs
    from one process to the next by more than the kernel's own time. Where the start event has
    already passed when the call returns (the GPU waited on the host), the stream is held
    instead: a spin kernel (torch.cuda._sleep) queued before the start event, long enough for
    the whole call to be queued behind it, so the events see the GPU's work alone. Such a
    repetition is not counted and the hold grows (`hold_ms`); a call that still finds its start
    passed with the longest hold waits on the GPU itself (a .item(), a copy to the host): it is
    timed without a hold and reported `host_bound`."""

    def __init__(self, torch, params, ops=None, np=None, watch=None, marks=None,
                 persisting_l2=None, stream=None):
        self.torch = torch
        self._watch = watch if watch is not None else RuntimeWatch(torch)
        # Taken before the operator code runs: patching torch.cuda.Event.elapsed_time or
        # torch.cuda.synchronize later does not reach these references.
        self._event = torch.cuda.Event
        self._record = torch.cuda.Event.record
        self._elapsed = torch.cuda.Event.elapsed_time
        self._sync = torch.cuda.synchronize
        self._zero = torch.Tensor.zero_
        self._tensor = torch.Tensor
        self._query = getattr(torch.cuda.Event, "query", None)
        self._spin = getattr(torch.cuda, "_sleep", None)
        # The longest hold: what a call may take the host to queue and still be timed as GPU
        # work alone. Longer, and a candidate's work on a stream of its own would get that much
        # GPU time before the start event unseen.
        self.max_hold_ms = float(params.get("max_hold_ms", 2.0))
        self._cycles_per_ms = None
        self.warmup = int(params.get("warmup", 3))
        self.reps = int(params.get("reps", 30))
        self.min_reps = max(1, min(self.reps, int(params.get("min_reps", 5))))
        self.budget_s = float(params.get("max_ms_per_site", 2000)) / 1000.0
        # A tail above this is more than a thread waking from a synchronize (tens of µs).
        self.side_work_ms = float(params.get("side_work_ms", 0.2))
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = int(getattr(props, "L2_cache_size", 0) or 0)
        flush = int(params.get("flush_bytes", 0) or 0) or max(2 * l2, 256 << 20)
        self.flush_bytes = flush
        self.l2_bytes = l2
        self.flush_buffer = torch.empty(flush // 4, dtype=torch.int32, device="cuda")
        # After the buffer: torch's context is current on this thread by now.
        self.persisting_l2 = persisting_l2 if persisting_l2 is not None else PersistingL2()
        self.check = CallCheck(ops if ops is not None else TorchOps(torch, np),
                               params.get("check") or {})
        # Where each timed call's key comes from, and where what it gave is committed: the
        # judge (CallStream), or the request's seed (LocalKeys, runs by hand and tests).
        self.stream = stream if stream is not None else LocalKeys(self.check.secret)
        self.tamper = None  # run() hands it its Tamper, looked at after every timed call
        self.sites = []
        # Resolved here, before the operator code runs, like the references above.
        self.marks = (marks if marks is not None else CallMarks()) if params.get("cupti") \
            else None

    def measure(self, name, fn, args, kwargs, reset=None):
        reset = reset or (lambda: None)
        check = self.check
        index = len(self.sites)
        marks = self.marks if self.marks is not None and self.marks.active else None
        timed_fn = fn
        if marks is not None:
            fn = marks.untimed(index, fn)  # every call but the timed ones below
        result = fn(*args, **kwargs)
        self._sync()
        moved = tensor_bytes(list(args) + list(kwargs.values()) + [result], self._tensor)
        values = call_values(fn, args, kwargs, result, self._tensor)
        for _ in range(self.warmup):  # on copies too: the test's own tensors stay as it left them
            a, k, _ = check.inputs(args, kwargs, (), index, "warmup")
            reset()
            fn(*a, **k)
        self._sync()
        plan = check.site_plan(index, fn, args, kwargs, reset)
        reps = self.reps if plan["reps"] is None else max(1, min(self.reps, plan["reps"]))
        min_reps = min(self.min_reps, reps)
        samples, device, tails, outputs, changed = [], [], [], [], []
        watched = set()
        kept = 0  # bytes of this site's timed outputs in the blob
        hold, host_bound, held_once, not_counted, strikes = 0.0, False, False, 0, 0
        stream = self.stream
        keyed, key = -1, None  # the repetition whose key is in hand (a retry keeps it)
        started = _clock()
        while len(samples) < reps:
            if keyed != len(samples):
                keyed, key = len(samples), stream.key(index, len(samples))
            a, k, changed = check.inputs(args, kwargs, plan["perturb"], index, len(samples),
                                         key)
            start = self._event(enable_timing=True)
            end = self._event(enable_timing=True)
            after = self._event(enable_timing=True)
            reset()
            self._sync()
            self.persisting_l2()
            self._zero(self.flush_buffer)
            if hold > 0:
                self._spin(self._cycles(hold))
            # The call's window (--cupti) brackets the events, so that reading the profiler's
            # clock never sits between an event and the call it times.
            t0 = marks.now() if marks is not None else 0
            self._record(start)
            queued = _clock()
            out = timed_fn(*a, **k)
            # Queued right behind the call's work. An end recorded only after the synchronize
            # timed how fast this process's thread woke up and queued it: tens of µs that differ
            # from one process to the next, which made an operator's self-speedup 0.5 or 1.2.
            self._record(end)
            host_ms = (_clock() - queued) * 1000.0
            t1 = marks.now() if marks is not None else 0
            waited = self._query is not None and bool(self._query(start))
            self._sync()
            self._record(after)
            self._sync()
            if waited and not host_bound and self._spin is not None:
                # The GPU reached the start before the call was queued: this repetition is done
                # again (same inputs) with the stream held longer.
                if hold < self.max_hold_ms:
                    hold = min(self.max_hold_ms, max(2 * hold, 1.5 * host_ms + 0.02))
                elif not held_once:
                    # The longest hold has not covered a call yet. Three times in a row: the
                    # call waits on the GPU itself (a hold is only waited out inside it). Fewer
                    # can be the host being slow once (the H100 showed single calls of 1-2 ms).
                    strikes += 1
                    if strikes >= 3:
                        hold, host_bound = 0.0, True
                if not host_bound and not_counted < 2 * reps:
                    not_counted += 1
                    if marks is not None:
                        marks.calls.append([index, -1, t0, t1])
                    del out, a, k
                    continue
            held_once = held_once or (hold > 0 and not waited)
            strikes = 0
            rep = len(samples)
            if marks is not None:
                marks.calls.append([index, rep, t0, t1])
            samples.append(float(self._elapsed(start, end)))
            device.append(float(self._elapsed(start, after)))
            tails.append(float(self._elapsed(end, after)))
            # Committed now: the report's samples must say the same at the end.
            sample_key = stream.done(index, rep, samples[-1], device[-1])
            watched.update(self._watch.seen())
            if self.tamper is not None:
                self.tamper.note()
            value = observation(out, a, k, plan["observe"], check.ops.is_tensor)
            del out, a, k
            if check.plan is None and rep == 0:
                # What this process and the judge hold stays bounded: which calls keep their
                # whole output and how much of it the others keep, decided here from the shapes
                # and handed on in the plan to every later process.
                reps = check.split(plan, value, reps, min_reps)
            outputs.append(check.keep(value, index, rep, plan, kept, sample_key))
            start_at = outputs[-1]["offset"]
            stream.kept(index, rep,
                        digest(bytes(check.blob[start_at:start_at + outputs[-1]["data_bytes"]])))
            kept += outputs[-1]["data_bytes"]
            del value
            if len(samples) >= min_reps and _clock() - started > self.budget_s:
                break
        tail = sorted(tails)[len(tails) // 2] if tails else 0.0
        side_work = tail > self.side_work_ms
        self.sites.append({"entry": name, "index": index,
                           "samples_ms": device if side_work else samples,
                           "end": "device" if side_work else "stream", "tail_ms": tail,
                           "hold_ms": hold, "host_bound": host_bound, "not_counted": not_counted,
                           "bytes": moved, "values": values,
                           "check": {"mode": plan["mode"], "reason": plan["reason"],
                                     "perturbed": changed, "observed": plan["observe"],
                                     "probe": plan["probe"],
                                     "whole": len(outputs) if plan["whole"] is None
                                     else min(len(outputs), plan["whole"]),
                                     "sample": plan["sample"], "outputs": outputs}})
        if watched:
            self.sites[-1]["watch"] = sorted(watched)
        return result

    def _cycles(self, ms):
        """GPU clock cycles of a spin of `ms`, from one timed spin (the clock as it runs now)."""
        if self._cycles_per_ms is None:
            probe = 1 << 20
            a, b = self._event(enable_timing=True), self._event(enable_timing=True)
            self._sync()
            self._record(a)
            self._spin(probe)
            self._record(b)
            self._sync()
            self._cycles_per_ms = probe / max(float(self._elapsed(a, b)), 1e-3)
        return max(1, int(ms * self._cycles_per_ms))


# ---------------------------------------------------------------------------------------------
# The zero fill: for an operator whose own test reads memory it never set (the judge's table of
# known test defects, src/eval/triton_defect_table.cpp), the torch.empty family returns zeros.

ZERO_FILL_FUNCTIONS = ("empty", "empty_like", "empty_strided")   # torch.X
ZERO_FILL_METHODS = ("new_empty", "new_empty_strided")           # torch.Tensor.X


class ZeroFill:
    """Patches torch.empty, empty_like, empty_strided and Tensor.new_empty(_strided) so that each
    returns its tensor filled with zeros (under no_grad, so a leaf that requires grad stays a
    leaf), on whatever device it was made. install() before the operator code runs, remove()
    when the test is done. `report` is what goes back to the judge: the functions patched and
    how often each was called."""

    def __init__(self, torch):
        self.torch = torch
        self.saved = []  # (owner, name, the attribute as it was, whether owner held it itself)
        self.calls = {}
        self.report = {"patched": [], "calls": self.calls}

    def _zeroing(self, label, original):
        torch, calls = self.torch, self.calls

        def zeroed(*args, **kwargs):
            out = original(*args, **kwargs)
            if isinstance(out, torch.Tensor):
                with torch.no_grad():
                    out.zero_()
            calls[label] = calls.get(label, 0) + 1
            return out

        zeroed.__name__ = getattr(original, "__name__", label.rsplit(".", 1)[-1])
        zeroed.__doc__ = getattr(original, "__doc__", None)
        return zeroed

    def install(self):
        torch = self.torch
        for owner, prefix, names in ((torch, "torch.", ZERO_FILL_FUNCTIONS),
                                     (torch.Tensor, "torch.Tensor.", ZERO_FILL_METHODS)):
            for name in names:
                original = getattr(owner, name, None)
                if original is None:
                    continue
                own = name in getattr(owner, "__dict__", {})
                self.saved.append((owner, name, original, own))
                setattr(owner, name, self._zeroing(prefix + name, original))
                self.report["patched"].append(prefix + name)

    def remove(self):
        for owner, name, original, own in reversed(self.saved):
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)  # inherited: the class's own entry goes again
        self.saved = []


# ---------------------------------------------------------------------------------------------
# One run.


def zero_fill(torch):
    if torch is None:
        raise StageError("setup", RuntimeError("the zero fill needs torch"))
    return ZeroFill(torch)


def import_optional(name):
    try:
        return __import__(name)
    except Exception:  # noqa: BLE001 - absent or broken: the run goes on without it
        return None


def run_code(code, path, ns, stage):
    try:
        compiled = compile(code, path, "exec", dont_inherit=True)
    except SyntaxError as e:
        raise StageError("syntax" if stage == "import" else "test_syntax", e)
    try:
        exec(compiled, ns)
    except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
        raise StageError(stage, e)


def execute(request, torch, np, timer, recorder=None, fill=None):
    """One pass: operator code, then test code, in a fresh namespace. Returns (results, source,
    entries). `fill` (a ZeroFill) is installed before the operator code runs and removed when
    the test's results are in hand."""
    if fill is None:
        return _execute(request, torch, np, timer, recorder)
    fill.install()
    try:
        return _execute(request, torch, np, timer, recorder)
    finally:
        fill.remove()


def _execute(request, torch, np, timer, recorder):
    rng = Rng(torch, np)
    seed = int(request.get("seed", 0))
    with open(request["candidate_path"], encoding="utf-8") as f:
        code = f.read()
    with open(request["test_path"], encoding="utf-8") as f:
        test_code = f.read()
    try:
        test_tree = ast.parse(test_code, request["test_path"])
    except SyntaxError as e:
        raise StageError("test_syntax", e)
    ns = {"__name__": "__main__", "__builtins__": builtins, "__file__": request["candidate_path"]}
    rng.seed(seed)
    marks = timer.marks if timer is not None and timer.marks is not None else None
    t0 = marks.now() if marks is not None and marks.active else None
    run_code(code, request["candidate_path"], ns, "import")
    if t0 is not None:
        marks.imported = [t0, marks.now()]  # the operator code's own setup: a window too
    entries = Entries(rng, timer, recorder)
    test_binds = names_bound_by(test_tree)
    entries.install(ns, names_loaded_by(test_tree) - test_binds, torch,
                    attribute_calls(test_tree))
    shadowed = sorted(n for n in test_binds if n in ns and defined_in_main(ns[n]))
    source = find_result_source(test_tree)
    rng.seed(seed)  # the inputs come from here: the same for every run on this seed
    run_code(test_code, request["test_path"], ns, "call")
    if source is None:
        raise StageError("result", LookupError(
            "the test code neither assigns the result of a test function nor defines one to call"))
    if source[0] == "variable":
        if source[1] not in ns:
            raise StageError("result", NameError("the test code never set '%s'" % source[1]))
        results = ns[source[1]]
    else:
        try:
            results = ns[source[1]]()
        except BaseException as e:  # noqa: BLE001
            raise StageError("call", e)
    return results, source[2], entries, shadowed


def environment(torch):
    env = {"python": sys.version.split()[0]}
    if torch is not None and hasattr(torch, "__version__"):
        env["torch"] = torch.__version__
        env["cuda"] = str(torch.version.cuda)
        if torch.cuda.is_available():
            env["gpu"] = torch.cuda.get_device_name(torch.cuda.current_device())
    triton = sys.modules.get("triton") or (import_optional("triton") if torch else None)
    if triton is not None:
        env["triton"] = getattr(triton, "__version__", "?")
    return env


def run(request, modules=None, stream=None):
    """The whole run: (record, data). `modules` (torch, np), or (torch, np, ops) with the
    timed-call check's tensor operations (TorchOps), lets tests pass fakes. `stream` is the
    judge's per-call channel (CallStream); None: keys from the request (LocalKeys)."""
    record = {"protocol": PROTOCOL, "nonce": request.get("nonce", ""), "status": "ok"}
    seconds = {}
    data = b""
    tamper = Tamper()  # before any operator code runs
    tamper.watch("stream", stream)
    try:
        t0 = _clock()
        if modules is None:
            try:
                torch = __import__("torch")
            except BaseException as e:  # noqa: BLE001
                # Only the judge's own CPU tests ask to go on without torch (pure-Python
                # operators returning Python numbers): a real run needs it.
                if request.get("require_torch", True):
                    raise StageError("setup", e)
                torch = None
            np = import_optional("numpy")
            ops = None
        else:
            torch, np, ops = (tuple(modules) + (None,))[:3]
        seconds["setup"] = _clock() - t0
        modes = request.get("modes", ["test"])
        record["env"] = environment(torch)
        # Before any operator code runs (environment() has imported triton): the baseline of
        # what may run beside the timed calls.
        watch = RuntimeWatch(torch) if torch is not None else None
        if ops is None and torch is not None:
            ops = TorchOps(torch, np)
        tamper.watch("check's tensor operations", ops)
        tamper.watch("watch", watch)
        # The zero fill, for test and timed runs alike: in timed ones memory the test never set
        # would otherwise differ from one process to the next, and so would the timed outputs
        # the judge compares. The fill's time counts on both sides alike.
        fill = zero_fill(torch) if request.get("zero_fill", False) else None
        if fill is not None:
            record["zero_fill"] = fill.report
        if "test" in modes:
            t0 = _clock()
            try:
                keep = entry_args_request(request.get("entry_args"))
            except ValueError as e:
                raise StageError("setup", e)
            if keep is not None and ops is None:
                raise StageError("setup", RuntimeError("keeping entry arguments needs torch"))
            recorder = CallRecorder(ops, keep=keep, stream=stream) if ops is not None else None
            tamper.watch("recorder", recorder)
            if keep is not None:
                record["entry_args"] = recorder.kept
            results, source, entries, shadowed = execute(request, torch, np, None, recorder,
                                                         fill)
            seconds["test"] = _clock() - t0
            record["result_source"] = source
            record["entries"] = entries.wrapped
            record["calls"] = entries.counts
            if shadowed:
                record["shadowed"] = shadowed
            try:
                out, data = encode_results(results, torch_tensor_parts(torch, np))
            except BaseException as e:  # noqa: BLE001
                raise StageError("result", e)
            record["outputs"] = {"entries": out, "data_bytes": len(data)}
            if recorder is not None:
                # What the calls gave follows the test's outputs in the blob.
                for call in recorder.calls:
                    if call["outputs"] is not None:
                        call["outputs"]["offset"] += len(data)
                data = data + bytes(recorder.blob)
                record["call_outputs"] = recorder.calls
        if "time" in modes:
            t0 = _clock()
            try:
                timer = CudaTimer(torch, request.get("timing", {}), ops=ops, np=np,
                                  watch=watch, stream=stream)
            except BaseException as e:  # noqa: BLE001
                raise StageError("setup", e)
            for name, obj in (("timer", timer), ("check", timer.check),
                              ("marks", timer.marks), ("persisting L2", timer.persisting_l2)):
                tamper.watch(name, obj)
            timer.tamper = tamper
            record["env"]["persisting_l2"] = timer.persisting_l2.describe()
            try:
                _, source, entries, _ = execute(request, torch, np, timer, None, fill)
            except StageError as e:
                if e.stage == "call":
                    e.stage = "time"
                raise
            # The timed calls' outputs follow the test's in the blob; offsets count from its start.
            for site in timer.sites:
                for rep in site["check"]["outputs"]:
                    rep["offset"] += len(data)
            data = data + bytes(timer.check.blob)
            record["timing"] = {
                "flush_bytes": timer.flush_bytes, "l2_bytes": timer.l2_bytes,
                "persisting_l2_resets": timer.persisting_l2.resets,
                "warmup": timer.warmup, "reps": timer.reps, "sites": timer.sites,
                "calls": entries.counts,
            }
            if timer.marks is not None:
                # After the last timed call's synchronize: the record holds all of its work.
                record["cupti"] = timer.marks.report()
            seconds["time"] = _clock() - t0
    except StageError as e:
        record["status"] = "error"
        record["error"] = describe_exception(e.stage, e.exc)
        data = b""
        record.pop("outputs", None)
        record.pop("call_outputs", None)
    except BaseException as e:  # noqa: BLE001 - the runner's own fault
        record["status"] = "error"
        record["error"] = describe_exception("runner", e)
        data = b""
        record.pop("outputs", None)
        record.pop("call_outputs", None)
    record["seconds"] = seconds
    changed = tamper.changes()
    if changed:
        record["tampered"] = changed
    return record, data


def channel_bytes(record, data):
    """The channel's content: one line of JSON (no raw newline: json.dumps escapes them), then
    the data the entries' offsets point into."""
    record = dict(record)
    record["data_bytes"] = len(data)
    return _dumps(record).encode("utf-8") + b"\n" + data


def read_fd(fd):
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def write_all(fd, payload):
    view = memoryview(payload)
    while view:
        n = _os_write(fd, view)
        view = view[n:]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--request-fd", type=int)
    parser.add_argument("--result-fd", type=int)
    parser.add_argument("--request")
    parser.add_argument("--output-dir")
    parser.add_argument("--go-fd", type=int)
    parser.add_argument("--stream-fd", type=int)
    args = parser.parse_args(argv)
    if (args.request_fd is None) == (args.request is None):
        parser.error("give exactly one of --request-fd and --request")
    if (args.result_fd is None) == (args.output_dir is None):
        parser.error("give exactly one of --result-fd and --output-dir")

    early = {}
    if args.go_fd is not None:
        # Started ahead of its turn (the judge's timed rounds): the imports, most of a timing
        # process's time, run while the process before it is timing. Nothing here touches the
        # GPU (torch and triton start CUDA lazily); the request is written just before the go.
        t0 = _clock()
        for name in ("torch", "numpy", "triton"):
            import_optional(name)
        t1 = _clock()
        go = os.read(args.go_fd, 1)
        os.close(args.go_fd)
        if go != b"g":
            os._exit(0)  # cancelled: its turn will not come
        early = {"preload": t1 - t0, "wait": _clock() - t1}
    if args.request_fd is not None:
        raw = read_fd(args.request_fd)
        os.close(args.request_fd)
    else:
        with open(args.request, "rb") as f:
            raw = f.read()
    request = json.loads(raw.decode("utf-8"))
    result_fd = None
    if args.result_fd is not None:
        # A descriptor of our own choosing, not inheritable (os.dup's default): processes the
        # operator code starts do not get it. The number the judge chose is closed.
        result_fd = os.dup(args.result_fd)
        os.close(args.result_fd)
    stream = None
    if args.stream_fd is not None:
        # The judge's per-call channel, likewise on a number of our own, not inheritable.
        stream = CallStream(os.dup(args.stream_fd))
        os.close(args.stream_fd)
    # What the operator code could read to find the channel easily, gone (see the module doc).
    sys.argv = [request.get("candidate_path", "candidate.py")]
    for key in [k for k in os.environ if k.startswith("KJUDGE_")]:
        del os.environ[key]

    # What the end of the run calls, held here before any operator code runs: rebinding the
    # module's names later does not reach this frame (Tamper reports it).
    finish, write, lseek, close, exit_ = channel_bytes, write_all, os.lseek, _os_close, _os_exit
    record, data = run(request, stream=stream)
    record.setdefault("seconds", {}).update(early)
    payload = finish(record, data)
    if result_fd is not None:
        lseek(result_fd, 0, os.SEEK_SET)
        write(result_fd, payload)
        close(result_fd)
    else:
        os.makedirs(args.output_dir, exist_ok=True)
        line, _, blob = payload.partition(b"\n")
        with open(os.path.join(args.output_dir, "record.json"), "wb") as f:
            f.write(line + b"\n")
        with open(os.path.join(args.output_dir, "outputs.bin"), "wb") as f:
            f.write(blob)
    sys.stdout.flush()
    # Exit without running the operator code's atexit handlers or finalizers: the report is
    # written, and nothing it left behind may change the exit status now.
    exit_(0)


if __name__ == "__main__":
    main(sys.argv[1:])
