"""A stand-in for torch, just large enough to drive the runner's whole run on a machine without
torch (test_run_fake.py): flat tensors of Python floats, a pretend CUDA device whose events read
the host clock, nn.Module with forward. What it proves is the runner's flow (stages, GPU phases,
pairs, checks, findings); what torch itself does is for test_run_torch.py on the GPU machine."""

import contextlib
import itertools
import math
import random
import sys
import threading
import time
import types

__version__ = "0.0-fake"
_ptr = itertools.count(1 << 20, 1 << 16)


class dtype:
    def __init__(self, name, size, floating):
        self.name, self.size, self.is_floating_point = name, size, floating

    def __repr__(self):
        return "torch." + self.name


float16 = dtype("float16", 2, True)
bfloat16 = dtype("bfloat16", 2, True)
float32 = dtype("float32", 4, True)
float64 = dtype("float64", 8, True)
int32 = dtype("int32", 4, False)
int64 = dtype("int64", 8, False)
bool_ = dtype("bool", 1, False)


class device:
    def __init__(self, kind):
        self.type = str(kind).split(":")[0]

    def __eq__(self, other):
        return isinstance(other, device) and other.type == self.type

    def __hash__(self):
        return hash(self.type)

    def __enter__(self):  # torch's default device, for what is made inside
        return self

    def __exit__(self, *exc):
        return False


class _Storage:
    def __init__(self, n, size):
        self.ptr, self.n = next(_ptr), n * size

    def data_ptr(self):
        return self.ptr

    def nbytes(self):
        return self.n


class Size(tuple):
    pass


class Tensor:
    def __init__(self, data, shape, dt=float32, dev="cpu", storage=None):
        self.data = list(data)
        self.shape = Size(shape)
        self.dtype = dt
        self.device = dev if isinstance(dev, device) else device(dev)
        self._storage = storage or _Storage(len(self.data), dt.size)

    # -- shape and memory --
    def numel(self):
        return len(self.data)

    def element_size(self):
        return self.dtype.size

    def untyped_storage(self):
        return self._storage

    def data_ptr(self):
        return self._storage.ptr

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        if tuple(shape) == (-1,):
            shape = (len(self.data),)
        return Tensor(self.data, shape, self.dtype, self.device, self._storage)

    view = reshape

    def __getitem__(self, idx):
        if isinstance(idx, Tensor):  # a permutation
            return Tensor([self.data[int(i)] for i in idx.data], (len(idx.data),), self.dtype,
                          self.device)
        raise TypeError("fake tensors index by a tensor only")

    def copy_(self, other):
        self.data[:] = other.data
        return self

    def clone(self):
        return Tensor(self.data, self.shape, self.dtype, self.device)

    def to(self, where=None):
        return Tensor(self.data, self.shape, self.dtype, where or self.device)

    def cuda(self):
        return self.to("cuda")

    def float(self):
        return Tensor(self.data, self.shape, float32, self.device)

    def double(self):
        return Tensor(self.data, self.shape, float64, self.device)

    def contiguous(self):
        return self

    def zero_(self):
        self.data[:] = [0.0] * len(self.data)
        return self

    # -- arithmetic --
    def _map(self, f, dt=None):
        return Tensor([f(x) for x in self.data], self.shape, dt or self.dtype, self.device)

    def _zip(self, other, f, dt=None):
        ys = other.data if isinstance(other, Tensor) else [other] * len(self.data)
        return Tensor([f(a, b) for a, b in zip(self.data, ys)], self.shape, dt or self.dtype,
                      self.device)

    def __mul__(self, o):
        return self._zip(o, lambda a, b: a * b)

    __rmul__ = __mul__

    def __add__(self, o):
        return self._zip(o, lambda a, b: a + b)

    def __sub__(self, o):
        return self._zip(o, lambda a, b: a - b)

    def __ne__(self, o):
        return self._zip(o, lambda a, b: a != b, bool_)

    def __invert__(self):
        return self._map(lambda a: not a, bool_)

    def abs(self):
        return self._map(abs)

    def max(self):
        return Tensor([max(self.data)], (), self.dtype, self.device)

    def sum(self):
        return Tensor([sum(float(x) for x in self.data)], (), float64, self.device)

    def item(self):
        return self.data[0]

    def clamp_min_(self, v):
        self.data[:] = [max(x, v) for x in self.data]
        return self


