"""Sources executed as modules: from their file (inspect finds them), a syntax error and an
exception each the failure of their own stage, a solution starting with the reference's names."""

import inspect
import os
import tempfile
import unittest

import helpers  # noqa: F401
from kjudge_kernelbench.errors import StageError
from kjudge_kernelbench.load import load_module


def write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class LoadTest(unittest.TestCase):
    def test_a_module_from_its_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = write(d, "ref.py", "N = 3\ndef f():\n    return N * 2\n")
            m = load_module(path, "kb_test_ref", "reference", "reference")
            self.assertEqual(m.f(), 6)
            self.assertIn("return N * 2", inspect.getsource(m.f))

    def test_each_failure_is_its_stages(self):
        with tempfile.TemporaryDirectory() as d:
            bad = write(d, "bad.py", "def f(:\n")
            with self.assertRaises(StageError) as e:
                load_module(bad, "kb_test_bad", "syntax", "import")
            self.assertEqual(e.exception.stage, "syntax")
            boom = write(d, "boom.py", "raise SystemExit(0)\n")
            with self.assertRaises(StageError) as e:
                load_module(boom, "kb_test_boom", "syntax", "import")
            self.assertEqual(e.exception.stage, "import")
            self.assertIsInstance(e.exception.exc, SystemExit)

    def test_a_solution_starts_with_the_references_names(self):
        with tempfile.TemporaryDirectory() as d:
            path = write(d, "sol.py", "class ModelNew(Model):\n    pass\nM = batch_size\n")
            m = load_module(path, "kb_test_sol", "syntax", "import",
                            base={"Model": object, "batch_size": 16, "__name__": "x"})
            self.assertEqual(m.M, 16)
            self.assertEqual(m.__name__, "kb_test_sol")


if __name__ == "__main__":
    unittest.main()
