"""What the tests of kjudge's GPU MODE harness (python/kjudge_gpumode/) share: python/ on
sys.path, no bytecode written into the source tree, and the entry script's path."""

import os
import sys

sys.dont_write_bytecode = True
PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

RUNNER = os.path.join(PYTHON_DIR, "kjudge_gpumode_runner.py")
