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
  time      time the operator calls (mode "time" only)

Honest limit: the operator code runs in this very process. Nothing here can stop code that is
determined to reach the runner's objects (gc, sys.modules, /proc/self/fd) and forge its report;
see docs/triton.md for what the channel does protect against.
"""

import argparse
import ast
import builtins
import inspect
import json
import os
import random
import struct
import sys
import time
import traceback
import types

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


def encode_results(value, tensor_parts):
    """(entries, data): the manifest entries and the concatenated little-endian data."""
    if sys.byteorder != "little":
        raise RuntimeError("the runner writes little-endian data and this machine is big-endian")
    entries = []
    data = bytearray()
    for name, leaf in unique_names(flatten(value)):
        entry = {"name": name}
        parts = tensor_parts(leaf)
        if parts is not None:
            dtype, shape, raw, is_complex = parts
            entry.update({"kind": "tensor", "dtype": dtype, "shape": shape})
            if is_complex:
                entry["complex"] = True  # stored as real, imaginary in a last axis of 2
            if raw is None:
                entry["kind"] = "other"
                entry["type"] = "tensor of dtype " + dtype
            else:
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
    """Wraps the operator's entry points; counts calls; hands outermost calls to a timer."""

    def __init__(self, rng, timer=None):
        self.rng = rng
        self.timer = timer
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
                        result = entries.timer.measure(name, fn, args, kwargs)
                    else:
                        result = fn(*args, **kwargs)
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

    def install(self, ns, names, torch):
        """Replaces ns[name] (or a class's apply/__call__) for each name the test calls."""
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
# Timing: CUDA events around each call the test makes, L2 flushed before each repetition.


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


