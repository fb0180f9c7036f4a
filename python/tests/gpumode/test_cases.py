"""Case lines read as GPU MODE's eval.py reads them; seeds of fresh inputs as kjudge's CUDA
harness makes them (harness/kjudge/seeds.h), salted and below 2^63."""

import unittest

import helpers  # noqa: F401
from kjudge_gpumode.cases import (CaseError, mix64, parse_case, read_cases, repetition_seed,
                                  with_seed)


class CasesTest(unittest.TestCase):
    def test_integers_and_words(self):
        self.assertEqual(parse_case("size: 1024; seed: 42; kind: fast"),
                         {"size": 1024, "seed": 42, "kind": "fast"})
        self.assertEqual(parse_case("n: -3"), {"n": -3})

    def test_bad_lines_are_refused(self):
        for bad in ("size 12", "size: 1.5", "size: 1; size: 2", "a: b c", ""):
            with self.assertRaises(CaseError, msg=bad):
                parse_case(bad)

    def test_blank_lines_skipped(self):
        self.assertEqual(read_cases("size: 1; seed: 2\n\n  \nsize: 3; seed: 4\n"),
                         [("size: 1; seed: 2", {"size": 1, "seed": 2}),
                          ("size: 3; seed: 4", {"size": 3, "seed": 4})])

    def test_mix64_matches_the_cuda_harness(self):
        # splitmix64 of 0 and 1, as kj::mix64 gives them.
        self.assertEqual(mix64(0), 0xE220A8397B1DCDAF)
        self.assertEqual(mix64(1), 0x910A2DEC89025CC1)

    def test_repetition_seeds(self):
        self.assertEqual(repetition_seed(42, 0), 42)  # tests run on the case's own seed
        seeds = {repetition_seed(42, r, salt=7) for r in range(1, 1000)}
        self.assertEqual(len(seeds), 999)
        self.assertTrue(all(0 <= s < (1 << 63) for s in seeds))
        # Another salt, other inputs: a worker that knows the public seed cannot foresee them.
        self.assertNotEqual(repetition_seed(42, 5, salt=7), repetition_seed(42, 5, salt=8))

    def test_with_seed(self):
        args = {"size": 3, "seed": 1}
        self.assertEqual(with_seed(args, 9), {"size": 3, "seed": 9})
        self.assertEqual(args["seed"], 1)
        self.assertEqual(with_seed({"size": 3}, 9), {"size": 3})


if __name__ == "__main__":
    unittest.main()
