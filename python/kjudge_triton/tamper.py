"""The tamper check: a snapshot, taken before any operator code runs, of the runner's own code
(every module of this package: its names, its classes' attributes, what each function runs) and
of the functions its live objects hold; what the operator code rebound is reported
("tampered") and the judge refuses the run.
"""

import sys
import types

from . import MODULES


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


def runner_modules():
    """The runner's own modules: this package and every module of it that is loaded (the entry
    imports them all before any operator code runs), in the package's order (MODULES)."""
    package = __name__.rpartition(".")[0]
    names = [package] + ["%s.%s" % (package, name) for name in MODULES]
    return [sys.modules[name] for name in names if name in sys.modules]


def runner_snapshot():
    """The names of the runner's modules (runner_modules) and their own classes' attributes, with
    the objects they hold now and the live namespaces they are read from (a module's dict, a
    class's mappingproxy), and what each function among them runs (function_body). A module's
    names are listed bare, as when the runner was one module: a name another module imported
    (`_clock`) is one entry per module, and runner_changes names it once."""
    spaces = []
    for module in runner_modules():
        names = vars(module)
        spaces.append(("", names))
        for name, value in list(names.items()):
            if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
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
            if (now is not value or function_body(now) != bodies[key]) and \
                    prefix + key not in out:
                out.append(prefix + key)
    return out


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
