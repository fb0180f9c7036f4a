"""Tensors: the pure part (leaves of nested outputs) everywhere; with torch and a GPU, the
comparison (tolerance, shapes, dtypes, NaN never passes) and shared memory."""

import unittest

import helpers
from kjudge_kernelbench.tensors import Tensors, leaves

torch = helpers.torch_cuda()


class PureTest(unittest.TestCase):
    def test_leaves(self):
        self.assertEqual(leaves((1, [2, {"b": 3, "a": 4}])),
                         [("out[0]", 1), ("out[1][0]", 2), ("out[1][1]['a']", 4),
                          ("out[1][1]['b']", 3)])


@unittest.skipIf(torch is None, "needs torch with a GPU")
class TorchTest(unittest.TestCase):
    def setUp(self):
        self.t = Tensors(torch)

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
