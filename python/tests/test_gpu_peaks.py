#!/usr/bin/env python3
"""Tests of python/kjudge_gpu_peaks.py's cache with a stand-in torch (not the runner: it shares
this folder of standard-library tests). Standard library only. Run: /usr/bin/python3
python/tests/test_gpu_peaks.py; all of them: python/README.md.
"""

import json
import os
import sys
import tempfile
import types
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import helpers  # noqa: E402,F401 - first: puts python/ on sys.path


class GpuPeaksCacheTest(unittest.TestCase):
    """python/kjudge_gpu_peaks.py without a GPU: a stand-in torch module. The measurement itself
    needs CUDA and is checked on the device (docs/gpu-runs.md)."""

    def fake_torch(self, available=True, name="Fake GPU", version="9.9"):
        import types
        t = types.ModuleType("torch")
        t.__version__ = version
        t.cuda = types.SimpleNamespace(
            is_available=lambda: available, set_device=lambda d: None,
            get_device_properties=lambda d: types.SimpleNamespace(name=name))
        return t

    def run_main(self, torch, argv):
        import kjudge_gpu_peaks as peaks
        saved = sys.modules.get("torch")
        sys.modules["torch"] = torch
        measured = []
        real = peaks.measure
        peaks.measure = lambda t, reps: measured.append(reps) or {
            "kind": "kjudge-gpu-peaks", "schema_version": peaks.SCHEMA_VERSION,
            "gpu": t.cuda.get_device_properties(0).name,
            "torch": t.__version__, "memory_bandwidth_bytes_per_s": 1.0}
        try:
            with open(os.devnull, "w") as null:
                old, sys.stdout = sys.stdout, null
                try:
                    rc = peaks.main(argv)
                finally:
                    sys.stdout = old
        finally:
            peaks.measure = real
            if saved is None:
                sys.modules.pop("torch", None)
            else:
                sys.modules["torch"] = saved
        return rc, measured

    def test_no_gpu_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            rc, measured = self.run_main(self.fake_torch(available=False),
                                         ["--out", os.path.join(d, "p.json")])
            self.assertEqual(rc, 3)
            self.assertEqual(measured, [])

    def test_cached_per_gpu_name_and_torch(self):
        with tempfile.TemporaryDirectory() as d:
            out, cache = os.path.join(d, "p.json"), os.path.join(d, "cache")
            args = ["--out", out, "--cache-dir", cache]
            self.assertEqual(self.run_main(self.fake_torch(), args), (0, [20]))
            self.assertTrue(os.path.exists(os.path.join(cache, "Fake_GPU.json")))
            self.assertEqual(self.run_main(self.fake_torch(), args), (0, []))  # from the cache
            with open(out) as f:
                self.assertIn("cached", json.load(f))
            self.assertEqual(self.run_main(self.fake_torch(version="10.0"), args)[1], [20])
            self.assertEqual(self.run_main(self.fake_torch(), args + ["--force"])[1], [20])
            self.assertEqual(self.run_main(self.fake_torch(name="Other GPU"), args)[1], [20])
            # A file of an older version (no tfloat32 peak) is measured again.
            path = os.path.join(cache, "Fake_GPU.json")
            with open(path) as f:
                old = json.load(f)
            old["schema_version"] = 1
            with open(path, "w") as f:
                json.dump(old, f)
            self.assertEqual(self.run_main(self.fake_torch(), args)[1], [20])


if __name__ == "__main__":
    unittest.main()
