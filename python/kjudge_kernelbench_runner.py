#!/usr/bin/env python3
"""kjudge's KernelBench runner, the script the judge starts (src/kernelbench/runner/run.cpp): a
thin entry that loads the runner's package, python/kjudge_kernelbench/ beside it (what the runner
does: its __init__.py and python/README.md), and calls its main.

    python3 -I kjudge_kernelbench_runner.py --request-fd R --result-fd W --control-fd C
    python3 -I kjudge_kernelbench_runner.py --request FILE --output-dir DIR   (by hand)

It is loaded the way the Triton runner's entry loads its package (python/README.md, "The entry,
and the rule about -I"): this script's own folder, resolved from its real path, is put at
sys.path[0]; the package and every module in kjudge_kernelbench.MODULES are imported; the
package is checked to come from that folder; the folder is taken off sys.path again. All of it
before the request is read, so before the reference or the solution runs: the solution (which
runs in this very interpreter) cannot choose where the runner is loaded from, and no module of
the runner is imported after it could have changed sys.path or the import machinery. No bytecode
of the package is written. A copy of this script needs kjudge_kernelbench/ beside it.
"""

import os
import sys


def _load_main():
    """kjudge_kernelbench.main.main, with the package imported from this script's own folder."""
    here = os.path.dirname(os.path.realpath(__file__))
    write_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    sys.path.insert(0, here)
    try:
        package = __import__("kjudge_kernelbench")
        for name in package.MODULES:
            __import__("kjudge_kernelbench." + name)
    finally:
        if here in sys.path:
            sys.path.remove(here)
        sys.dont_write_bytecode = write_bytecode
    loaded = os.path.realpath(getattr(package, "__file__", None) or "?")
    if loaded != os.path.join(here, "kjudge_kernelbench", "__init__.py"):
        raise ImportError("the runner's package was loaded from %s, not from %s" % (loaded, here))
    return sys.modules["kjudge_kernelbench.main"].main


if __name__ == "__main__":
    _load_main()(sys.argv[1:])
