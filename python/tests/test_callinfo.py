#!/usr/bin/env python3
"""Tests of the description of a call: bytes moved, values given (kjudge_triton/callinfo.py).
Standard library only. Run: /usr/bin/python3 python/tests/test_callinfo.py; all of them:
python/README.md.
"""

import json
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import helpers  # noqa: E402,F401 - first: puts python/ on sys.path
from kjudge_triton import callinfo  # noqa: E402


class TensorBytesTest(unittest.TestCase):
    class T:
        def __init__(self, ptr, n, size=4, cuda=True):
            self.ptr, self.n, self.size, self.is_cuda = ptr, n, size, cuda

        def data_ptr(self):
            return self.ptr

        def numel(self):
            return self.n

        def element_size(self):
            return self.size

    def test_distinct_cuda_tensors_count_once(self):
        T = self.T
        x, y, out = T(1000, 10), T(2000, 10, 2), T(3000, 5)
        # x passed twice, the result aliasing x (in place), a CPU tensor and a nested one.
        values = [x, [x, y], {"k": (out,)}, T(4000, 100, cuda=False), 3.0, x]
        self.assertEqual(callinfo.tensor_bytes(values, T), 40 + 20 + 20)

    def test_nothing_on_the_device_is_zero(self):
        self.assertEqual(callinfo.tensor_bytes([1, "a", None, self.T(1, 8, cuda=False)], self.T), 0)


class CallValuesTest(unittest.TestCase):
    """What the runner tells the judge about one call, for the per-operator work counts."""

    class T:
        def __init__(self, shape, dtype="torch.float16", cuda=True):
            self.shape, self.dtype, self.is_cuda = shape, dtype, cuda

    def test_parameters_are_named_by_the_signature(self):
        T = self.T

        def matmul(a, b, activation=""):
            return None

        v = callinfo.call_values(matmul, (T([4, 8]), T([8, 2])), {"activation": "leaky_relu"},
                          T([4, 2]), T)
        self.assertEqual([x["name"] for x in v], ["a", "b", "activation", "result"])
        self.assertEqual(v[0], {"name": "a", "kind": "tensor", "dtype": "float16",
                                "shape": [4, 8], "cuda": True})
        self.assertEqual(v[2], {"name": "activation", "kind": "text", "value": "leaky_relu"})

    def test_star_args_nesting_scalars_and_calls_that_do_not_bind(self):
        T = self.T

        def wrapper(*args, **kwargs):
            return None

        v = callinfo.call_values(wrapper, (2.0, T([3])), {"out0": T([3], cuda=False)}, None, T)
        self.assertEqual([(x["name"], x["kind"]) for x in v],
                         [("args[0]", "scalar"), ("args[1]", "tensor"), ("out0", "tensor"),
                          ("result", "none")])
        self.assertFalse(v[2]["cuda"])
        # Too many arguments for the signature: positional names; NaN and huge ints as null or
        # left out (JSON has neither); a list's and a dict's items by index and key.
        v = callinfo.call_values(lambda x: 0, (T([1]), float("nan"), 2 ** 70, [T([2]), True]), {},
                          (T([1]), {"k": 1}), T)
        self.assertEqual([x["name"] for x in v],
                         ["args[0]", "args[1]", "args[3][0]", "args[3][1]", "result[0]",
                          "result[1].k"])
        self.assertIsNone(v[1]["value"])
        self.assertIs(v[3]["value"], True)
        json.dumps(v, allow_nan=False)  # valid JSON

    def test_at_most_64_values(self):
        v = callinfo.call_values(lambda *a: 0, tuple(range(100)), {}, None, self.T)
        self.assertEqual(len(v), 64)


if __name__ == "__main__":
    unittest.main()
