#!/usr/bin/env python3
"""Tests of the wrapping of the operator's entries (kjudge_triton/entries.py). Standard library
only. Run: /usr/bin/python3 python/tests/test_entries.py; all of them: python/README.md.
"""

import ast
import random
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import helpers  # noqa: E402,F401 - first: puts python/ on sys.path
from kjudge_triton import entries, testcode  # noqa: E402


class EntriesTest(unittest.TestCase):
    def test_outermost_calls_are_counted_and_rng_is_restored(self):
        ns = {"__name__": "__main__"}
        exec("import random\ndef inner(x):\n    return x + random.random()\n"
             "def op(x):\n    return inner(x)\nCONST = 3\n", ns)
        e = entries.Entries(entries.Rng(None, None))
        e.install(ns, {"op", "inner", "CONST", "random"}, None)
        self.assertEqual(sorted(e.wrapped), ["inner", "op"])
        import random
        random.seed(5)
        before = random.getstate()
        ns["op"](1)
        ns["op"](2)
        self.assertEqual(e.counts, {"op": 2})  # inner, called from op, is not an outer call
        self.assertEqual(random.getstate(), before)

    def test_a_kernel_launched_by_the_test_is_wrapped_and_keeps_its_class(self):
        # Like triton's Autotuner: launched as kernel[grid](...), with run() and no __call__.
        ns = {"__name__": "__main__"}
        exec("class Launcher:\n"
             "    def __init__(self, fn):\n        self.fn = fn\n"
             "    def run(self, *a):\n        return self.fn(*a)\n"
             "    def __getitem__(self, grid):\n        return lambda *a: self.run(*a)\n"
             "def _k(x):\n    return x + 1\n"
             "kernel = Launcher(_k)\n", ns)
        launcher_class = ns["Launcher"]
        ns["Launcher"].__module__ = "triton.runtime.autotuner"  # defined by triton, not the code
        e = entries.Entries(entries.Rng(None, None))
        e.install(ns, {"kernel"}, None)
        self.assertEqual(e.wrapped, ["kernel[grid]"])
        self.assertIsInstance(ns["kernel"], launcher_class)
        self.assertEqual(ns["kernel"][(1,)](2), 3)
        self.assertEqual(e.counts, {"kernel[grid]": 1})

    def test_static_and_class_methods_the_test_calls_are_entries(self):
        # As streamk_matmul's test: matmul.forward(None, a, b) of an autograd.Function, whose
        # forward calls another static method (not an outer call).
        ns = {"__name__": "__main__"}
        exec("class matmul:\n"
             "    @staticmethod\n    def _call(a):\n        return a * 2\n"
             "    @staticmethod\n    def forward(ctx, a):\n        return matmul._call(a)\n"
             "    @classmethod\n    def make(cls, a):\n        return cls.forward(None, a) + 1\n"
             "    def method(self, a):\n        return a\n"
             "    SCALE = 2\n", ns)
        test = ("def test_m():\n"
                "    return {'a': matmul.forward(None, 3), 'b': matmul.make(2),\n"
                "            'c': matmul().method(1), 'd': matmul.SCALE}\n"
                "r = test_m()\n")
        tree = ast.parse(test)
        self.assertEqual(testcode.attribute_calls(tree), {"matmul": {"forward", "make"}})
        e = entries.Entries(entries.Rng(None, None))
        e.install(ns, testcode.names_loaded_by(tree) - testcode.names_bound_by(tree), None,
                  testcode.attribute_calls(tree))
        self.assertEqual(sorted(e.wrapped), ["matmul.forward", "matmul.make"])
        exec(test, ns)
        self.assertEqual(ns["r"], {"a": 6, "b": 5, "c": 1, "d": 2})
        # make calls forward: one outer call each.
        self.assertEqual(e.counts, {"matmul.forward": 1, "matmul.make": 1})

    def test_a_classs_methods_are_entries_only_where_it_defines_them(self):
        ns = {"__name__": "__main__"}
        exec("from fractions import Fraction\n"
             "class Base:\n    @staticmethod\n    def f(x):\n        return x\n"
             "class Sub(Base):\n    pass\n", ns)
        e = entries.Entries(entries.Rng(None, None))
        e.install(ns, {"Sub", "Fraction"}, None, {"Sub": {"f"}, "Fraction": {"from_float"}})
        self.assertEqual(e.wrapped, [])  # inherited, or a class the code imported

    def test_imported_callables_are_not_entries(self):
        ns = {"__name__": "__main__"}
        exec("from os.path import join\n", ns)
        e = entries.Entries(entries.Rng(None, None))
        e.install(ns, {"join"}, None)
        self.assertEqual(e.wrapped, [])


if __name__ == "__main__":
    unittest.main()
