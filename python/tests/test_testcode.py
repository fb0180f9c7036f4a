#!/usr/bin/env python3
"""Tests of the runner's reading of the test code (kjudge_triton/testcode.py). Standard library
only. Run: /usr/bin/python3 python/tests/test_testcode.py; all of them: python/README.md.
"""

import ast
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import helpers  # noqa: E402,F401 - first: puts python/ on sys.path
from kjudge_triton import testcode  # noqa: E402


class TestCodeReadingTest(unittest.TestCase):
    def source(self, code):
        return testcode.find_result_source(ast.parse(code))

    def test_the_usual_last_line(self):
        code = "def test_add():\n    return {}\nresult_gold = test_add()\nprint(result_gold)\n"
        self.assertEqual(self.source(code), ("variable", "result_gold", "result_gold = test_add()"))

    def test_the_t_channel_form_reuses_the_function_name(self):
        code = "def test_div():\n    return 1\ntest_div = test_div()\n"
        self.assertEqual(self.source(code)[:2], ("variable", "test_div"))

    def test_inside_a_main_guard(self):
        code = ("def test_x():\n    return 1\nif __name__ == '__main__':\n"
                "    result_gold = test_x()\n    print(result_gold)\n")
        self.assertEqual(self.source(code)[:2], ("variable", "result_gold"))

    def test_a_test_never_called_is_called_by_the_runner(self):
        code = "import torch\ndef helper(x):\n    return x\ndef test_ctx():\n    return 2\n"
        self.assertEqual(self.source(code), ("call", "test_ctx", "test_ctx()"))

    def test_nothing_to_find(self):
        self.assertIsNone(self.source("x = 1\n"))

    def test_bound_and_loaded_names(self):
        tree = ast.parse("import torch\nfrom a import b as c\ndef test_f():\n    return op(1)\n"
                         "res = test_f()\n")
        self.assertEqual(testcode.names_bound_by(tree), {"torch", "c", "test_f", "res"})
        self.assertIn("op", testcode.names_loaded_by(tree))

    def test_the_operators_own_module_is_found_by_its_name(self):
        import types
        tree = ast.parse("import torch\nfrom tanh_linear import tanh_linear\n"
                         "from torch import nn\nfrom helpers_x import other\n")
        ns = {"tanh_linear": len, "torch": types.ModuleType("torch"), "nn": 1}
        never = lambda name: False  # noqa: E731 - nothing importable: the worst case
        self.assertEqual(testcode.self_imports(tree, ns, never), {"tanh_linear": ["tanh_linear"]})
        # An importable module of the same name is never replaced.
        self.assertEqual(testcode.self_imports(tree, ns, lambda name: True), {})


if __name__ == "__main__":
    unittest.main()