class CudaTimer:
    """Per call site (the n-th outermost entry call of the test): the call the test makes (its
    result goes back to the test), `warmup` untimed calls, then up to `reps` timed calls, all on
    fresh copies of the tensor arguments, each timed one after writing a buffer larger than L2. The time of one
    repetition runs from an event recorded after the flush was queued to an event recorded after
    torch.cuda.synchronize() (every stream of the device) returned."""

    def __init__(self, torch, params):
        self.torch = torch
        # Taken before the operator code runs: patching torch.cuda.Event.elapsed_time or
        # torch.cuda.synchronize later does not reach these references.
        self._event = torch.cuda.Event
        self._record = torch.cuda.Event.record
        self._elapsed = torch.cuda.Event.elapsed_time
        self._sync = torch.cuda.synchronize
        self._zero = torch.Tensor.zero_
        self._clone = torch.Tensor.clone
        self._tensor = torch.Tensor
        self.warmup = int(params.get("warmup", 3))
        self.reps = int(params.get("reps", 30))
        self.min_reps = max(1, min(self.reps, int(params.get("min_reps", 5))))
        self.budget_s = float(params.get("max_ms_per_site", 2000)) / 1000.0
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = int(getattr(props, "L2_cache_size", 0) or 0)
        flush = int(params.get("flush_bytes", 0) or 0) or max(2 * l2, 256 << 20)
        self.flush_bytes = flush
        self.l2_bytes = l2
        self.flush_buffer = torch.empty(flush // 4, dtype=torch.int32, device="cuda")
        self.sites = []

    def _fresh(self, value):
        if isinstance(value, self._tensor):
            return self._clone(value)
        if isinstance(value, (list, tuple)) and any(isinstance(v, self._tensor) for v in value):
            return type(value)(self._clone(v) if isinstance(v, self._tensor) else v for v in value)
        return value

    def measure(self, name, fn, args, kwargs):
        result = fn(*args, **kwargs)
        self._sync()
        moved = tensor_bytes(list(args) + list(kwargs.values()) + [result], self._tensor)
        values = call_values(fn, args, kwargs, result, self._tensor)
        for _ in range(self.warmup):  # on copies too: the test's own tensors stay as it left them
            fn(*[self._fresh(v) for v in args], **{k: self._fresh(v) for k, v in kwargs.items()})
        self._sync()
        samples = []
        started = time.perf_counter()
        for _ in range(self.reps):
            a = [self._fresh(v) for v in args]
            k = {key: self._fresh(v) for key, v in kwargs.items()}
            start = self._event(enable_timing=True)
            end = self._event(enable_timing=True)
            self._sync()
            self._zero(self.flush_buffer)
            self._record(start)
            fn(*a, **k)
            self._sync()
            self._record(end)
            self._sync()
            samples.append(float(self._elapsed(start, end)))
            if len(samples) >= self.min_reps and time.perf_counter() - started > self.budget_s:
                break
        self.sites.append({"entry": name, "index": len(self.sites), "samples_ms": samples,
                           "bytes": moved, "values": values})
        return result


# ---------------------------------------------------------------------------------------------
# One run.


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


def execute(request, torch, np, timer):
    """One pass: operator code, then test code, in a fresh namespace. Returns (results, source,
    entries)."""
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
    run_code(code, request["candidate_path"], ns, "import")
    entries = Entries(rng, timer)
    test_binds = names_bound_by(test_tree)
    entries.install(ns, names_loaded_by(test_tree) - test_binds, torch)
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


def run(request, modules=None):
    """The whole run: (record, data). `modules` (torch, np) lets tests pass fakes."""
    record = {"protocol": PROTOCOL, "nonce": request.get("nonce", ""), "status": "ok"}
    seconds = {}
    data = b""
    try:
        t0 = time.perf_counter()
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
        else:
            torch, np = modules
        seconds["setup"] = time.perf_counter() - t0
        modes = request.get("modes", ["test"])
        record["env"] = environment(torch)
        if "test" in modes:
            t0 = time.perf_counter()
            results, source, entries, shadowed = execute(request, torch, np, None)
            seconds["test"] = time.perf_counter() - t0
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
        if "time" in modes:
            t0 = time.perf_counter()
            try:
                timer = CudaTimer(torch, request.get("timing", {}))
            except BaseException as e:  # noqa: BLE001
                raise StageError("setup", e)
            try:
                _, source, entries, _ = execute(request, torch, np, timer)
            except StageError as e:
                if e.stage == "call":
                    e.stage = "time"
                raise
            record["timing"] = {
                "flush_bytes": timer.flush_bytes, "l2_bytes": timer.l2_bytes,
                "warmup": timer.warmup, "reps": timer.reps, "sites": timer.sites,
                "calls": entries.counts,
            }
            seconds["time"] = time.perf_counter() - t0
    except StageError as e:
        record["status"] = "error"
        record["error"] = describe_exception(e.stage, e.exc)
        data = b""
        record.pop("outputs", None)
    except BaseException as e:  # noqa: BLE001 - the runner's own fault
        record["status"] = "error"
        record["error"] = describe_exception("runner", e)
        data = b""
        record.pop("outputs", None)
    record["seconds"] = seconds
    return record, data


def channel_bytes(record, data):
    """The channel's content: one line of JSON (no raw newline: json.dumps escapes them), then
    the data the entries' offsets point into."""
    record = dict(record)
    record["data_bytes"] = len(data)
    return json.dumps(record, separators=(",", ":")).encode("utf-8") + b"\n" + data


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
        n = os.write(fd, view)
        view = view[n:]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--request-fd", type=int)
    parser.add_argument("--result-fd", type=int)
    parser.add_argument("--request")
    parser.add_argument("--output-dir")
    args = parser.parse_args(argv)
    if (args.request_fd is None) == (args.request is None):
        parser.error("give exactly one of --request-fd and --request")
    if (args.result_fd is None) == (args.output_dir is None):
        parser.error("give exactly one of --result-fd and --output-dir")

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
    # What the operator code could read to find the channel easily, gone (see the module doc).
    sys.argv = [request.get("candidate_path", "candidate.py")]
    for key in [k for k in os.environ if k.startswith("KJUDGE_")]:
        del os.environ[key]

    record, data = run(request)
    payload = channel_bytes(record, data)
    if result_fd is not None:
        os.lseek(result_fd, 0, os.SEEK_SET)
        write_all(result_fd, payload)
        os.close(result_fd)
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
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
