"""One pass over the code: the operator code executed as module __main__, its entries wrapped,
the test code executed in the same namespace, and the test's results found.
"""

import ast
import builtins
import importlib.util
import sys
import types

from .entries import Entries, Rng
from .errors import StageError
from .testcode import (
    attribute_calls, defined_in_main, find_result_source, names_bound_by, names_loaded_by,
    self_imports)


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


def _importable(name):
    if name in sys.modules:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


class SelfModules:
    """The operator's own module under the names its test imports it by (testcode.self_imports),
    for the test's run: a module whose attributes are the operator namespace's, read when the
    import runs, so the test gets the wrapped entries, as a call by plain name would. The
    operator code runs once, as TritonBench's script runs it (its import there finds the file
    beside it). Names only: nothing importable is ever shadowed."""

    def __init__(self, names, ns):
        self.names = [n for n in names if n not in sys.modules]
        self.ns = ns

    def __enter__(self):
        ns = self.ns

        def lookup(attr):
            try:
                return ns[attr]
            except KeyError:
                raise AttributeError(attr) from None

        for name in self.names:
            m = types.ModuleType(name)
            m.__getattr__ = lookup
            sys.modules[name] = m
        return self

    def __exit__(self, *exc):
        for name in self.names:
            sys.modules.pop(name, None)
        return False


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
    own = self_imports(test_tree, ns, _importable)
    # A name the test takes from the operator's own module is the operator's, not the test's.
    test_binds = names_bound_by(test_tree) - {n for names in own.values() for n in names}
    entries.install(ns, names_loaded_by(test_tree) - test_binds, torch,
                    attribute_calls(test_tree))
    shadowed = sorted(n for n in test_binds if n in ns and defined_in_main(ns[n]))
    source = find_result_source(test_tree)
    rng.seed(seed)  # the inputs come from here: the same for every run on this seed
    with SelfModules(own, ns):
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
