#!/usr/bin/env python3
"""What the runner's tests share: stand-ins for torch's tensors, its ops (FakeOps, the
check's) and the judge (FakeJudge), the way to write an operator and its test, and the
path of the entry script. Importing it first puts python/ on sys.path (the package
kjudge_triton, kjudge_gpu_peaks) and writes no bytecode into the source tree.
"""

import math
import os
import random
import struct
import sys
import tempfile
import threading
import types

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

from kjudge_triton import check, results, timing  # noqa: E402


RUNNER = os.path.join(PYTHON_DIR, "kjudge_triton_runner.py")


class FakeTensor:
    """Stands in for a torch tensor: a dtype name, a shape and raw little-endian bytes."""

    def __init__(self, dtype, shape, raw, is_complex=False):
        self.dtype, self.shape, self.raw, self.is_complex = dtype, shape, raw, is_complex


def fake_parts(v):
    if isinstance(v, FakeTensor):
        raw = v.raw if v.dtype in results.SUPPORTED_DTYPES else None
        return v.dtype, list(v.shape), raw, v.is_complex
    return None


class GarbageTensorBase:
    """A stand-in tensor made from memory nobody set: every element 7.5 until zero_()."""

    def __init__(self, n=0, requires_grad=False):
        self.values = [7.5] * n
        self.requires_grad = requires_grad
        self.zeroed_under_no_grad = False

    def zero_(self):
        self.values = [0.0] * len(self.values)
        self.zeroed_under_no_grad = GarbageTorch.grad_off
        return self

    def new_empty(self, n):
        return type(self)(n)


class GarbageTorch(types.ModuleType):
    """Just the torch.empty family, Tensor and no_grad: what ZeroFill touches."""

    grad_off = False

    def __init__(self, name="__kjfake_torch__"):
        super().__init__(name)
        self.__version__ = "fake"
        self.version = types.SimpleNamespace(cuda="none")
        self.cuda = types.SimpleNamespace(is_available=lambda: False,
                                          is_initialized=lambda: False)
        T = self.Tensor = type("Tensor", (GarbageTensorBase,), {
            "new_empty_strided": lambda self, n, stride: type(self)(n)})
        self.empty = lambda n, requires_grad=False: T(n, requires_grad)
        self.empty_like = lambda t: T(len(t.values))
        self.empty_strided = lambda n, stride: T(n)
        self.manual_seed = lambda s: None
        self.get_rng_state = lambda: None
        self.set_rng_state = lambda s: None

    class no_grad:
        def __enter__(self):
            GarbageTorch.grad_off = True

        def __exit__(self, *exc):
            GarbageTorch.grad_off = False


# The check of every timed call, with a stand-in for torch: tensors are lists of floats, and
# FakeOps does what TorchOps does with them (TorchOpsTest below runs the real one where torch
# is installed).


class FT:
    """A stand-in tensor: a flat list of values, a dtype name, a device-less layout."""

    layout = "strided"
    is_quantized = False
    is_cuda = False

    def __init__(self, values, dtype="float32"):
        self.values = [float(v) for v in values] if dtype in check.FLOAT_DTYPES else list(values)
        self.dtype = dtype
        self.shape = (len(self.values),)

    def zero_(self):
        return self

    def numel(self):
        return len(self.values)


def kjfake_module():
    """A folder on sys.path with a module `kjfake` whose FT is this file's: the operator and
    test code of a whole run import it. Undone by forget_kjfake_module."""
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "kjfake.py"), "w") as f:
        f.write("import sys\nFT = sys.modules['__kjfake_ft__']\n")
    sys.modules["__kjfake_ft__"] = FT
    sys.path.insert(0, d)
    return d


def write_operator(d, candidate, test):
    """Writes an operator's code and its test code into `d`; returns their paths."""
    cand, tpath = os.path.join(d, "candidate.py"), os.path.join(d, "test.py")
    for path, text in ((cand, candidate), (tpath, test)):
        with open(path, "w") as f:
            f.write(text)
    return cand, tpath


