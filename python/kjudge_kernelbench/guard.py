"""What the solution did to the torch the reference runs on, and what it left running.

TorchGuard: the functions of torch's Python namespaces (torch, torch.nn.functional, Tensor's
methods, every nn module's, torch.cuda, the linalg/fft/special namespaces) snapshotted before the
solution is imported; any of them rebound afterwards is reported (`torch_patched`: the reference
would run the solution's code, slowed or changed), as are ATen kernels registered from Python.
torch's settings (TF32, cuDNN's benchmark and deterministic modes, the float32 matmul precision)
are snapshotted too. The reference always runs on the torch it started with (reference_state:
its settings, and every function the solution rebound put back while it runs), the solution on
its own, and what it changed is reported (`flags_changed`, `torch_patched`): a reference slowed
or changed by the solution buys nothing even where the hack policy only flags it.

Watch: what the solution left running in this process (threads, torch function or dispatch
modes, trace and profile hooks): work done beside the timed calls.
"""

import contextlib
import sys
import threading


def _callables(space):
    return {k: v for k, v in list(space.items()) if callable(v)}


class TorchGuard:
    # (name, getter, setter): each of torch's settings that changes what a kernel computes or how
    # fast, as torch names it.
    def __init__(self, torch):
        self.torch = torch
        self._spaces = self._namespaces(torch)
        self._snap = [(name, owner, space, _callables(space))
                      for name, owner, space in self._spaces]
        self._impls = set(self._library_impls())
        self._seen = []
        self._flags = self._settings()
        self.defaults = {name: get() for name, get, _ in self._flags}

    @staticmethod
    def _namespaces(torch):
        out = []

        def add(name, obj):
            d = getattr(obj, "__dict__", None)
            if d is not None:
                out.append((name, obj, d))

        add("torch", torch)
        for sub in ("nn.functional", "cuda", "linalg", "fft", "special", "nn.init"):
            obj = torch
            for part in sub.split("."):
                obj = getattr(obj, part, None)
            if obj is not None:
                add("torch." + sub, obj)
        add("torch.Tensor", torch.Tensor)
        base = getattr(torch._C, "TensorBase", None) or getattr(torch._C, "_TensorBase", None)
        if base is not None:
            add("torch._C.TensorBase", base)
        for name in ("_nn", "_VariableFunctions", "_linalg", "_fft", "_special"):
            obj = getattr(torch._C, name, None)
            if obj is not None:
                add("torch._C." + name, obj)
        add("torch.nn.Module", torch.nn.Module)
        for name, cls in sorted(vars(torch.nn).items()):
            if isinstance(cls, type) and issubclass(cls, torch.nn.Module) and \
                    cls is not torch.nn.Module:
                add("torch.nn." + name, cls)
        return out

    def _library_impls(self):
        lib = getattr(self.torch, "library", None)
        impls = getattr(lib, "_impls", None)
        try:
            return list(impls) if impls is not None else []
        except Exception:  # noqa: BLE001 - a torch without it: nothing to compare
            return []

    def _settings(self):
        t = self.torch
        b = t.backends
        out = []

        def attr(name, obj, key):
            if obj is not None and hasattr(obj, key):
                out.append((name, lambda: getattr(obj, key), lambda v: setattr(obj, key, v)))

        matmul = getattr(getattr(b, "cuda", None), "matmul", None)
        attr("torch.backends.cuda.matmul.allow_tf32", matmul, "allow_tf32")
        attr("torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction", matmul,
             "allow_fp16_reduced_precision_reduction")
        attr("torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction", matmul,
             "allow_bf16_reduced_precision_reduction")
        cudnn = getattr(b, "cudnn", None)
        for key in ("allow_tf32", "benchmark", "deterministic", "enabled"):
            attr("torch.backends.cudnn." + key, cudnn, key)
        get = getattr(t, "get_float32_matmul_precision", None)
        put = getattr(t, "set_float32_matmul_precision", None)
        if get is not None and put is not None:
            out.append(("torch.float32_matmul_precision", get, put))
        return out

    def _changes_now(self):
        out = []
        for name, _, space, was in self._snap:
            for key, value in was.items():
                if space.get(key) is not value:
                    out.append("%s.%s" % (name, key))
        for impl in self._library_impls():
            if impl not in self._impls and str(impl).startswith("aten/"):
                out.append("an ATen kernel registered: %s" % impl)
        return out

    def note(self):
        """Looks now: a change made for a while and undone later still counts."""
        for c in self._changes_now():
            if c not in self._seen and len(self._seen) < 48:
                self._seen.append(c)

    def changes(self):
        """torch's functions rebound since the snapshot, and ATen kernels added from Python."""
        self.note()
        return list(self._seen)

    def adopt(self):
        """What torch itself rebound since the snapshot (torch.compile's first use installs
        dynamo's hooks, nn.Module.__init__ among them) taken into it: the judge's own compile is
        not the solution's doing. The caller notes what the solution did first (note())."""
        seen = set(self._seen)
        for name, _, space, was in self._snap:
            for key in list(was):
                now = space.get(key)
                if now is not was[key] and "%s.%s" % (name, key) not in seen and callable(now):
                    was[key] = now
        self._impls = set(self._library_impls()) | self._impls

    def flags_changed(self):
        out = []
        for name, get, _ in self._flags:
            try:
                now = get()
            except Exception:  # noqa: BLE001
                continue
            if now != self.defaults[name]:
                out.append("%s = %r (was %r)" % (name, now, self.defaults[name]))
        return out

    @contextlib.contextmanager
    def reference_state(self):
        """The reference's torch while it runs: its settings as they were before the solution ran,
        and every function the solution rebound put back; the solution's put back after."""
        saved = []
        for name, get, put in self._flags:
            try:
                now = get()
                if now != self.defaults[name]:
                    put(self.defaults[name])
                    saved.append((put, now))
            except Exception:  # noqa: BLE001
                continue
        rebound = []
        missing = object()
        for _, owner, space, was in self._snap:
            for key, value in was.items():
                now = space.get(key, missing)
                if now is not value:
                    try:
                        setattr(owner, key, value)
                        rebound.append((owner, key, now))
                    except Exception:  # noqa: BLE001 - a read-only attribute: left as it is
                        continue
        try:
            yield
        finally:
            for owner, key, now in reversed(rebound):
                try:
                    if now is missing:
                        delattr(owner, key)
                    else:
                        setattr(owner, key, now)
                except Exception:  # noqa: BLE001
                    continue
            for put, value in saved:
                put(value)


