#!/usr/bin/env python3
"""kjudge's own harness for GPU MODE's Python tasks (`lang: py`), the script the judge starts
(src/task/run.cpp): a thin entry that loads the package python/kjudge_gpumode/ from this
script's own folder and calls its main, as the checker or as the worker:

    python3 -I -B kjudge_gpumode_runner.py MODE CASES_FILE submission=NAME [k=v ...]  (checker)
    python3 -I -B kjudge_gpumode_runner.py worker submission=NAME fds=R,W               (worker)

The checker is started by the judge in the sandbox, with the result channel; it starts the
worker itself (kjudge_gpumode/checker.py says how and why). The package is imported from this
script's real folder before anything of the task or the submission runs, and the folder is
taken off sys.path again (the same loading as kjudge_triton_runner.py, which explains it).
"""

import os
import sys


def _load(module):
    here = os.path.dirname(os.path.realpath(__file__))
    write_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    sys.path.insert(0, here)
    try:
        package = __import__("kjudge_gpumode")
        for name in package.MODULES:
            __import__("kjudge_gpumode." + name)
    finally:
        if here in sys.path:
            sys.path.remove(here)
        sys.dont_write_bytecode = write_bytecode
    loaded = os.path.realpath(getattr(package, "__file__", None) or "?")
    if loaded != os.path.join(here, "kjudge_gpumode", "__init__.py"):
        raise ImportError("the harness's package was loaded from %s, not from %s" % (loaded, here))
    return sys.modules["kjudge_gpumode." + module]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        sys.exit(_load("worker").main(sys.argv[2:], os.path.realpath(__file__)))
    sys.exit(_load("checker").main(sys.argv[1:], os.path.realpath(__file__)))