def forget_kjfake_module(d):
    sys.path.remove(d)
    del sys.modules["__kjfake_ft__"]
    sys.modules.pop("kjfake", None)


class FakeOps:
    def __init__(self):
        self.made = []  # (seed, values) of every perturbed copy

    def is_tensor(self, v):
        return isinstance(v, FT)

    def dtype(self, t):
        return t.dtype

    def sync(self):
        pass

    def clone(self, t):
        return FT(t.values, t.dtype)

    def is_float(self, t):
        return t.dtype in check.FLOAT_DTYPES

    def perturbable(self, t):
        return self.is_float(t) and any(
            math.isfinite(v) and v != round(v) for v in t.values)

    def perturbed(self, t, seed, relative):
        rng = random.Random(seed)
        scale = 1 + (1 if rng.random() < 0.5 else -1) * relative * (0.5 + 0.5 * rng.random())
        out = FT([v * scale * (1 + relative * (2 * rng.random() - 1)) for v in t.values], t.dtype)
        self.made.append((seed, out.values))
        return out

    def same(self, a, b):
        return a.dtype == b.dtype and struct.pack("<%dd" % len(a.values), *a.values) == \
            struct.pack("<%dd" % len(b.values), *b.values)

    def finite(self, t):
        return all(math.isfinite(v) for v in t.values)

    def close(self, a, b, tolerance):
        if tolerance is None or a.dtype != b.dtype or len(a.values) != len(b.values):
            return self.same(a, b)
        rtol, atol = tolerance
        return all(abs(x - y) <= atol + rtol * abs(y) for x, y in zip(a.values, b.values))

    def parts(self, v):
        if isinstance(v, FT):
            return v.dtype, list(v.shape), struct.pack("<%df" % len(v.values), *v.values), False
        return None

    def encoded_size(self, v):
        return (len(v.values), 4) if isinstance(v, FT) else None

    def sample_positions(self, numel, count, seed):
        """TorchOps' stratified positions (one in each of `count` runs), from Python's
        generator."""
        rng = random.Random(seed)
        out = []
        for i in range(count):
            start, end = i * numel // count, (i + 1) * numel // count
            out.append(start + rng.randrange(end - start))
        return out

    def sampled_parts(self, v, count, seed):
        if not isinstance(v, FT):
            return None
        if len(v.values) <= count:
            return self.parts(v) + (None,)
        picked = [v.values[i] for i in self.sample_positions(len(v.values), count, seed)]
        return (v.dtype, list(v.shape), struct.pack("<%df" % count, *picked), False,
                {"elements": count, "seed": seed})


def fake_torch():
    """Just what CudaTimer (and run()) touch: events on a clock that advances 1 ms a record."""

    class Event:
        clock = [0.0]

        def __init__(self, enable_timing=False):
            self.t = None

        def record(self):
            Event.clock[0] += 1.0
            self.t = Event.clock[0]

        def elapsed_time(self, end):
            return end.t - self.t

    t = types.SimpleNamespace(
        __version__="fake", version=types.SimpleNamespace(cuda="none"), Tensor=FT, int32="int32",
        empty=lambda n, dtype=None, device=None: FT([]), manual_seed=lambda s: None,
        get_rng_state=lambda: None, set_rng_state=lambda s: None)
    t.cuda = types.SimpleNamespace(
        Event=Event, synchronize=lambda: None, current_device=lambda: 0,
        get_device_properties=lambda d: types.SimpleNamespace(L2_cache_size=1 << 20),
        is_available=lambda: False, is_initialized=lambda: False)
    return t