def is_tensor(x):
    return isinstance(x, Tensor)


def isfinite(t):
    return t._map(lambda a: math.isfinite(a), bool_)


def isclose(a, b, rtol, atol):
    return a._zip(b, lambda x, y: abs(x - y) <= atol + rtol * abs(y), bool_)


def relu(t):
    return t._map(lambda a: max(a, 0.0))


def sigmoid(t):
    return t._map(lambda a: 1 / (1 + math.exp(-a)))


_rng = random.Random(0)


def manual_seed(s):
    _rng.seed(int(s))


def rand(*shape):
    n = 1
    for d in shape:
        n *= d
    return Tensor([_rng.random() for _ in range(n)], shape)


def empty(n, dtype=float32, device="cpu"):
    # The timer's L2 flush buffer is 256 MiB: the stand-in keeps 16 of its values.
    return Tensor([0.0] * min(n, 16), (min(n, 16),), dtype, device)


def empty_like(t):
    return Tensor([0.0] * len(t.data), t.shape, t.dtype, t.device)


class Generator:
    def __init__(self, device=None):
        self.r = random.Random(0)

    def manual_seed(self, s):
        self.r.seed(int(s))


def randperm(n, generator=None, device=None):
    p = list(range(n))
    (generator.r if generator else _rng).shuffle(p)
    return Tensor(p, (n,), int64, device or "cpu")


@contextlib.contextmanager
def no_grad():
    yield


def compile(model):  # noqa: A001 - torch's name
    """As torch.compile's first use does: dynamo's hook on nn.Module.__init__ installed, a
    compile worker thread started (neither is the solution's doing)."""
    def init(self, *args, **kwargs):
        pass

    Module.__init__ = init
    threading.Thread(target=time.sleep, args=(3,), name="compile_worker", daemon=True).start()
    return model


class _Props:
    total_memory = 80 << 30
    L2_cache_size = 1 << 20


class _Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, other):
        return max((other.t - self.t) * 1000.0, 1e-6)

    def synchronize(self):
        pass


cuda = types.ModuleType("torch.cuda")
cuda.is_available = lambda: True
cuda.set_device = lambda d: None
cuda.current_device = lambda: 0
cuda.get_device_properties = lambda d: _Props()
cuda.get_device_name = lambda d=0: "Fake GPU"
cuda.set_per_process_memory_fraction = lambda f, d=0: None
cuda.synchronize = lambda *a: None
cuda.empty_cache = lambda: None
cuda.Event = _Event
version = types.SimpleNamespace(cuda="0.0")


class Module:
    def __call__(self, *args):
        return self.forward(*args)

    def cuda(self):
        return self


nn = types.ModuleType("torch.nn")
nn.Module = Module
nn.functional = types.ModuleType("torch.nn.functional")
nn.functional.relu = relu
_C = types.SimpleNamespace()
backends = types.SimpleNamespace(
    cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False)),
    cudnn=types.SimpleNamespace(allow_tf32=True, benchmark=False, deterministic=False,
                                enabled=True))
library = types.SimpleNamespace(_impls=set())


def install():
    """This module as `torch` (and torch.nn, torch.cuda) for the process."""
    me = sys.modules[__name__]
    sys.modules["torch"] = me
    sys.modules["torch.nn"] = nn
    sys.modules["torch.cuda"] = cuda
    sys.modules["torch.nn.functional"] = nn.functional
    return me
