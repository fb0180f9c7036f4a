"""Entries: the operator's functions that the test code calls, wrapped so that each call the test
makes runs with its own copy of the RNG state (the inputs of later test cases do not depend on
how many random numbers the operator drew) and, in mode "time", is timed (timing.py), or in mode
"test" recorded (recorder.py).
"""

import random
import types

from .testcode import defined_in_main


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