def decode(rep, blob):
    """{name: [values]} of one timed call's kept outputs."""
    out = {}
    for e in rep["entries"]:
        if e["kind"] != "tensor":
            out[e["name"]] = e["kind"]
            continue
        start = rep["offset"] + e["offset"]
        raw = blob[start:start + e["nbytes"]]
        out[e["name"]] = list(struct.unpack("<%df" % (len(raw) // 4), raw))
    return out


SECRET = 1234


TOL = {"float32": {"rtol": 1e-4, "atol": 1e-5}}


def timer(plan=None, reps=6, **check):
    params = {"warmup": 2, "reps": reps, "min_reps": 2, "max_ms_per_site": 60000,
              "check": dict({"seed": SECRET, "tolerances": TOL, "plan": plan}, **check)}
    return timing.CudaTimer(fake_torch(), params, ops=FakeOps())


def plan_of(t):
    """The plan the judge hands on from a reference's first timing process."""
    return [{"entry": s["entry"], "mode": s["check"]["mode"], "perturb": s["check"]["perturbed"],
             "observe": s["check"]["observed"], "probe": s["check"]["probe"],
             "reps": len(s["samples_ms"]), "whole": s["check"]["whole"],
             "sample": s["check"]["sample"]} for s in t.sites]


def add(x, y):
    return FT([a + b for a, b in zip(x.values, y.values)])


class StaleAdd:
    """The cheat: the right answer the first time a shape comes, that answer afterwards."""

    def __init__(self):
        self.cache = {}

    def __call__(self, x, y):
        key = x.shape
        if key not in self.cache:
            self.cache[key] = add(x, y)
        return self.cache[key]


class FakeDriver:
    """The four driver functions PersistingL2 takes, recording what they were asked; `most` is
    the device's persisting L2 in bytes, `fail` what cuCtxSetLimit returns."""

    def __init__(self, most=50 << 20, fail=0):
        self.calls = []

        def set_limit(limit, value):
            self.calls.append(("limit", limit, value))
            return fail

        def reset():
            self.calls.append(("reset",))
            return 0

        def get_device(ptr):
            ptr._obj.value = 0
            return 0

        def attribute(ptr, attr, device):
            self.calls.append(("attribute", attr, device))
            ptr._obj.value = most
            return 0

        self.cuCtxSetLimit, self.cuCtxResetPersistingL2Cache = set_limit, reset
        self.cuCtxGetDevice, self.cuDeviceGetAttribute = get_device, attribute


class FakeJudge:
    """The judge's end of the per-call channel (src/triton/runner/run.cpp, TritonStreamServer), in
    a thread: answers key and done in order with keys of its own, records every message, and
    says "refused" to anything out of turn. `refuse_at` refuses the n-th message whatever it is."""

    def __init__(self, refuse_at=None):
        import socket
        self.judge, runner = socket.socketpair()
        self.fd = runner.detach()
        self.messages = []
        self.refuse_at = refuse_at
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    @staticmethod
    def key(site, rep, kind="k"):
        return "%032x" % (hash((kind, site, rep)) & ((1 << 120) - 1) | 1)

    def serve(self):
        buf = b""
        while True:
            chunk = self.judge.recv(512)
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, _, buf = buf.partition(b"\n")
                words = line.decode().split()
                self.messages.append(words)
                if self.refuse_at is not None and len(self.messages) > self.refuse_at:
                    self.judge.sendall(b"refused\n")
                    return
                if words[0] == "key":
                    self.judge.sendall(("k %s\n" % self.key(int(words[1]), int(words[2]))).encode())
                elif words[0] == "done":
                    self.judge.sendall(("s %s\n" % self.key(int(words[1]), int(words[2]), "s")).encode())
                elif words[0] == "kept":
                    self.judge.sendall(("a %x\n" % int(words[2])).encode())
                elif words[0] == "call":
                    self.judge.sendall(("s %s\n" % self.key(0, int(words[1]), "s")).encode())

    def close(self):
        import socket
        self.judge.shutdown(socket.SHUT_RDWR)
        self.thread.join(5)
        self.judge.close()
        os.close(self.fd)