class Watch:
    """What is running now in this process that was not at the baseline (taken before any
    solution code runs): threads, torch modes, trace and profile hooks."""

    def __init__(self, torch, own_files=()):
        self._enumerate = threading.enumerate
        self._frames = sys._current_frames
        # A new thread counts when it runs the solution's code (a frame of its file on its stack,
        # or a target defined there): torch's own workers (inductor's, for a solution that calls
        # torch.compile) idle in torch's code and are not the solution's work.
        self.own_files = set(own_files)
        self._dummy = getattr(threading, "_DummyThread", ())
        self._gettrace, self._getprofile = sys.gettrace, sys.getprofile
        self._threads = set(self._enumerate())
        self._trace, self._profile = self._gettrace(), self._getprofile()
        c = getattr(torch, "_C", None) if torch is not None else None
        self._modes = [(what, getattr(c, name, None)) for what, name in (
            ("torch function mode", "_len_torch_function_stack"),
            ("torch dispatch mode", "_len_torch_dispatch_stack"))]
        self._seen = []

    def look(self):
        found = []
        frames = self._frames()
        for t in self._enumerate():
            # A dummy is a thread Python did not start (torch's own, for autograd).
            if t not in self._threads and not isinstance(t, self._dummy) and self._own(t, frames):
                found.append("thread %r" % t.name)
        for what, depth in self._modes:
            try:
                n = int(depth()) if depth is not None else 0
            except Exception:  # noqa: BLE001
                n = 0
            if n > 0:
                found.append(what)
        if self._gettrace() is not self._trace:
            found.append("sys.settrace hook")
        if self._getprofile() is not self._profile:
            found.append("sys.setprofile hook")
        for f in found:
            if f not in self._seen:
                self._seen.append(f)
        return found

    def _own(self, t, frames):
        if not self.own_files:
            return True
        code = getattr(getattr(t, "_target", None), "__code__", None)
        if code is not None and code.co_filename in self.own_files:
            return True
        f = frames.get(t.ident)
        depth = 0
        while f is not None and depth < 200:
            if f.f_code.co_filename in self.own_files:
                return True
            f, depth = f.f_back, depth + 1
        return False

    def seen(self):
        self.look()
        return self._seen[:32]

    def adopt(self):
        """Threads that torch itself started since the baseline (torch.compile's compile workers)
        taken into it. The caller looks first (look()), while only the solution's are running."""
        for t in self._enumerate():
            self._threads.add(t)
