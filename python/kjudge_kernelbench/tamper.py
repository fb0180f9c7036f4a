"""The tamper check: a snapshot, taken before any solution code runs, of the runner's own code
(every module of this package: its names, its classes' attributes, what each function runs) and
of the functions its live objects hold (the control channel's, the timer's); what the solution
rebound is reported ("tampered") and the judge refuses the run.
"""

import sys
import types

from . import MODULES


def function_body(v):
    """What a Python function runs, beyond its identity: its code, defaults and closure cells
    (each replaceable in place); for a bound method its function's and its object; None for
    what has none (a builtin)."""
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


def runner_modules():
    package = __name__.rpartition(".")[0]
    names = [package] + ["%s.%s" % (package, name) for name in MODULES]
    return [sys.modules[name] for name in names if name in sys.modules]


def runner_snapshot():
    """The names of the runner's modules and of their own classes, with the objects they hold
    now, the live namespaces they are read from, and what each function among them runs."""
    spaces = []
    for module in runner_modules():
        names = vars(module)
        spaces.append((module.__name__.rpartition(".")[2] + ".", names))
        for name, value in list(names.items()):
            if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
                spaces.append((name + ".", value.__dict__))
    return [(prefix, space, dict(space), {k: function_body(v) for k, v in space.items()})
            for prefix, space in spaces]


def runner_changes(snapshot):
    """The names of the snapshot whose object is no longer the one taken (rebound, deleted), or
    whose function runs other code now."""
    missing = object()
    out = []
    for prefix, space, was, bodies in snapshot:
        for key, value in was.items():
            now = space.get(key, missing)
            if (now is not value or function_body(now) != bodies[key]) and prefix + key not in out:
                out.append(prefix + key)
    return out


class Tamper:
    def __init__(self):
        self._runner = runner_snapshot()
        self._objects = []
        self._seen = []

    def watch(self, name, obj):
        """Also watch what `obj` holds (its callables), and its class."""
        if obj is None:
            return
        held = {k: v for k, v in vars(obj).items() if callable(v)} if hasattr(obj, "__dict__") \
            else {}
        self._objects.append((name, obj, type(obj), held,
                              {k: function_body(v) for k, v in held.items()}))

    def note(self):
        """Looks now, so that a change made for a while and undone later still counts."""
        for change in self._changes_now():
            if change not in self._seen:
                self._seen.append(change)

    def changes(self):
        self.note()
        return self._seen[:32]

    def _changes_now(self):
        out = ["runner's %s replaced" % n for n in runner_changes(self._runner)]
        missing = object()
        for name, obj, cls, held, bodies in self._objects:
            if type(obj) is not cls:
                out.append("the runner's %s changed its class" % name)
                continue
            now = vars(obj) if hasattr(obj, "__dict__") else {}
            for key, value in held.items():
                if now.get(key, missing) is not value or function_body(value) != bodies[key]:
                    out.append("the runner's %s.%s replaced" % (name, key))
        return out
