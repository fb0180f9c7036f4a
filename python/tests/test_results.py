#!/usr/bin/env python3
"""Tests of the runner's results: flattening and encoding (kjudge_triton/results.py). Standard
library only. Run: /usr/bin/python3 python/tests/test_results.py; all of them: python/README.md.
"""

import struct
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from helpers import FakeTensor, fake_parts  # noqa: E402 - first: puts python/ on sys.path
from kjudge_triton import results  # noqa: E402


class FlattenTest(unittest.TestCase):
    def test_dicts_tuples_and_nesting_get_path_names(self):
        value = {"test_case_1": 1.0, "test_case_2": (2, [3, None]), "c": {"d": "x", 5: True}}
        names = [n for n, _ in results.flatten(value)]
        self.assertEqual(names, ["test_case_1", "test_case_2[0]", "test_case_2[1][0]",
                                 "test_case_2[1][1]", "c.d", "c.5"])

    def test_a_bare_leaf_is_named_result_and_a_bare_list_by_index(self):
        self.assertEqual(results.flatten(7), [("result", 7)])
        self.assertEqual([n for n, _ in results.flatten([1, 2])], ["[0]", "[1]"])

    def test_empty_containers_have_no_leaves(self):
        self.assertEqual(results.flatten({}), [])
        self.assertEqual(results.flatten({"a": []}), [])

    def test_colliding_names_are_made_unique(self):
        pairs = results.unique_names(results.flatten({"a.b": 1, "a": {"b": 2}}))
        self.assertEqual([n for n, _ in pairs], ["a.b", "a.b#2"])

    def test_absurd_nesting_is_an_error_not_a_crash(self):
        v = []
        for _ in range(100):
            v = [v, 1]
        with self.assertRaises(ValueError):
            results.flatten(v)


class EncodeTest(unittest.TestCase):
    def test_tensors_scalars_and_others_get_offsets_into_one_blob(self):
        t = FakeTensor("float32", [2], struct.pack("<2f", 1.5, -2.0))
        h = FakeTensor("bfloat16", [1, 1], b"\x80\x3f")
        entries, data = results.encode_results(
            {"t": t, "h": h, "i": -3, "f": 0.25, "b": True, "n": None, "s": "hi", "o": object()},
            fake_parts)
        by = {e["name"]: e for e in entries}
        self.assertEqual(by["t"], {"name": "t", "kind": "tensor", "dtype": "float32",
                                   "shape": [2], "offset": 0, "nbytes": 8})
        self.assertEqual(data[0:8], struct.pack("<2f", 1.5, -2.0))
        self.assertEqual(by["h"]["offset"], 8)
        self.assertEqual(by["i"]["dtype"], "int64")
        self.assertEqual(struct.unpack("<q", data[by["i"]["offset"]:by["i"]["offset"] + 8])[0], -3)
        self.assertEqual(by["f"]["dtype"], "float64")
        self.assertEqual(struct.unpack("<d", data[by["f"]["offset"]:by["f"]["offset"] + 8])[0],
                         0.25)
        self.assertEqual(data[by["b"]["offset"]], 1)
        self.assertEqual(by["n"]["kind"], "none")
        self.assertEqual(by["s"], {"name": "s", "kind": "text", "text": "hi", "chars": 2})
        self.assertEqual(by["o"]["kind"], "other")
        self.assertEqual(len(data), 8 + 2 + 8 + 8 + 1)

    def test_unsupported_dtype_and_complex_are_marked(self):
        entries, data = results.encode_results(
            [FakeTensor("complex128", [2], b""), FakeTensor("float32", [2, 2], b"\0" * 16, True)],
            fake_parts)
        self.assertEqual(entries[0]["kind"], "other")
        self.assertNotIn("offset", entries[0])
        self.assertTrue(entries[1]["complex"])
        self.assertEqual(len(data), 16)

    def test_huge_int_is_other_not_truncated(self):
        entries, _ = results.encode_results({"x": 2 ** 70}, fake_parts)
        self.assertEqual(entries[0]["kind"], "other")


if __name__ == "__main__":
    unittest.main()
