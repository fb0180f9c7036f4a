"""Tensors: the pure parts (keys to numbers, leaves of nested outputs) everywhere; with torch and a
GPU, fresh inputs (new memory, new content, the same structure), the comparison (tolerance,
shapes, dtypes, NaN never passes) and shared memory."""

import unittest

import helpers
from kjudge_kernelbench.tensors import SCALE_SPAN, Tensors, key_numbers, leaves

torch = helpers.torch_cuda()


class PureTest(unittest.TestCase):
    def test_key_numbers(self):
        a = key_numbers("ab" * 16, 5)
        self.assertEqual(a, key_numbers("ab" * 16, 5))
        self.assertEqual(len(set(a)), 5)
        self.assertTrue(all(0 <= x < 1 for x in a))
        self.assertNotEqual(a, key_numbers("cd" * 16, 5))

    def test_leaves(self):
        self.assertEqual(leaves((1, [2, {"b": 3, "a": 4}])),
                         [("out[0]", 1), ("out[1][0]", 2), ("out[1][1]['a']", 4),
                          ("out[1][1]['b']", 3)])


@unittest.skipIf(torch is None, "needs torch with a GPU")
class TorchTest(unittest.TestCase):
    def setUp(self):
        self.t = Tensors(torch)

    def test_fresh_inputs(self):
        x = torch.rand(64, 64, device="cuda")
        sym = x + x.T
        idx = torch.randint(0, 10, (100,), device="cuda")
        a = self.t.fresh([x, sym, idx, 3], "12" * 16)
        b = self.t.fresh([x, sym, idx, 3], "12" * 16)
        c = self.t.fresh([x, sym, idx, 3], "34" * 16)
        self.assertTrue(torch.equal(a[0], b[0]))
        self.assertFalse(torch.equal(a[0], c[0]))
        self.assertNotEqual(a[0].data_ptr(), x.data_ptr())
        ratio = (a[0] / x).flatten()
        self.assertTrue(torch.allclose(ratio, ratio[0].expand_as(ratio)))
        self.assertTrue(1 - SCALE_SPAN <= float(ratio[0]) <= 1)
        self.assertTrue(torch.equal(a[1], a[1].T))  # symmetry kept
        self.assertTrue(torch.equal(torch.sort(a[2]).values, torch.sort(idx).values))
        self.assertEqual(a[3], 3)

    def test_compare(self):
        r = torch.rand(16, device="cuda")
        self.assertTrue(self.t.compare(r + 1e-3, r, 1e-2, 1e-2)["ok"])
        bad = self.t.compare(r + 1.0, r, 1e-2, 1e-2)
        self.assertFalse(bad["ok"])
        self.assertEqual(bad["mismatched"], 16)
        nan = r.clone()
        nan[3] = float("nan")
        self.assertIn("NaN", self.t.compare(nan, r, 1e-2, 1e-2)["why"])
        self.assertIn("shape", self.t.compare(r[:8], r, 1e-2, 1e-2)["why"])
        self.assertIn("float64", self.t.compare(r.double(), r, 1e-2, 1e-2)["why"])
        self.assertIn("returned 2 values", self.t.compare((r, r), r, 1e-2, 1e-2)["why"])

    def test_shared_memory(self):
        x = torch.rand(16, device="cuda")
        self.assertTrue(self.t.overlaps(self.t.spans(x[4:]), self.t.spans(x)))
        self.assertFalse(self.t.overlaps(self.t.spans(x.clone()), self.t.spans(x)))


if __name__ == "__main__":
    unittest.main()
