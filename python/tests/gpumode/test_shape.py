"""custom_kernel's output described by the worker and rebuilt by the checker, with stand-in
tensors: the same tree, buffers in the order of the tensors, and the checker's limits."""

import unittest

import helpers  # noqa: F401
from kjudge_gpumode.shape import MAX_DEPTH, ShapeError, describe, rebuild


class T:
    def __init__(self, dtype, shape):
        self.dtype, self.shape = dtype, shape


def is_t(x):
    return isinstance(x, T)


DTYPES = {"float16": ("f16", 2), "int32": ("i32", 4)}


class ShapeTest(unittest.TestCase):
    def test_round_trip(self):
        out = (T("torch.float16", (4, 8)), [1, None, "x"], {"hist": T("torch.int32", (256,))})
        tensors = []
        desc = describe(out, is_t, tensors)
        self.assertEqual(len(tensors), 2)
        made = []
        tree, buffers = rebuild(desc, DTYPES, lambda d, s: made.append((d, s)) or (d, tuple(s)),
                                1 << 20)
        self.assertEqual(tree, (("f16", (4, 8)), [1, None, "x"], {"hist": ("i32", (256,))}))
        self.assertEqual(made, [("f16", [4, 8]), ("i32", [256])])
        self.assertEqual(len(buffers), 2)

    def test_what_cannot_cross(self):
        with self.assertRaises(ShapeError):
            describe(object(), is_t, [])
        with self.assertRaises(ShapeError):
            describe({1: T("float16", (1,))}, is_t, [])
        deep = T("float16", (1,))
        for _ in range(MAX_DEPTH + 2):
            deep = [deep]
        with self.assertRaises(ShapeError):
            describe(deep, is_t, [])

    def test_checker_limits(self):
        alloc = lambda d, s: (d, s)  # noqa: E731
        bad = [
            {"t": "tensor", "dtype": "object", "shape": [1]},
            {"t": "tensor", "dtype": "float16", "shape": [-1]},
            {"t": "tensor", "dtype": "float16", "shape": [True]},
            {"t": "tensor", "dtype": "float16", "shape": "12"},
            {"t": "tensor", "dtype": "float16", "shape": [1024, 1024]},  # 2 MiB > 1 MiB
            {"t": "dict", "items": [[1, {"t": "value", "v": 1}]]},
            {"t": "value", "v": {"a": 1}},
            {"t": "pickle"},
            [],
        ]
        for desc in bad:
            with self.assertRaises(ShapeError, msg=repr(desc)):
                rebuild(desc, DTYPES, alloc, 1 << 20)


if __name__ == "__main__":
    unittest.main()
