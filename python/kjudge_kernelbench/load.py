"""A problem's or a solution's source executed as a module of its own, from its file (so that
inspect, and so @triton.jit, find its source, as KernelBench's tempfile loading is for).
"""

import sys
import types

from .errors import StageError


def load_module(path, name, syntax_stage, run_stage, base=None):
    """The module `name` executed from `path`. A SyntaxError is `syntax_stage`'s failure, any
    other exception `run_stage`'s. `base`: names the module starts with (the reference's, for a
    solution: KernelBench executes a CUDA solution in the reference's namespace, so answers that
    use its names run here too)."""
    with open(path, "r", encoding="utf-8") as f:
        source = f.read()
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as e:
        raise StageError(syntax_stage, e) from None
    module = types.ModuleType(name)
    if base:
        for key, value in base.items():
            if not key.startswith("__"):
                module.__dict__[key] = value
    module.__file__ = path
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 - what the runner is for
    except BaseException as e:  # noqa: BLE001 - SystemExit too: a solution does not end the run
        raise StageError(run_stage, e) from None
    return module
