#!/usr/bin/env python3
"""kjudge's TritonBench runner, the script the judge starts (src/triton/runner/run.cpp): a thin
entry that loads the runner's package, python/kjudge_triton/ beside it (what the runner does:
its __init__.py and python/README.md), and calls its main.

    python3 -I kjudge_triton_runner.py --request-fd R --result-fd W     (as the judge starts it)
    python3 -I kjudge_triton_runner.py --request FILE --output-dir DIR  (by hand, for debugging)

How the package is loaded, and why so:
- The judge starts the interpreter with -I (isolated): no PYTHON* variable, no user
  site-packages, and (Python 3.11+: -I implies -P) not even this script's folder on sys.path.
  So this script puts its own folder, resolved from its real path (never the current directory
  or the environment), at sys.path[0], imports the package and every one of its modules
  (kjudge_triton.MODULES), checks that the package came from that folder, and takes the folder
  off sys.path again.
- All of it happens before the request is read, so before any operator code runs in this
  process. The operator code cannot choose where the runner is loaded from, and no module of
  the runner is imported later, once it could have changed sys.path, sys.meta_path or the
  files it can write. It finds sys.path as the single-file runner left it: the runner's folder
  is not on it, so it cannot import the runner's neighbours (kjudge_gpu_peaks.py, ...).
- While the package loads, the folder is first on sys.path: no file in python/ may be named as
  a module the package imports (json.py, ...).
- What the operator code can reach is what the single-file runner exposed, in other places:
  the runner's objects were module __main__'s, they are now the package's modules in
  sys.modules (kjudge_triton.*, which `import kjudge_triton` also finds: the static pass flags
  code that names it, as it flags __main__ and sys.modules, code_patch); this script's own
  names (_load_main) play no part once main runs. The tamper check (kjudge_triton/tamper.py)
  snapshots every module of the package, as it snapshotted __main__.
- No bytecode of the package is written (sys.dont_write_bytecode while it loads; the judge's -B
  says so for the whole run): a script run as __main__ never was, and a __pycache__ in the
  runner's folder is not the runner's code. In the sandbox the runner's folder is bound
  read-only.
- A copy of this script (--runner, $KJUDGE_TRITON_RUNNER) needs kjudge_triton/ beside it.
"""

import os
import sys


def _load_main():
    """kjudge_triton.main.main, with the package imported from this script's own folder."""
    here = os.path.dirname(os.path.realpath(__file__))
    write_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    sys.path.insert(0, here)
    try:
        package = __import__("kjudge_triton")
        for name in package.MODULES:
            __import__("kjudge_triton." + name)
    finally:
        if here in sys.path:
            sys.path.remove(here)
        sys.dont_write_bytecode = write_bytecode
    loaded = os.path.realpath(getattr(package, "__file__", None) or "?")
    if loaded != os.path.join(here, "kjudge_triton", "__init__.py"):
        raise ImportError("the runner's package was loaded from %s, not from %s" % (loaded, here))
    return sys.modules["kjudge_triton.main"].main


if __name__ == "__main__":
    _load_main()(sys.argv[1:])
