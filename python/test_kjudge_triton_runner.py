#!/usr/bin/env python3
"""Tests of the runner's torch-free parts: flattening, encoding with fake tensors, reading the
test code, wrapping entries, whole runs of pure-Python operators, the two ways in and out
(file and descriptor), and the check of every timed call with a stand-in for torch (and with
the real one where it is installed). Run: /usr/bin/python3 python/test_kjudge_triton_runner.py"""

import ast
import contextlib
import json
import math
import os
import random
import struct
import subprocess
import time
import sys
import tempfile
import threading
import types
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kjudge_triton_runner as r  # noqa: E402

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kjudge_triton_runner.py")


class FakeTensor:
    """Stands in for a torch tensor: a dtype name, a shape and raw little-endian bytes."""

    def __init__(self, dtype, shape, raw, is_complex=False):
        self.dtype, self.shape, self.raw, self.is_complex = dtype, shape, raw, is_complex


def fake_parts(v):
    if isinstance(v, FakeTensor):
        raw = v.raw if v.dtype in r.SUPPORTED_DTYPES else None
        return v.dtype, list(v.shape), raw, v.is_complex
    return None


class FlattenTest(unittest.TestCase):
    def test_dicts_tuples_and_nesting_get_path_names(self):
        value = {"test_case_1": 1.0, "test_case_2": (2, [3, None]), "c": {"d": "x", 5: True}}
        names = [n for n, _ in r.flatten(value)]
        self.assertEqual(names, ["test_case_1", "test_case_2[0]", "test_case_2[1][0]",
                                 "test_case_2[1][1]", "c.d", "c.5"])

    def test_a_bare_leaf_is_named_result_and_a_bare_list_by_index(self):
        self.assertEqual(r.flatten(7), [("result", 7)])
        self.assertEqual([n for n, _ in r.flatten([1, 2])], ["[0]", "[1]"])

    def test_empty_containers_have_no_leaves(self):
        self.assertEqual(r.flatten({}), [])
        self.assertEqual(r.flatten({"a": []}), [])

    def test_colliding_names_are_made_unique(self):
        pairs = r.unique_names(r.flatten({"a.b": 1, "a": {"b": 2}}))
        self.assertEqual([n for n, _ in pairs], ["a.b", "a.b#2"])

    def test_absurd_nesting_is_an_error_not_a_crash(self):
        v = []
        for _ in range(100):
            v = [v, 1]
        with self.assertRaises(ValueError):
            r.flatten(v)


class EncodeTest(unittest.TestCase):
    def test_tensors_scalars_and_others_get_offsets_into_one_blob(self):
        t = FakeTensor("float32", [2], struct.pack("<2f", 1.5, -2.0))
        h = FakeTensor("bfloat16", [1, 1], b"\x80\x3f")
        entries, data = r.encode_results(
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
        entries, data = r.encode_results(
            [FakeTensor("complex128", [2], b""), FakeTensor("float32", [2, 2], b"\0" * 16, True)],
            fake_parts)
        self.assertEqual(entries[0]["kind"], "other")
        self.assertNotIn("offset", entries[0])
        self.assertTrue(entries[1]["complex"])
        self.assertEqual(len(data), 16)

    def test_huge_int_is_other_not_truncated(self):
        entries, _ = r.encode_results({"x": 2 ** 70}, fake_parts)
        self.assertEqual(entries[0]["kind"], "other")


class TestCodeReadingTest(unittest.TestCase):
    def source(self, code):
        return r.find_result_source(ast.parse(code))

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
        self.assertEqual(r.names_bound_by(tree), {"torch", "c", "test_f", "res"})
        self.assertIn("op", r.names_loaded_by(tree))


class EntriesTest(unittest.TestCase):
    def test_outermost_calls_are_counted_and_rng_is_restored(self):
        ns = {"__name__": "__main__"}
        exec("import random\ndef inner(x):\n    return x + random.random()\n"
             "def op(x):\n    return inner(x)\nCONST = 3\n", ns)
        e = r.Entries(r.Rng(None, None))
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
        e = r.Entries(r.Rng(None, None))
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
        self.assertEqual(r.attribute_calls(tree), {"matmul": {"forward", "make"}})
        e = r.Entries(r.Rng(None, None))
        e.install(ns, r.names_loaded_by(tree) - r.names_bound_by(tree), None,
                  r.attribute_calls(tree))
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
        e = r.Entries(r.Rng(None, None))
        e.install(ns, {"Sub", "Fraction"}, None, {"Sub": {"f"}, "Fraction": {"from_float"}})
        self.assertEqual(e.wrapped, [])  # inherited, or a class the code imported

    def test_imported_callables_are_not_entries(self):
        ns = {"__name__": "__main__"}
        exec("from os.path import join\n", ns)
        e = r.Entries(r.Rng(None, None))
        e.install(ns, {"join"}, None)
        self.assertEqual(e.wrapped, [])


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
        self.assertEqual(r.tensor_bytes(values, T), 40 + 20 + 20)

    def test_nothing_on_the_device_is_zero(self):
        self.assertEqual(r.tensor_bytes([1, "a", None, self.T(1, 8, cuda=False)], self.T), 0)


class CallValuesTest(unittest.TestCase):
    """What the runner tells the judge about one call, for the per-operator work counts."""

    class T:
        def __init__(self, shape, dtype="torch.float16", cuda=True):
            self.shape, self.dtype, self.is_cuda = shape, dtype, cuda

    def test_parameters_are_named_by_the_signature(self):
        T = self.T

        def matmul(a, b, activation=""):
            return None

        v = r.call_values(matmul, (T([4, 8]), T([8, 2])), {"activation": "leaky_relu"},
                          T([4, 2]), T)
        self.assertEqual([x["name"] for x in v], ["a", "b", "activation", "result"])
        self.assertEqual(v[0], {"name": "a", "kind": "tensor", "dtype": "float16",
                                "shape": [4, 8], "cuda": True})
        self.assertEqual(v[2], {"name": "activation", "kind": "text", "value": "leaky_relu"})

    def test_star_args_nesting_scalars_and_calls_that_do_not_bind(self):
        T = self.T

        def wrapper(*args, **kwargs):
            return None

        v = r.call_values(wrapper, (2.0, T([3])), {"out0": T([3], cuda=False)}, None, T)
        self.assertEqual([(x["name"], x["kind"]) for x in v],
                         [("args[0]", "scalar"), ("args[1]", "tensor"), ("out0", "tensor"),
                          ("result", "none")])
        self.assertFalse(v[2]["cuda"])
        # Too many arguments for the signature: positional names; NaN and huge ints as null or
        # left out (JSON has neither); a list's and a dict's items by index and key.
        v = r.call_values(lambda x: 0, (T([1]), float("nan"), 2 ** 70, [T([2]), True]), {},
                          (T([1]), {"k": 1}), T)
        self.assertEqual([x["name"] for x in v],
                         ["args[0]", "args[1]", "args[3][0]", "args[3][1]", "result[0]",
                          "result[1].k"])
        self.assertIsNone(v[1]["value"])
        self.assertIs(v[3]["value"], True)
        json.dumps(v, allow_nan=False)  # valid JSON

    def test_at_most_64_values(self):
        v = r.call_values(lambda *a: 0, tuple(range(100)), {}, None, self.T)
        self.assertEqual(len(v), 64)


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


class RunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def request(self, code, test, **extra):
        cand = os.path.join(self.dir, "candidate.py")
        tpath = os.path.join(self.dir, "test.py")
        with open(cand, "w") as f:
            f.write(code)
        with open(tpath, "w") as f:
            f.write(test)
        req = {"protocol": 1, "nonce": "n0", "candidate_path": cand, "test_path": tpath,
               "seed": 7, "modes": ["test"], "require_torch": False}
        req.update(extra)
        return req

    TEST = ("import random\ndef test_op():\n    a = random.random()\n"
            "    return {'test_case_1': op(a), 'test_case_2': [op(2.0), None]}\n"
            "result_gold = test_op()\n")

    def test_a_pure_python_operator_runs_and_its_results_are_encoded(self):
        rec, data = r.run(self.request("def op(x):\n    return x * 2\n", self.TEST), (None, None))
        self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(rec["calls"], {"op": 2})
        names = [e["name"] for e in rec["outputs"]["entries"]]
        self.assertEqual(names, ["test_case_1", "test_case_2[0]", "test_case_2[1]"])
        import random
        random.seed(7)
        expected = random.random() * 2
        self.assertEqual(struct.unpack("<d", data[0:8])[0], expected)

    def test_a_static_method_the_test_calls_is_an_entry_of_a_whole_run(self):
        code = ("class matmul:\n    @staticmethod\n    def forward(ctx, x):\n"
                "        return x * 2\n")
        test = ("def test_m():\n    return {'test_case_1': matmul.forward(None, 1.5),\n"
                "            'test_case_2': matmul.forward(None, 2.0)}\n"
                "result_gold = test_m()\n")
        rec, _ = r.run(self.request(code, test), (None, None))
        self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(rec["calls"], {"matmul.forward": 2})

    def test_same_seed_same_bytes(self):
        a = r.run(self.request("def op(x):\n    return x\n", self.TEST), (None, None))
        b = r.run(self.request("def op(x):\n    return x\n", self.TEST), (None, None))
        self.assertEqual(a[1], b[1])

    def test_stages(self):
        cases = [
            ("def op(x:\n", "syntax", "SyntaxError"),
            ("import not_a_module_kjudge\n", "import", "ModuleNotFoundError"),
            ("def op(x):\n    return x.missing\n", "call", "AttributeError"),
            ("import sys\nsys.exit(0)\n", "import", "SystemExit"),
            ("def opp(x):\n    return x\n", "call", "NameError"),
        ]
        for code, stage, etype in cases:
            rec, data = r.run(self.request(code, self.TEST), (None, None))
            self.assertEqual(rec["status"], "error", code)
            self.assertEqual(rec["error"]["stage"], stage, code)
            self.assertEqual(rec["error"]["exception_type"], etype, code)
            self.assertIn("Traceback", rec["error"]["traceback"])
            self.assertEqual(data, b"")
            self.assertNotIn("outputs", rec)

    def test_test_code_without_results(self):
        rec, _ = r.run(self.request("def op(x):\n    return x\n", "x = op(1)\n"), (None, None))
        self.assertEqual(rec["error"]["stage"], "result")

    def test_time_mode_without_torch_is_a_setup_error(self):
        rec, _ = r.run(self.request("def op(x):\n    return x\n", self.TEST, modes=["time"]),
                       (None, None))
        self.assertEqual(rec["error"]["stage"], "setup")

    def test_torch_is_required_unless_the_request_says_otherwise(self):
        req = self.request("def op(x):\n    return x\n", self.TEST, require_torch=True)
        try:
            import torch  # noqa: F401
            self.skipTest("torch is installed here")
        except ImportError:
            pass
        rec, _ = r.run(req)
        self.assertEqual(rec["error"]["stage"], "setup")
        self.assertEqual(rec["error"]["exception_type"], "ModuleNotFoundError")

    def test_channel_bytes_is_one_json_line_then_data(self):
        rec, data = r.run(self.request("def op(x):\n    return 'a\\nb'\n", self.TEST),
                          (None, None))
        payload = r.channel_bytes(rec, data)
        line, _, blob = payload.partition(b"\n")
        parsed = json.loads(line)
        self.assertEqual(parsed["data_bytes"], len(blob))
        self.assertEqual(parsed["outputs"]["entries"][0]["text"], "a\nb")


class GarbageTensorBase:
    """A stand-in tensor made from memory nobody set: every element 7.5 until zero_()."""

    def __init__(self, n=0, requires_grad=False):
        self.values = [7.5] * n
        self.requires_grad = requires_grad
        self.zeroed_under_no_grad = False

    def zero_(self):
        self.values = [0.0] * len(self.values)
        self.zeroed_under_no_grad = GarbageTorch.grad_off
        return self

    def new_empty(self, n):
        return type(self)(n)


class GarbageTorch(types.ModuleType):
    """Just the torch.empty family, Tensor and no_grad: what ZeroFill touches."""

    grad_off = False

    def __init__(self, name="__kjfake_torch__"):
        super().__init__(name)
        self.__version__ = "fake"
        self.version = types.SimpleNamespace(cuda="none")
        self.cuda = types.SimpleNamespace(is_available=lambda: False,
                                          is_initialized=lambda: False)
        T = self.Tensor = type("Tensor", (GarbageTensorBase,), {
            "new_empty_strided": lambda self, n, stride: type(self)(n)})
        self.empty = lambda n, requires_grad=False: T(n, requires_grad)
        self.empty_like = lambda t: T(len(t.values))
        self.empty_strided = lambda n, stride: T(n)
        self.manual_seed = lambda s: None
        self.get_rng_state = lambda: None
        self.set_rng_state = lambda s: None

    class no_grad:
        def __enter__(self):
            GarbageTorch.grad_off = True

        def __exit__(self, *exc):
            GarbageTorch.grad_off = False


class ZeroFillTest(unittest.TestCase):
    """The zero fill (the judge's known test defects: zero_fill), with a stand-in for torch."""

    def test_the_family_returns_zeros_and_is_put_back(self):
        torch = GarbageTorch()
        originals = (torch.empty, torch.empty_like, torch.empty_strided,
                     torch.Tensor.__dict__["new_empty_strided"])
        fill = r.ZeroFill(torch)
        fill.install()
        try:
            t = torch.empty(3, requires_grad=True)
            self.assertEqual(t.values, [0.0] * 3)
            self.assertTrue(t.zeroed_under_no_grad)  # a leaf that requires grad stays one
            self.assertTrue(t.requires_grad)
            self.assertEqual(torch.empty_like(t).values, [0.0] * 3)
            self.assertEqual(torch.empty_strided(2, (1,)).values, [0.0] * 2)
            base = torch.Tensor()
            self.assertEqual(base.new_empty(4).values, [0.0] * 4)
            self.assertEqual(base.new_empty_strided(1, (1,)).values, [0.0])
            self.assertEqual(torch.empty(2).values, [0.0] * 2)
        finally:
            fill.remove()
        self.assertEqual(fill.report["patched"],
                         ["torch.empty", "torch.empty_like", "torch.empty_strided",
                          "torch.Tensor.new_empty", "torch.Tensor.new_empty_strided"])
        self.assertEqual(fill.report["calls"],
                         {"torch.empty": 2, "torch.empty_like": 1, "torch.empty_strided": 1,
                          "torch.Tensor.new_empty": 1, "torch.Tensor.new_empty_strided": 1})
        # Put back as they were: the module's functions, the class's own method, and the
        # inherited one inherited again.
        self.assertEqual((torch.empty, torch.empty_like, torch.empty_strided,
                          torch.Tensor.__dict__["new_empty_strided"]), originals)
        self.assertNotIn("new_empty", torch.Tensor.__dict__)
        self.assertEqual(torch.empty(2).values, [7.5, 7.5])
        self.assertEqual(torch.Tensor().new_empty(1).values, [7.5])

    def run_packing(self, zero_fill):
        """A run whose operator code packs into torch.empty and adds into it, as
        matmul_dequant_int4's quantize_int4 does."""
        d = tempfile.mkdtemp()
        torch = GarbageTorch()
        sys.modules["__kjfake_torch__"] = torch
        try:
            cand, tpath = write_operator(
                d,
                "import __kjfake_torch__ as torch\n"
                "def pack(n):\n    w = torch.empty(n)\n"
                "    for i in range(n):\n        w.values[i] += i\n    return w.values\n",
                "def test_pack():\n    return {'test_case_1': pack(3)}\n"
                "result_gold = test_pack()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["test"], "require_torch": True, "zero_fill": zero_fill}
            rec, data = r.run(req, (torch, None, FakeOps()))
        finally:
            del sys.modules["__kjfake_torch__"]
        self.assertEqual(torch.empty(1).values, [7.5])  # put back after the run
        return rec, data

    def test_a_run_fills_before_the_operator_code_and_says_so(self):
        rec, data = self.run_packing(True)
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertEqual(struct.unpack("<3d", data[:24]), (0.0, 1.0, 2.0))
        self.assertEqual(rec["zero_fill"]["calls"], {"torch.empty": 1})
        self.assertIn("torch.Tensor.new_empty", rec["zero_fill"]["patched"])
        rec, data = self.run_packing(False)  # the test as it stands: what memory held
        self.assertEqual(struct.unpack("<3d", data[:24]), (7.5, 8.5, 9.5))
        self.assertNotIn("zero_fill", rec)

    def run_timed(self, zero_fill):
        """A timed run whose operator returns a torch.empty it never writes, as
        mul_exponent_compensator's launches with no program do."""

        class GarbageFT(FT):
            def zero_(self):
                self.values = [0.0] * len(self.values)
                return self

        torch = fake_torch()
        # Small tensors hold what memory held; the timer's own flush buffer stays empty.
        torch.empty = lambda n, dtype=None, device=None: GarbageFT([7.5] * n if n < 64 else [])
        torch.no_grad = contextlib.nullcontext
        sys.modules["__kjfake_torch__"] = torch
        d = kjfake_module()
        try:
            cand, tpath = write_operator(
                d,
                "import __kjfake_torch__ as torch\n"
                "def op(x):\n    return torch.empty(len(x.values))\n",
                "from kjfake import FT\n"
                "def test_op():\n    return {'a': op(FT([0.5, 1.5])).values}\n"
                "r = test_op()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["time"], "require_torch": False, "zero_fill": zero_fill,
                   "timing": {"warmup": 1, "reps": 3, "min_reps": 1,
                              "check": {"seed": SECRET, "tolerances": TOL}}}
            rec, data = r.run(req, (torch, None, FakeOps()))
        finally:
            forget_kjfake_module(d)
            del sys.modules["__kjfake_torch__"]
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        outputs = [decode(rep, data)["result"] for rep in rec["timing"]["sites"][0]["check"]["outputs"]]
        return rec, outputs

    def test_timed_calls_are_filled_too(self):
        rec, outputs = self.run_timed(True)
        self.assertEqual(outputs, [[0.0, 0.0]] * 3)
        # The test's call, the probe's three, the warm-up and the 3 timed calls.
        self.assertGreaterEqual(rec["zero_fill"]["calls"]["torch.empty"], 4)
        rec, outputs = self.run_timed(False)  # what memory held
        self.assertEqual(outputs, [[7.5, 7.5]] * 3)
        self.assertNotIn("zero_fill", rec)

    def test_without_torch_the_fill_is_a_setup_error(self):
        d = tempfile.mkdtemp()
        cand, tpath = os.path.join(d, "candidate.py"), os.path.join(d, "test.py")
        for path in (cand, tpath):
            with open(path, "w") as f:
                f.write("result_gold = 1\n")
        req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
               "seed": 7, "modes": ["test"], "require_torch": False, "zero_fill": True}
        rec, _ = r.run(req, (None, None))
        self.assertEqual(rec["error"]["stage"], "setup")

    def test_with_the_real_torch(self):
        torch = r.import_optional("torch")
        if torch is None:
            self.skipTest("torch is not installed for this python")
        devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
        empty = torch.empty
        own = "new_empty" in torch.Tensor.__dict__
        fill = r.ZeroFill(torch)
        fill.install()
        try:
            for dev in devices:
                for _ in range(3):  # reuse freed blocks that held something
                    junk = torch.full((1024,), 3.0, device=dev)
                    del junk
                    made = [torch.empty(1024, device=dev),
                            torch.empty(1024, device=dev).to(torch.int32),
                            torch.empty_like(torch.ones(1024, device=dev)),
                            torch.empty_strided((32, 32), (32, 1), device=dev),
                            torch.ones(2, device=dev).new_empty((1024,)),
                            torch.ones(2, device=dev).new_empty_strided((1024,), (1,))]
                    for t in made:
                        self.assertEqual(int(torch.count_nonzero(t)), 0, (dev, t.shape))
            leaf = torch.empty(4, requires_grad=True)
            self.assertTrue(leaf.is_leaf and leaf.requires_grad)
            self.assertEqual(int(torch.count_nonzero(leaf.detach())), 0)
        finally:
            fill.remove()
        self.assertIs(torch.empty, empty)
        self.assertEqual("new_empty" in torch.Tensor.__dict__, own)
        self.assertGreaterEqual(fill.calls["torch.empty"], 6)


class ProcessTest(unittest.TestCase):
    """The runner as a process, both ways in and out."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        for name, text in (("candidate.py", "def op(x):\n    return x + 1\n"),
                           ("test.py", "def test_op():\n    return {'a': op(1)}\nr = test_op()\n")):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        self.req = {"nonce": "abc", "candidate_path": os.path.join(self.dir, "candidate.py"),
                    "test_path": os.path.join(self.dir, "test.py"), "seed": 1,
                    "require_torch": False}

    def test_files(self):
        path = os.path.join(self.dir, "request.json")
        with open(path, "w") as f:
            json.dump(self.req, f)
        out = os.path.join(self.dir, "out")
        subprocess.run([sys.executable, "-I", RUNNER, "--request", path, "--output-dir", out],
                       check=True)
        with open(os.path.join(out, "record.json")) as f:
            rec = json.load(f)
        self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(rec["nonce"], "abc")
        with open(os.path.join(out, "outputs.bin"), "rb") as f:
            # The test's outputs come first (with torch installed, what each call gave follows).
            self.assertEqual(rec["outputs"]["data_bytes"], 8)
            self.assertEqual(struct.unpack("<q", f.read()[:8])[0], 2)

    def run_gated(self, go):
        """Starts the runner with --go-fd before its request exists, then writes the request
        and `go` (b"" closes the pipe with nothing)."""
        req_fd = os.memfd_create("req")
        res_fd = os.memfd_create("res")
        go_read, go_write = os.pipe()
        p = subprocess.Popen([sys.executable, "-I", RUNNER, "--request-fd", str(req_fd),
                              "--result-fd", str(res_fd), "--go-fd", str(go_read)],
                             pass_fds=(req_fd, res_fd, go_read))
        os.close(go_read)
        time.sleep(0.2)
        self.assertIsNone(p.poll())  # waiting for its turn
        os.pwrite(req_fd, json.dumps(self.req).encode(), 0)
        if go:
            os.write(go_write, go)
        os.close(go_write)
        self.assertEqual(p.wait(timeout=60), 0)
        return r.read_fd(res_fd)

    def test_a_gated_runner_waits_then_reads_its_request(self):
        payload = self.run_gated(b"g")
        rec = json.loads(payload.partition(b"\n")[0])
        self.assertEqual(rec["status"], "ok", rec)
        self.assertEqual(rec["nonce"], "abc")  # the request written after it started
        self.assertIn("wait", rec["seconds"])
        self.assertIn("preload", rec["seconds"])

    def test_a_cancelled_runner_ends_without_a_report(self):
        self.assertEqual(self.run_gated(b""), b"")

    def test_descriptors_are_read_closed_and_not_inherited(self):
        # The operator code lists its descriptors in a child process: the channel is not there.
        code = ("import subprocess, sys\n"
                "def op(x):\n"
                "    out = subprocess.run([sys.executable, '-c', 'import os; "
                "print(sorted(int(f) for f in os.listdir(\"/proc/self/fd\")))'],"
                " capture_output=True, text=True).stdout\n"
                "    return out.strip()\n")
        with open(self.req["candidate_path"], "w") as f:
            f.write(code)
        # High numbers, so that they cannot be confused with the listing's own descriptor.
        req_fd = os.dup2(os.memfd_create("req"), 50)
        os.write(req_fd, json.dumps(self.req).encode())
        res_fd = os.dup2(os.memfd_create("res"), 51)
        subprocess.run([sys.executable, "-I", RUNNER, "--request-fd", str(req_fd),
                        "--result-fd", str(res_fd)], pass_fds=(req_fd, res_fd), check=True)
        payload = r.read_fd(res_fd)
        line, _, _ = payload.partition(b"\n")
        rec = json.loads(line)
        self.assertEqual(rec["status"], "ok", rec)
        child_fds = json.loads(rec["outputs"]["entries"][0]["text"])
        self.assertNotIn(req_fd, child_fds)
        self.assertNotIn(res_fd, child_fds)
        self.assertEqual(child_fds, [0, 1, 2, 3])  # stdio and the listing itself


# ---------------------------------------------------------------------------------------------
# The check of every timed call, with a stand-in for torch: tensors are lists of floats, and
# FakeOps does what TorchOps does with them (TorchOpsTest below runs the real one where torch
# is installed).


class FT:
    """A stand-in tensor: a flat list of values, a dtype name, a device-less layout."""

    layout = "strided"
    is_quantized = False
    is_cuda = False

    def __init__(self, values, dtype="float32"):
        self.values = [float(v) for v in values] if dtype in r.FLOAT_DTYPES else list(values)
        self.dtype = dtype
        self.shape = (len(self.values),)

    def zero_(self):
        return self

    def numel(self):
        return len(self.values)


def kjfake_module():
    """A folder on sys.path with a module `kjfake` whose FT is this file's: the operator and
    test code of a whole run import it. Undone by forget_kjfake_module."""
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "kjfake.py"), "w") as f:
        f.write("import sys\nFT = sys.modules['__kjfake_ft__']\n")
    sys.modules["__kjfake_ft__"] = FT
    sys.path.insert(0, d)
    return d


def write_operator(d, candidate, test):
    """Writes an operator's code and its test code into `d`; returns their paths."""
    cand, tpath = os.path.join(d, "candidate.py"), os.path.join(d, "test.py")
    for path, text in ((cand, candidate), (tpath, test)):
        with open(path, "w") as f:
            f.write(text)
    return cand, tpath


def forget_kjfake_module(d):
    sys.path.remove(d)
    del sys.modules["__kjfake_ft__"]
    sys.modules.pop("kjfake", None)


class FakeOps:
    def __init__(self):
        self.made = []  # (seed, values) of every perturbed copy

    def is_tensor(self, v):
        return isinstance(v, FT)

    def dtype(self, t):
        return t.dtype

    def sync(self):
        pass

    def clone(self, t):
        return FT(t.values, t.dtype)

    def is_float(self, t):
        return t.dtype in r.FLOAT_DTYPES

    def perturbable(self, t):
        return self.is_float(t) and any(
            math.isfinite(v) and v != round(v) for v in t.values)

    def perturbed(self, t, seed, relative):
        rng = random.Random(seed)
        scale = 1 + (1 if rng.random() < 0.5 else -1) * relative * (0.5 + 0.5 * rng.random())
        out = FT([v * scale * (1 + relative * (2 * rng.random() - 1)) for v in t.values], t.dtype)
        self.made.append((seed, out.values))
        return out

    def same(self, a, b):
        return a.dtype == b.dtype and struct.pack("<%dd" % len(a.values), *a.values) == \
            struct.pack("<%dd" % len(b.values), *b.values)

    def finite(self, t):
        return all(math.isfinite(v) for v in t.values)

    def close(self, a, b, tolerance):
        if tolerance is None or a.dtype != b.dtype or len(a.values) != len(b.values):
            return self.same(a, b)
        rtol, atol = tolerance
        return all(abs(x - y) <= atol + rtol * abs(y) for x, y in zip(a.values, b.values))

    def parts(self, v):
        if isinstance(v, FT):
            return v.dtype, list(v.shape), struct.pack("<%df" % len(v.values), *v.values), False
        return None

    def encoded_size(self, v):
        return (len(v.values), 4) if isinstance(v, FT) else None

    def sample_positions(self, numel, count, seed):
        """TorchOps' stratified positions (one in each of `count` runs), from Python's
        generator."""
        rng = random.Random(seed)
        out = []
        for i in range(count):
            start, end = i * numel // count, (i + 1) * numel // count
            out.append(start + rng.randrange(end - start))
        return out

    def sampled_parts(self, v, count, seed):
        if not isinstance(v, FT):
            return None
        if len(v.values) <= count:
            return self.parts(v) + (None,)
        picked = [v.values[i] for i in self.sample_positions(len(v.values), count, seed)]
        return (v.dtype, list(v.shape), struct.pack("<%df" % count, *picked), False,
                {"elements": count, "seed": seed})


def fake_torch():
    """Just what CudaTimer (and run()) touch: events on a clock that advances 1 ms a record."""

    class Event:
        clock = [0.0]

        def __init__(self, enable_timing=False):
            self.t = None

        def record(self):
            Event.clock[0] += 1.0
            self.t = Event.clock[0]

        def elapsed_time(self, end):
            return end.t - self.t

    t = types.SimpleNamespace(
        __version__="fake", version=types.SimpleNamespace(cuda="none"), Tensor=FT, int32="int32",
        empty=lambda n, dtype=None, device=None: FT([]), manual_seed=lambda s: None,
        get_rng_state=lambda: None, set_rng_state=lambda s: None)
    t.cuda = types.SimpleNamespace(
        Event=Event, synchronize=lambda: None, current_device=lambda: 0,
        get_device_properties=lambda d: types.SimpleNamespace(L2_cache_size=1 << 20),
        is_available=lambda: False, is_initialized=lambda: False)
    return t


def decode(rep, blob):
    """{name: [values]} of one timed call's kept outputs."""
    out = {}
    for e in rep["entries"]:
        if e["kind"] != "tensor":
            out[e["name"]] = e["kind"]
            continue
        start = rep["offset"] + e["offset"]
        raw = blob[start:start + e["nbytes"]]
        out[e["name"]] = list(struct.unpack("<%df" % (len(raw) // 4), raw))
    return out


SECRET = 1234
TOL = {"float32": {"rtol": 1e-4, "atol": 1e-5}}


def timer(plan=None, reps=6, **check):
    params = {"warmup": 2, "reps": reps, "min_reps": 2, "max_ms_per_site": 60000,
              "check": dict({"seed": SECRET, "tolerances": TOL, "plan": plan}, **check)}
    return r.CudaTimer(fake_torch(), params, ops=FakeOps())


def plan_of(t):
    """The plan the judge hands on from a reference's first timing process."""
    return [{"entry": s["entry"], "mode": s["check"]["mode"], "perturb": s["check"]["perturbed"],
             "observe": s["check"]["observed"], "probe": s["check"]["probe"],
             "reps": len(s["samples_ms"]), "whole": s["check"]["whole"],
             "sample": s["check"]["sample"]} for s in t.sites]


def add(x, y):
    return FT([a + b for a, b in zip(x.values, y.values)])


class StaleAdd:
    """The cheat: the right answer the first time a shape comes, that answer afterwards."""

    def __init__(self):
        self.cache = {}

    def __call__(self, x, y):
        key = x.shape
        if key not in self.cache:
            self.cache[key] = add(x, y)
        return self.cache[key]


class FakeDriver:
    """The four driver functions PersistingL2 takes, recording what they were asked; `most` is
    the device's persisting L2 in bytes, `fail` what cuCtxSetLimit returns."""

    def __init__(self, most=50 << 20, fail=0):
        self.calls = []

        def set_limit(limit, value):
            self.calls.append(("limit", limit, value))
            return fail

        def reset():
            self.calls.append(("reset",))
            return 0

        def get_device(ptr):
            ptr._obj.value = 0
            return 0

        def attribute(ptr, attr, device):
            self.calls.append(("attribute", attr, device))
            ptr._obj.value = most
            return 0

        self.cuCtxSetLimit, self.cuCtxResetPersistingL2Cache = set_limit, reset
        self.cuCtxGetDevice, self.cuDeviceGetAttribute = get_device, attribute


class PersistingL2Test(unittest.TestCase):
    """Persisting L2 is taken back before every timed repetition (tests/cheats/task/persist_l2.cu
    is the task path's cheat; an operator would do the same through ctypes)."""

    def test_every_timed_repetition_takes_persisting_l2_back_before_its_flush(self):
        driver = FakeDriver()
        order = []
        fake = fake_torch()
        real_zero = FT.zero_

        def zero(t):
            order.append("flush")
            return real_zero(t)

        fake.Tensor = type("T", (FT,), {"zero_": zero})
        l2 = r.PersistingL2(driver)
        params = {"warmup": 1, "reps": 4, "min_reps": 4, "max_ms_per_site": 60000,
                  "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        t = r.CudaTimer(fake, params, ops=FakeOps(), persisting_l2=l2)
        real_call = l2.__call__
        l2_calls = []
        t.persisting_l2 = lambda: (order.append("l2"), l2_calls.append(1), real_call())
        t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        site = t.sites[0]
        reps = len(site["samples_ms"]) + site["not_counted"]
        self.assertEqual(len(l2_calls), reps)
        self.assertEqual(order[:2], ["l2", "flush"])
        self.assertEqual([c for c in driver.calls if c[0] == "limit"],
                         [("limit", r.PersistingL2.LIMIT_PERSISTING_L2_CACHE_SIZE, 0)] * reps)
        self.assertEqual(sum(1 for c in driver.calls if c[0] == "reset"), reps)
        self.assertEqual(l2.resets, reps)
        self.assertEqual(l2.describe(), "reset before every timed repetition")

    def test_a_gpu_without_persisting_l2_is_said_and_left_alone(self):
        driver = FakeDriver(most=0)
        l2 = r.PersistingL2(driver)
        l2()
        self.assertEqual(l2.resets, 0)
        self.assertEqual(l2.describe(), "not reset: this GPU has no persisting L2")
        self.assertFalse([c for c in driver.calls if c[0] != "attribute"])

    def test_a_failing_driver_call_says_why_and_is_not_tried_again(self):
        driver = FakeDriver(fail=201)
        l2 = r.PersistingL2(driver)
        l2()
        l2()
        self.assertIn("cuCtxSetLimit returned 201", l2.describe())
        self.assertEqual(len([c for c in driver.calls if c[0] == "limit"]), 1)

    def test_no_driver_is_said_not_raised(self):
        l2 = r.PersistingL2(object())
        l2()
        self.assertTrue(l2.describe().startswith("not reset: the CUDA driver's functions"))


class ClockTest(unittest.TestCase):
    """The runner's host clock is the one time.perf_counter was as it loaded: operator code
    that replaces it (tests/cheats/triton/patched_timer.py) does not slow the runner's."""

    def test_a_replaced_perf_counter_is_not_the_runners_clock(self):
        real = time.perf_counter
        try:
            time.perf_counter = lambda: 0.0
            a = r._clock()
            time.sleep(0.01)
            self.assertGreaterEqual(r._clock() - a, 0.009)
            self.assertEqual(time.perf_counter(), 0.0)
        finally:
            time.perf_counter = real

    def test_an_event_patched_after_the_timer_is_made_is_not_what_it_reads(self):
        # The timer is made before the operator code runs; patching then (as patched_timer.py
        # does with a tenth of the real time) does not reach its samples.
        def samples(patch):
            fake = fake_torch()
            p = {"warmup": 1, "reps": 4, "min_reps": 2, "max_ms_per_site": 60000,
                 "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
            t = r.CudaTimer(fake, p, ops=FakeOps())
            real = fake.cuda.Event.elapsed_time
            if patch:
                fake.cuda.Event.elapsed_time = lambda self, end: 0.1 * real(self, end)
            t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
            fake.cuda.Event.elapsed_time = real
            return t.sites[0]["samples_ms"]

        honest = samples(False)
        self.assertGreater(min(honest), 0)
        self.assertEqual(samples(True), honest)


class EndEventTest(unittest.TestCase):
    """The end event sits right behind the call's work; a long tail past it (work on another
    stream, finished only by the device-wide synchronize) moves the site to the device-wide end."""

    def site(self, sync_ms, **params):
        fake = fake_torch()
        Event = fake.cuda.Event

        def synchronize():  # the time the device-wide synchronize waits
            Event.clock[0] += sync_ms

        fake.cuda.synchronize = synchronize
        p = {"warmup": 1, "reps": 4, "min_reps": 2, "max_ms_per_site": 60000,
             "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        p.update(params)
        t = r.CudaTimer(fake, p, ops=FakeOps())
        t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        return t.sites[0]

    def test_a_call_whose_work_ends_with_it_is_timed_to_the_stream_end(self):
        # Each record advances the fake clock 1 ms: start → end is 1 ms, end → after 1 ms.
        s = self.site(0.0, side_work_ms=5)
        self.assertEqual(s["end"], "stream")
        self.assertEqual(s["samples_ms"], [1.0] * 4)
        self.assertEqual(s["tail_ms"], 1.0)

    def test_work_that_outlasts_the_call_is_timed_to_the_device_wide_end(self):
        s = self.site(10.0, side_work_ms=5)
        self.assertEqual(s["end"], "device")
        self.assertEqual(s["tail_ms"], 11.0)
        self.assertEqual(s["samples_ms"], [12.0] * 4)


class RuntimeWatchTest(unittest.TestCase):
    """What the operator code leaves running beside its timed calls (a thread, a torch mode, a
    trace hook) is reported per site; what ran before the baseline is not."""

    def site(self, fake=None, watch=None, before=None):
        fake = fake or fake_torch()
        p = {"warmup": 1, "reps": 3, "min_reps": 2, "max_ms_per_site": 60000,
             "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        t = r.CudaTimer(fake, p, ops=FakeOps(), watch=watch or r.RuntimeWatch(fake))
        if before:
            before()
        t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        return t.sites[0]

    def test_nothing_left_running_reports_nothing(self):
        self.assertNotIn("watch", self.site())

    def test_a_thread_the_operator_started_is_reported_by_name(self):
        stop = threading.Event()
        worker = threading.Thread(target=stop.wait, name="late-launcher", daemon=True)
        try:
            s = self.site(before=worker.start)
        finally:
            stop.set()
            worker.join()
        self.assertEqual(s["watch"], ["thread 'late-launcher'"])

    def test_a_thread_alive_before_the_baseline_is_not(self):
        stop = threading.Event()
        worker = threading.Thread(target=stop.wait, name="torch-own", daemon=True)
        worker.start()
        try:
            s = self.site()
        finally:
            stop.set()
            worker.join()
        self.assertNotIn("watch", s)

    def test_a_thread_python_did_not_start_is_not(self):
        # As torch's autograd engine runs a backward written in Python on a thread of its own.
        import _thread
        ready, stop = _thread.allocate_lock(), _thread.allocate_lock()
        ready.acquire()
        stop.acquire()

        def foreign():
            threading.current_thread()  # registers a dummy, as any Python code there would
            ready.release()
            stop.acquire()

        def start():
            _thread.start_new_thread(foreign, ())
            ready.acquire()
        try:
            s = self.site(before=start)
        finally:
            stop.release()
        self.assertNotIn("watch", s)

    def test_a_pushed_torch_mode_and_a_trace_hook_are_reported(self):
        fake = fake_torch()
        depth = {"function": 0, "dispatch": 0}
        fake._C = types.SimpleNamespace(_len_torch_function_stack=lambda: depth["function"],
                                        _len_torch_dispatch_stack=lambda: depth["dispatch"])
        watch = r.RuntimeWatch(fake)
        old = sys.gettrace()

        def hook(frame, event, arg):
            return None

        def push():
            depth["dispatch"] = 1
            sys.settrace(hook)
        try:
            s = self.site(fake, watch, before=push)
        finally:
            sys.settrace(old)
        self.assertEqual(s["watch"], ["sys.settrace hook", "torch dispatch mode"])

    def test_operator_code_that_rebinds_the_runners_own_code_is_reported(self):
        # Operator code reaches the runner through sys.modules (it runs as __main__) and
        # replaces a function of its check and a method of a class; names it adds are not the
        # runner's and are not listed.
        runner = sys.modules[r.__name__]
        real_check, real_seen = runner.describe_short, r.RuntimeWatch.seen

        def patch():
            runner.describe_short = lambda e: ""
            r.ZeroFill.forged = True
            runner.added_by_the_operator = 1
        try:
            s = self.site(before=patch)
        finally:
            runner.describe_short = real_check
            del r.ZeroFill.forged
            del runner.added_by_the_operator
        self.assertEqual(s["watch"], ["runner's describe_short replaced"])
        self.assertIs(r.RuntimeWatch.seen, real_seen)
        self.assertNotIn("watch", self.site())
        watch = r.RuntimeWatch(fake_torch())
        real_report = r.CallMarks.report
        r.CallMarks.report = lambda marks: {}
        try:
            self.assertEqual(watch.seen(), ["runner's CallMarks.report replaced"])
        finally:
            r.CallMarks.report = real_report
        self.assertEqual(watch.seen(), [])

    def test_patching_threading_later_does_not_hide_a_thread(self):
        stop = threading.Event()
        worker = threading.Thread(target=stop.wait, name="hidden", daemon=True)
        real = threading.enumerate

        def start_and_hide():
            worker.start()
            threading.enumerate = lambda: [threading.main_thread()]
        try:
            s = self.site(before=start_and_hide)
        finally:
            threading.enumerate = real
            stop.set()
            worker.join()
        self.assertEqual(s["watch"], ["thread 'hidden'"])


class CallMarksTest(unittest.TestCase):
    """--cupti: every call of the operator code is marked in the profiler's clock, the timed ones
    with their site and repetition, so the judge can place each kernel CUPTI saw."""

    def hooks(self, finished=(1,)):
        clock = {"now": 1000, "finishes": list(finished)}

        def now():
            clock["now"] += 10
            return clock["now"]

        def finish():
            return clock["finishes"].pop(0) if clock["finishes"] else 0

        return now, finish

    def timed(self, marks, hold_need_ms=None):
        fake = fake_torch()
        params = {"warmup": 2, "reps": 4, "min_reps": 2, "max_ms_per_site": 60000,
                  "cupti": True, "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        if hold_need_ms is not None:  # the GPU waited on the host until a hold of this much
            state = {"spin_ms": 0.0}
            fake.cuda._sleep = lambda cycles: state.update(spin_ms=cycles / float(1 << 20))

            def query(event):
                waited = state["spin_ms"] < hold_need_ms
                state["spin_ms"] = 0.0
                return waited

            fake.cuda.Event.query = query
        t = r.CudaTimer(fake, params, ops=FakeOps(), marks=marks)
        calls = []

        def op(x, y):
            calls.append(marks.now())
            return add(x, y)

        t.measure("add", op, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        t.measure("add", op, (FT([3.0]), FT([1.0])), {}, lambda: None)
        return t, calls

    def test_every_call_is_marked_and_the_timed_ones_by_site_and_repetition(self):
        marks = r.CallMarks(self.hooks())
        t, calls = self.timed(marks)
        timed = [c for c in marks.calls if c[1] >= 0]
        self.assertEqual([(c[0], c[1]) for c in timed],
                         [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)])
        self.assertEqual(len(timed), sum(len(s["samples_ms"]) for s in t.sites))
        # Each call of the operator code lies inside exactly one window.
        for at in calls:
            inside = [c for c in marks.calls if c[2] < at < c[3]]
            self.assertEqual(len(inside), 1, at)
        # The test's own call and the warm-ups (and the probes) are marked untimed.
        self.assertGreaterEqual(len([c for c in marks.calls if c[1] == -1 and c[0] == 0]), 3)
        self.assertEqual(len(marks.calls), len(calls))
        rep = marks.report()
        self.assertEqual(rep["clock"], True)
        self.assertEqual(rep["finished"], True)
        self.assertEqual(rep["tid"], threading.get_native_id())

    def test_a_repetition_not_counted_is_an_untimed_call(self):
        marks = r.CallMarks(self.hooks())
        t, calls = self.timed(marks, hold_need_ms=0.1)
        self.assertGreater(t.sites[0]["not_counted"], 0)
        timed = [c for c in marks.calls if c[1] >= 0 and c[0] == 0]
        self.assertEqual([c[1] for c in timed], list(range(len(t.sites[0]["samples_ms"]))))
        self.assertEqual(len(marks.calls), len(calls))

    def test_a_record_someone_else_finished_first_is_reported(self):
        marks = r.CallMarks(self.hooks(finished=(0,)))
        self.assertEqual(marks.report()["finished"], False)

    def test_without_the_profiler_nothing_is_marked_and_the_report_says_why(self):
        marks = r.CallMarks()  # this process has no libkjudge_profiler.so preloaded
        self.assertFalse(marks.active)
        fake = fake_torch()
        params = {"warmup": 1, "reps": 2, "min_reps": 1, "cupti": True,
                  "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        t = r.CudaTimer(fake, params, ops=FakeOps(), marks=marks)
        t.measure("add", add, (FT([1.0]), FT([2.0])), {}, lambda: None)
        rep = marks.report()
        self.assertEqual((rep["clock"], rep["calls"]), (False, []))
        self.assertIn("kjudge_profiler_now_ns", rep["why"])

    def test_a_whole_timed_run_reports_its_marks_and_the_import(self):
        d = kjfake_module()
        real = r.profiler_hooks
        r.profiler_hooks = lambda: self.hooks()
        try:
            cand, tpath = write_operator(
                d, "from kjfake import FT\ndef op(x):\n    return FT([2 * v for v in x.values])\n",
                "from kjfake import FT\ndef test_op():\n    return {'a': op(FT([0.5])).values}\n"
                "r = test_op()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["time"], "require_torch": False,
                   "timing": {"warmup": 1, "reps": 3, "min_reps": 1, "cupti": True,
                              "check": {"seed": SECRET, "tolerances": TOL}}}
            rec, _ = r.run(req, (fake_torch(), None, FakeOps()))
        finally:
            r.profiler_hooks = real
            forget_kjfake_module(d)
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        c = rec["cupti"]
        self.assertEqual((c["clock"], c["finished"]), (True, True))
        self.assertEqual([m[1] for m in c["calls"] if m[1] >= 0], [0, 1, 2])
        self.assertLess(c["import"][1], min(m[2] for m in c["calls"]))
        # No CUDA driver behind the fake torch: the record says persisting L2 was not reset.
        self.assertTrue(rec["env"]["persisting_l2"].startswith("not reset: "),
                        rec["env"]["persisting_l2"])
        self.assertEqual(rec["timing"]["persisting_l2_resets"], 0)
        json.dumps(rec)  # what goes over the channel

    def test_not_asked_no_marks(self):
        t = timer()
        self.assertIsNone(t.marks)


class HoldTest(unittest.TestCase):
    """A call the host queues more slowly than the GPU runs it is timed behind a spin that holds
    the stream; a call that waits on the GPU itself is timed without one (host_bound)."""

    def site(self, need_ms=None, has_query=True, slow_at_longest=0):
        """need_ms: the spin that covers the call (None: none does, the call synchronizes);
        slow_at_longest: how many of the first queries at the longest hold (2 ms) find the host
        slow, so that the hold does not cover the call. Counted at the longest hold, not from
        the first query: how fast the hold grows there depends on how fast this host queues."""
        fake = fake_torch()
        state = {"spin_ms": 0.0, "spins": 0, "queries": 0, "at_longest": 0}

        def spin(cycles):  # calibrated below at 2^20 cycles a ms (each record is 1 ms)
            state["spin_ms"] = cycles / float(1 << 20)
            state["spins"] += 1

        def query(event):  # True: the GPU already reached the start event (it waited on us)
            slow = False
            if state["spin_ms"] >= 2.0:
                slow = state["at_longest"] < slow_at_longest
                state["at_longest"] += 1
            waited = need_ms is None or state["spin_ms"] < need_ms or slow
            state["queries"] += 1
            state["spin_ms"] = 0.0
            return waited

        fake.cuda._sleep = spin
        if has_query:
            fake.cuda.Event.query = query
        p = {"warmup": 1, "reps": 5, "min_reps": 2, "max_ms_per_site": 60000,
             "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        t = r.CudaTimer(fake, p, ops=FakeOps())
        # The host's clock, faked: every reading is 10 µs after the last, so how long this
        # machine takes to queue the fake call (a loaded CI host: ms) does not size the hold.
        clock = {"now": 0.0}

        def perf_counter():
            clock["now"] += 1e-5
            return clock["now"]

        # The runner reads its own clock, taken at load (a cheat cannot swap it), so that is
        # what the test replaces.
        real = r._clock
        r._clock = perf_counter
        try:
            t.measure("add", add, (FT([1.0, 2.0]), FT([0.5, 0.25])), {}, lambda: None)
        finally:
            r._clock = real
        return t.sites[0], state

    def test_a_launch_bound_call_gets_a_hold_that_covers_it(self):
        s, state = self.site(need_ms=0.1)
        self.assertGreaterEqual(s["hold_ms"], 0.1)
        self.assertLess(s["hold_ms"], 0.4)  # it doubled from ~0.02 ms until covered
        self.assertFalse(s["host_bound"])
        self.assertGreater(s["not_counted"], 0)
        self.assertEqual(len(s["samples_ms"]), 5)
        self.assertEqual(len(s["check"]["outputs"]), 5)

    def test_a_slow_host_once_at_the_longest_hold_does_not_make_a_call_host_bound(self):
        # Covered from a 1.5 ms hold on, but the host is slow at the first two queries at 2 ms.
        s, state = self.site(need_ms=1.5, slow_at_longest=2)
        self.assertEqual(state["at_longest"], 2 + 5)
        self.assertFalse(s["host_bound"])
        self.assertEqual(s["hold_ms"], 2.0)
        self.assertEqual(len(s["samples_ms"]), 5)

    def test_a_host_slow_three_times_running_at_the_longest_hold_is_host_bound(self):
        s, state = self.site(need_ms=1.5, slow_at_longest=3)
        self.assertTrue(s["host_bound"])
        self.assertEqual(s["hold_ms"], 0.0)
        self.assertEqual(len(s["samples_ms"]), 5)

    def test_a_call_that_waits_on_the_gpu_is_timed_without_a_hold(self):
        s, _ = self.site(need_ms=None)
        self.assertTrue(s["host_bound"])
        self.assertEqual(s["hold_ms"], 0.0)
        self.assertEqual(len(s["samples_ms"]), 5)

    def test_a_call_the_gpu_is_slower_at_gets_no_hold(self):
        s, state = self.site(need_ms=0.0)
        self.assertEqual(s["hold_ms"], 0.0)
        self.assertEqual(state["spins"], 0)
        self.assertEqual(s["not_counted"], 0)

    def test_without_event_query_nothing_is_held(self):
        s, state = self.site(need_ms=None, has_query=False)
        self.assertEqual((s["hold_ms"], s["host_bound"], state["spins"]), (0.0, False, 0))


class FakeJudge:
    """The judge's end of the per-call channel (src/eval/triton_run.cpp, TritonStreamServer), in
    a thread: answers key and done in order with keys of its own, records every message, and
    says "refused" to anything out of turn. `refuse_at` refuses the n-th message whatever it is."""

    def __init__(self, refuse_at=None):
        import socket
        self.judge, runner = socket.socketpair()
        self.fd = runner.detach()
        self.messages = []
        self.refuse_at = refuse_at
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    @staticmethod
    def key(site, rep, kind="k"):
        return "%032x" % (hash((kind, site, rep)) & ((1 << 120) - 1) | 1)

    def serve(self):
        buf = b""
        while True:
            chunk = self.judge.recv(512)
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, _, buf = buf.partition(b"\n")
                words = line.decode().split()
                self.messages.append(words)
                if self.refuse_at is not None and len(self.messages) > self.refuse_at:
                    self.judge.sendall(b"refused\n")
                    return
                if words[0] == "key":
                    self.judge.sendall(("k %s\n" % self.key(int(words[1]), int(words[2]))).encode())
                elif words[0] == "done":
                    self.judge.sendall(("s %s\n" % self.key(int(words[1]), int(words[2]), "s")).encode())
                elif words[0] == "kept":
                    self.judge.sendall(("a %x\n" % int(words[2])).encode())
                elif words[0] == "call":
                    self.judge.sendall(("s %s\n" % self.key(0, int(words[1]), "s")).encode())

    def close(self):
        import socket
        self.judge.shutdown(socket.SHUT_RDWR)
        self.thread.join(5)
        self.judge.close()
        os.close(self.fd)


class CallStreamTest(unittest.TestCase):
    """Issue 31: a timed call's key comes from the judge in its turn, after the call before it
    was committed (its samples with its done, its output's digest with its kept); nothing a
    timed call depends on is in the process before."""

    def measure(self, judge, op=add, reps=4, fake=None):
        p = {"warmup": 1, "reps": reps, "min_reps": 2, "max_ms_per_site": 60000,
             "check": {"seed": SECRET, "tolerances": TOL, "plan": None}}
        ops = FakeOps()
        t = r.CudaTimer(fake or fake_torch(), p, ops=ops, stream=r.CallStream(judge.fd))
        t.measure("add", op, (FT([1.5, 2.25]), FT([0.5, 0.25])), {}, lambda: None)
        return t, ops

    def test_every_timed_call_is_keyed_done_and_kept_in_turn(self):
        judge = FakeJudge()
        try:
            t, ops = self.measure(judge)
        finally:
            judge.close()
        site = t.sites[0]
        kinds = [m[0] for m in judge.messages]
        self.assertEqual(kinds, ["key", "done", "kept"] * 4)
        for rep in range(4):
            key, done, kept = judge.messages[3 * rep:3 * rep + 3]
            self.assertEqual(key, ["key", "0", str(rep)])
            self.assertEqual(done[:3], ["done", "0", str(rep)])
            self.assertEqual(float(done[4] if site["end"] == "device" else done[3]),
                             site["samples_ms"][rep])
            out = site["check"]["outputs"][rep]
            blob = bytes(t.check.blob[out["offset"]:out["offset"] + out["data_bytes"]])
            self.assertEqual(kept, ["kept", "0", str(rep),
                                    __import__("hashlib").sha256(blob).hexdigest()])
        # The new content of each timed call is drawn from the key the judge sent for it, not
        # from the request's seed.
        want = {r.perturb_seed(int(FakeJudge.key(0, rep), 16), 0, rep, path)
                for rep in range(4) for path in ("args[0]", "args[1]")}
        made = {seed for seed, _ in ops.made}
        self.assertTrue(want <= made, (want, made))
        self.assertFalse({r.perturb_seed(SECRET, 0, rep, "args[0]") for rep in range(4)} & made)

    def test_a_repetition_not_counted_keeps_its_key(self):
        judge = FakeJudge()
        fake = fake_torch()
        state = {"n": 0}

        def query(event):  # the first two queries find the start passed: done again
            state["n"] += 1
            return state["n"] <= 2

        fake.cuda.Event.query = query
        fake.cuda._sleep = lambda cycles: None
        try:
            t, _ = self.measure(judge, fake=fake)
        finally:
            judge.close()
        self.assertEqual(t.sites[0]["not_counted"], 2)
        self.assertEqual([m[0] for m in judge.messages], ["key", "done", "kept"] * 4)

    def test_a_judge_that_says_no_ends_the_timing(self):
        judge = FakeJudge(refuse_at=3)  # the second call's key
        try:
            with self.assertRaises(r.StreamError):
                self.measure(judge)
        finally:
            judge.close()

    def test_what_each_entry_call_left_is_committed_as_it_is_recorded(self):
        judge = FakeJudge()
        try:
            rec = r.CallRecorder(FakeOps(), stream=r.CallStream(judge.fd))
            rec.record("add", FT([1.0, 2.0]), (FT([0.5]),), {})
            rec.record("add", object(), (), {})  # nothing it can encode as a tensor: kept as other
            import time as _t
            _t.sleep(0.05)
        finally:
            judge.close()
        self.assertEqual([m[:2] for m in judge.messages], [["rec", "0"], ["rec", "1"]])
        first = rec.calls[0]["outputs"]
        blob = bytes(rec.blob[first["offset"]:first["offset"] + first["data_bytes"]])
        self.assertEqual(judge.messages[0][2], __import__("hashlib").sha256(blob).hexdigest())

    def test_without_a_judge_the_keys_are_the_requests_seed(self):
        keys = r.LocalKeys(77)
        self.assertEqual((keys.key(0, 1), keys.done(0, 1, 1.0, 1.0)), (77, 77))


class TamperTest(unittest.TestCase):
    """Issue 31: operator code that rebinds the runner's own code (its module's names, its
    classes' methods, the functions its live objects hold) is reported, and the judge refuses
    the run."""

    def test_a_rebound_module_name_is_named(self):
        t = r.Tamper()
        real = r.channel_bytes
        try:
            r.channel_bytes = lambda record, data: b""
            self.assertIn("runner's channel_bytes replaced", t.changes())
        finally:
            r.channel_bytes = real
        self.assertEqual(t.changes_now(), [])  # what is there now; changes() keeps the past

    def test_a_rebound_class_method_is_named(self):
        t = r.Tamper()
        real = r.CudaTimer.measure
        try:
            r.CudaTimer.measure = lambda self, *a: None
            self.assertIn("runner's CudaTimer.measure replaced", t.changes())
        finally:
            r.CudaTimer.measure = real

    def test_code_replaced_in_place_is_named(self):
        # The function objects stay; what they run does not (held-out variants: a method's
        # __code__, torch's Event.elapsed_time's __code__ the timer holds, a closure's cell).
        t = r.Tamper()
        real = r.CudaTimer._cycles.__code__
        try:
            r.CudaTimer._cycles.__code__ = (lambda self, ms: 1).__code__
            self.assertIn("runner's CudaTimer._cycles replaced", t.changes())
        finally:
            r.CudaTimer._cycles.__code__ = real
        self.assertEqual(t.changes_now(), [])
        cell = r._dumps.__closure__[0]
        was = cell.cell_contents
        try:
            cell.cell_contents = lambda value, level: ["{}"]
            self.assertIn("runner's _dumps replaced", t.changes_now())
        finally:
            cell.cell_contents = was
        fake = fake_torch()

        def elapsed(self_, end):
            return end.t - self_.t

        fake.cuda.Event.elapsed_time = elapsed
        tm = r.CudaTimer(fake, {"check": {"seed": 1}}, ops=FakeOps())
        w = r.Tamper()
        w.watch("timer", tm)
        elapsed.__code__ = (lambda self_, end: 0.1).__code__
        self.assertIn("the runner's timer._elapsed replaced", w.changes())

    def test_an_objects_functions_replaced_added_or_its_class_swapped_are_named(self):
        tm = timer()
        t = r.Tamper()
        t.watch("timer", tm)
        real = tm._elapsed
        tm._elapsed = lambda a, b: 0.5 * real(a, b)  # the 10.49x cheat, through gc
        tm.extra = lambda: None
        self.assertEqual(t.changes(), ["the runner's timer._elapsed replaced",
                                       "the runner's timer.extra added"])
        tm._elapsed = real
        del tm.extra
        tm.__class__ = type("Evil", (r.CudaTimer,), {})
        self.assertEqual(t.changes_now(), ["the runner's timer changed its class"])

    def test_a_change_undone_before_the_end_is_still_reported(self):
        t = r.Tamper()
        real = r.describe_short
        try:
            r.describe_short = lambda e: ""
            t.note()  # the timer looks after every timed call
        finally:
            r.describe_short = real
        self.assertEqual(t.changes(), ["runner's describe_short replaced"])

    def test_a_whole_run_reports_what_its_operator_code_rebound(self):
        d = tempfile.mkdtemp()
        cand, test = write_operator(
            d, "import sys\nR = sys.modules['kjudge_triton_runner']\n"
               "R.describe_short = lambda e: 'nothing'\ndef f(x):\n    return x + 1\n",
            "def test_f():\n    return {'a': f(1)}\nresult_gold = test_f()\n")
        real = r.describe_short
        try:
            record, _ = r.run({"nonce": "n", "candidate_path": cand, "test_path": test,
                               "seed": 1, "modes": ["test"], "require_torch": False})
        finally:
            r.describe_short = real
        self.assertEqual(record["status"], "ok")
        self.assertEqual(record["tampered"], ["runner's describe_short replaced"])

    def test_an_honest_run_reports_nothing(self):
        d = tempfile.mkdtemp()
        cand, test = write_operator(d, "def f(x):\n    return x + 1\n",
                                    "def test_f():\n    return {'a': f(1)}\n"
                                    "result_gold = test_f()\n")
        record, _ = r.run({"nonce": "n", "candidate_path": cand, "test_path": test, "seed": 1,
                           "modes": ["test"], "require_torch": False})
        self.assertNotIn("tampered", record)


class ReportEncoderTest(unittest.TestCase):
    """Issue 31: a candidate that replaced json.dumps halved every sample the report carried.
    The runner's encoder is made of json's C encoder as the module loads."""

    def test_replacing_jsons_functions_later_does_not_reach_the_report(self):
        import json as j
        import json.encoder as je
        saved = (j.dumps, je.JSONEncoder.encode, je.JSONEncoder.iterencode, je.c_make_encoder)
        record = {"samples_ms": [0.5, 1.25], "nonce": "x"}
        honest = r.channel_bytes(record, b"")
        try:
            j.dumps = lambda *a, **k: "{}"
            je.JSONEncoder.encode = lambda self, o: "{}"
            je.JSONEncoder.iterencode = lambda self, o, _one_shot=False: iter(["{}"])
            je.c_make_encoder = None
            self.assertEqual(r.channel_bytes(record, b""), honest)
        finally:
            j.dumps, je.JSONEncoder.encode, je.JSONEncoder.iterencode, je.c_make_encoder = saved
        self.assertEqual(json.loads(honest.decode().splitlines()[0])["samples_ms"], [0.5, 1.25])


class TimedCheckTest(unittest.TestCase):
    X, Y = FT([0.5, -1.25, 3.0]), FT([2.0, 0.75, -0.125])

    def test_the_reference_decides_what_gets_new_content_and_every_timed_output_is_kept(self):
        t = timer()
        calls = []

        def op(x, idx, mask, scale):
            calls.append([v for v in x.values])
            return FT([v * m * scale for v, m in zip(x.values, mask.values)])

        idx = FT([0, 2, 1], "int64")
        mask = FT([1.0, 0.0, 1.0])  # whole numbers: a mask keeps its meaning
        result = t.measure("op", op, (self.X, idx, mask, 2.0), {}, lambda: None)
        self.assertEqual(result.values, [1.0, 0.0, 6.0])  # the test's own call, untouched
        site = t.sites[0]
        check = site["check"]
        self.assertEqual(check["mode"], "perturbed", check)
        self.assertEqual(check["perturbed"], ["args[0]"])
        # Read back: what did not get new content (it could be an output); x is only read.
        self.assertEqual(check["observed"], ["args[1]", "args[2]"])
        self.assertEqual(len(check["outputs"]), len(site["samples_ms"]))
        self.assertEqual(len(site["samples_ms"]), 6)
        # 1 own call, 2 warm-ups, 3 probe calls, 6 timed calls: only the timed ones are new.
        self.assertEqual(len(calls), 12)
        timed = calls[6:]
        self.assertEqual(len({tuple(c) for c in timed}), 6)
        for c in timed:
            self.assertNotEqual(c, self.X.values)
            # Signs and zeros stay, the size moves by at most 1/8 + 1/8 and change.
            for new, old in zip(c, self.X.values):
                self.assertGreater(new / old, 0.76)
                self.assertLess(new / old, 1.27)
        for rep, c in zip(check["outputs"], timed):
            kept = decode(rep, bytes(t.check.blob))
            expect = [v * m * 2.0 for v, m in zip(c, mask.values)]
            for got, want in zip(kept["result"], expect):
                self.assertAlmostEqual(got, want, places=5)
        self.assertEqual(t.check.blob[:0], b"")
        json.dumps(t.sites)  # the report is JSON

    def test_an_in_place_output_is_kept_beside_the_result(self):
        t = timer()

        def op(x, out=None):
            out.values = [2 * v for v in x.values]

        t.measure("op", op, (self.X,), {"out": FT([0.0, 0.0, 0.0])}, lambda: None)
        check = t.sites[0]["check"]
        # The test's own call filled the buffer: it gets new content too, which the call
        # overwrites, and so it is read back.
        self.assertEqual(check["perturbed"], ["args[0]", "kwargs.out"])
        self.assertEqual(check["observed"], ["kwargs.out"])
        kept = decode(check["outputs"][0], bytes(t.check.blob))
        self.assertEqual(kept["result"], "none")
        self.assertEqual(len(kept["kwargs.out"]), 3)
        self.assertNotEqual(kept["kwargs.out"], [1.0, -2.5, 6.0])

    def test_the_candidate_gets_the_references_inputs_and_a_stale_cache_shows(self):
        ref = timer()
        ref.measure("add", add, (self.X, self.Y), {}, lambda: None)
        plan = plan_of(ref)
        self.assertEqual(plan[0]["perturb"], ["args[0]", "args[1]"])
        honest = timer(plan)
        calls = []

        def counted(x, y):
            calls.append(1)
            return add(x, y)

        honest.measure("add", counted, (self.X, self.Y), {}, lambda: None)
        # The probe's three calls are made again: every process makes the same calls.
        self.assertEqual(len(calls), 1 + 2 + 3 + 6)
        self.assertEqual(ref.sites[0]["check"]["probe"],
                         [[], ["args[0]", "args[1]"], ["args[0]", "args[1]"]])
        stale = timer(plan)
        first = stale.measure("add", StaleAdd(), (self.X, self.Y), {}, lambda: None)
        self.assertEqual(first.values, [2.5, -0.5, 2.875])  # right on the test's own call
        blobs = [bytes(t.check.blob) for t in (ref, honest, stale)]
        for i in range(6):
            want = decode(ref.sites[0]["check"]["outputs"][i], blobs[0])
            self.assertEqual(decode(honest.sites[0]["check"]["outputs"][i], blobs[1]), want)
            got = decode(stale.sites[0]["check"]["outputs"][i], blobs[2])
            self.assertNotEqual(got, want)  # the judge finds every one of them wrong

    def test_an_operator_with_state_sees_the_same_calls_in_every_process(self):
        class Counter:  # steps a state it keeps, as an optimizer steps a model it is handed
            def __init__(self):
                self.steps = 0

            def __call__(self, x, model):
                model.steps += 1
                return FT([v + model.steps for v in x.values])

        ref = timer()
        ref.measure("step", Counter(), (self.X, Counter()), {}, lambda: None)
        cand = timer(plan_of(ref))
        cand.measure("step", Counter(), (self.X, Counter()), {}, lambda: None)
        for i in range(6):
            self.assertEqual(decode(cand.sites[0]["check"]["outputs"][i], bytes(cand.check.blob)),
                             decode(ref.sites[0]["check"]["outputs"][i], bytes(ref.check.blob)))

    def test_plain_copies_where_new_content_would_change_what_the_reference_does(self):
        cases = []

        def raises(x):  # a precondition on the values
            if x.values != TimedCheckTest.X.values:
                raise ValueError("not the values I know")
            return FT(x.values)

        cases.append((raises, "raised ValueError on new content"))

        def nan(x):
            return FT([v if v in TimedCheckTest.X.values else float("nan") for v in x.values])

        cases.append((nan, "makes result NaN or infinite"))

        def shape(x):
            return FT(x.values) if x.values == TimedCheckTest.X.values else (FT(x.values), None)

        cases.append((shape, "changes the kind, dtype or shape"))
        drawn = [0.0]

        def noisy(x):
            if x.values == TimedCheckTest.X.values:
                return FT(x.values)
            drawn[0] += 1.0
            return FT([v + drawn[0] for v in x.values])

        cases.append((noisy, "disagrees with itself on new content (result)"))
        for fn, why in cases:
            t = timer()
            t.measure("op", fn, (self.X,), {}, lambda: None)
            check = t.sites[0]["check"]
            self.assertEqual(check["mode"], "unperturbed", fn.__name__)
            self.assertIn(why, check["reason"], fn.__name__)
            self.assertEqual(check["perturbed"], [])
            self.assertEqual(check["observed"], ["args[0]"])  # plain copies: all read back
            # Still every output kept: the judge checks them against the reference's on the
            # same plain copies.
            self.assertEqual(len(check["outputs"]), 6)

    def test_nothing_to_change(self):
        t = timer()
        t.measure("op", lambda x, n: FT(x.values), (FT([1.0, 2.0]), 3), {}, lambda: None)
        self.assertEqual(t.sites[0]["check"]["reason"],
                         "no floating-point tensor argument holds a fraction")
        t = timer(perturb=False)
        t.measure("op", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual(t.sites[0]["check"]["reason"], "new content is turned off")

    def test_every_call_starts_from_the_test_calls_random_state(self):
        t = timer()
        resets = []
        t.measure("add", add, (self.X, self.Y), {}, lambda: resets.append(1))
        self.assertEqual(len(resets), 2 + 3 + 6)  # warm-ups, probe calls, timed calls

    def test_repetitions_follow_the_plan_and_are_cut_only_where_no_sample_fits(self):
        # Outputs of three floats: a sample of them is all of them, so nothing smaller fits.
        ref = timer(reps=30, max_bytes_per_site=12 * 4)  # 12 floats: four calls of three
        ref.measure("add", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual(len(ref.sites[0]["samples_ms"]), 4)
        self.assertEqual(plan_of(ref)[0]["reps"], 4)
        cand = timer(plan_of(ref), reps=30)
        cand.measure("add", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual(len(cand.sites[0]["samples_ms"]), 4)
        # All sites of a process together are bounded too.
        both = timer(reps=30, max_bytes=20 * 4)
        both.measure("add", add, (self.X, self.Y), {}, lambda: None)
        both.measure("add", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual([len(s["samples_ms"]) for s in both.sites], [6, 2])  # 18 + 6 floats
        # A call the reference did not make: plain copies, and it says so.
        cand.measure("add", add, (self.X, self.Y), {}, lambda: None)
        self.assertEqual(cand.sites[1]["check"]["mode"], "unperturbed")
        self.assertEqual(cand.sites[1]["check"]["reason"], "the reference made no such call")

    def test_seeds_depend_on_the_secret_the_site_the_repetition_and_the_argument(self):
        seeds = {r.perturb_seed(s, i, rep, p) for s in (1, 2) for i in (0, 1)
                 for rep in (0, 1, "probe") for p in ("args[0]", "args[1]")}
        self.assertEqual(len(seeds), 24)
        self.assertEqual(r.perturb_seed(1, 0, 0, "args[0]"), r.perturb_seed(1, 0, 0, "args[0]"))
        self.assertLess(max(seeds), 2 ** 63)

    def test_copies_keep_lists_tuples_namedtuples_and_objects(self):
        import collections
        Pair = collections.namedtuple("Pair", "a b")
        obj = object()
        args = ([self.X, 1], (self.Y,), Pair(self.X, 2), obj)
        kwargs = {"w": self.Y, "n": 4}
        names = [p for p, _ in r.arg_paths(args, kwargs, FakeOps().is_tensor)]
        self.assertEqual(names, ["args[0][0]", "args[1][0]", "args[2][0]", "kwargs.w"])
        a, k = r.copy_args(args, kwargs, FakeOps().is_tensor, lambda p, t: p)
        self.assertEqual(a, [["args[0][0]", 1], ("args[1][0]",), Pair("args[2][0]", 2), obj])
        self.assertIsInstance(a[2], Pair)
        self.assertEqual(k, {"w": "kwargs.w", "n": 4})

    def test_a_whole_run_puts_every_output_in_one_blob_in_order(self):
        d = kjfake_module()
        try:
            cand, tpath = write_operator(
                d,
                "from kjfake import FT\n"
                "def op(x):\n    return FT([2 * v for v in x.values])\n",
                "from kjfake import FT\n"
                "def test_op():\n"
                "    a = op(FT([0.5, 1.25])).values[1]\n"
                "    return {'a': a, 'b': op(FT([3.5])).values}\n"
                "r = test_op()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["test", "time"], "require_torch": False,
                   "timing": {"warmup": 1, "reps": 3, "min_reps": 1,
                              "check": {"seed": SECRET, "tolerances": TOL}}}
            rec, data = r.run(req, (fake_torch(), None, FakeOps()))
        finally:
            forget_kjfake_module(d)
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertEqual(rec["outputs"]["data_bytes"], 16)  # the test's own: 2 Python floats
        # Then what each call gave in the test (its result and its tensor arguments after it).
        at = 16
        calls = rec["call_outputs"]
        self.assertEqual([c["entry"] for c in calls], ["op", "op"])
        for c, (x, got) in zip(calls, (([0.5, 1.25], [1.0, 2.5]), ([3.5], [7.0]))):
            self.assertEqual(c["outputs"]["offset"], at)
            at += c["outputs"]["data_bytes"]
            self.assertEqual(decode(c["outputs"], data), {"result": got, "args[0]": x})
        # Then the timed calls', site by site.
        sites = rec["timing"]["sites"]
        self.assertEqual([s["check"]["mode"] for s in sites], ["perturbed", "perturbed"])
        for s in sites:
            for rep in s["check"]["outputs"]:
                self.assertEqual(rep["offset"], at)  # in order, one after the other
                at += rep["data_bytes"]
                got = decode(rep, data)["result"]
                self.assertEqual(len(got), 2 if s["index"] == 0 else 1)
        self.assertEqual(at, len(data))
        payload = r.channel_bytes(rec, data)
        self.assertEqual(json.loads(payload.partition(b"\n")[0])["data_bytes"], len(data))


class SampledCheckTest(unittest.TestCase):
    """Timed calls whose whole outputs do not fit the byte budgets keep a sample of each large
    tensor, at positions every process draws alike; the plan says which calls are whole."""

    N = 4096  # 16384 bytes a call, against budgets of a few calls' samples
    X = FT([0.5 + (i % 97) / 8.0 for i in range(N)])
    Y = FT([-0.25 + (i % 89) / 16.0 for i in range(N)])
    SAMPLE = 64  # the runner's SAMPLE_ELEMENTS and SAMPLE_MIN_ELEMENTS, scaled down
    SMALL = {"sample_elements": SAMPLE, "sample_min_elements": 4}

    def site(self, plan=None, op=add, reps=10, **check):
        t = timer(plan, reps=reps, **dict(self.SMALL, **check))
        t.measure("add", op, (self.X, self.Y), {}, lambda: None)
        return t

    def entries(self, t, site=0):
        return [{e["name"]: e for e in rep["entries"]} for rep in t.sites[site]["check"]["outputs"]]

    def test_a_site_with_a_large_output_keeps_bounded_bytes_and_every_repetition(self):
        t = self.site(max_bytes_per_site=16 << 10)
        site = t.sites[0]
        # 10 calls at 16384 bytes do not fit 16 KiB; 10 samples of 64 floats (2560 bytes) do,
        # and no call whole beside them: all sampled, none cut (min_reps is 2).
        self.assertEqual(len(site["samples_ms"]), 10)
        self.assertEqual((site["check"]["whole"], site["check"]["sample"]), (0, 64))
        self.assertEqual(len(t.check.blob), 10 * 64 * 4)
        for rep, e in enumerate(self.entries(t)):
            self.assertEqual(e["result"]["shape"], [self.N])  # the tensor's own shape
            self.assertEqual(e["result"]["nbytes"], 64 * 4)
            self.assertEqual(e["result"]["sampled"],
                             {"elements": 64, "seed": r.sample_seed(SECRET, 0, rep, "result")})
        # The inputs are only read (new content, never written): not read back, not sampled.
        self.assertEqual(site["check"]["observed"], [])
        json.dumps(t.sites)

    def test_the_first_calls_are_whole_as_far_as_the_room_left_allows(self):
        budget = 2 * 16384 + 10 * 256  # two whole calls beside ten samples
        t = self.site(max_bytes_per_site=budget)
        self.assertEqual((t.sites[0]["check"]["whole"], t.sites[0]["check"]["sample"]), (2, 64))
        entries = self.entries(t)
        for e in entries[:2]:
            self.assertNotIn("sampled", e["result"])
            self.assertEqual(e["result"]["nbytes"], 16384)
        for e in entries[2:]:
            self.assertEqual(e["result"]["sampled"]["elements"], 64)
        self.assertEqual(len(t.check.blob), 2 * 16384 + 8 * 256)
        self.assertLessEqual(len(t.check.blob), budget)

    def test_the_process_budget_shrinks_later_sites_samples_and_then_their_repetitions(self):
        t = timer(reps=10, max_bytes=3000, **self.SMALL)
        for _ in range(4):
            t.measure("add", add, (self.X, self.Y), {}, lambda: None)
        got = [(len(s["samples_ms"]), s["check"]["whole"], s["check"]["sample"])
               for s in t.sites]
        # 10 x 256 bytes; 440 left: 8 floats (320); 120 left: the floor, 4 floats (16 bytes)
        # for 7 calls; 8 left: min_reps calls at the floor, the only bytes past the budget.
        self.assertEqual(got, [(10, 0, 64), (10, 0, 8), (7, 0, 4), (2, 0, 4)])
        self.assertEqual(len(t.check.blob), 2560 + 320 + 112 + 32)

    def test_samples_are_the_same_in_every_process_and_new_in_every_call(self):
        ref = self.site(max_bytes_per_site=16 << 10)
        plan = plan_of(ref)
        self.assertEqual((plan[0]["whole"], plan[0]["sample"]), (0, 64))
        # Another process with the same secret and plan: the same positions of the same
        # outputs, byte for byte, though its own budgets would keep everything whole.
        other = self.site(plan)
        self.assertEqual(other.sites[0]["check"]["outputs"], ref.sites[0]["check"]["outputs"])
        self.assertEqual(bytes(other.check.blob), bytes(ref.check.blob))
        seeds = {e["result"]["sampled"]["seed"] for e in self.entries(ref)}
        self.assertEqual(len(seeds), 10)
        # Another secret: other positions (and other inputs).
        stranger = self.site(plan, seed=99)
        self.assertNotEqual(self.entries(stranger)[0]["result"]["sampled"]["seed"],
                            self.entries(ref)[0]["result"]["sampled"]["seed"])
        self.assertNotEqual(bytes(stranger.check.blob), bytes(ref.check.blob))

    def test_the_plan_hands_the_split_on(self):
        ref = self.site(max_bytes_per_site=2 * 16384 + 10 * 256)
        cand = self.site(plan_of(ref))  # the default 16 MiB budget: it would keep all whole
        self.assertEqual(cand.sites[0]["check"]["whole"], 2)
        self.assertEqual([("sampled" in e["result"]) for e in self.entries(cand)],
                         [False, False] + [True] * 8)
        self.assertEqual(bytes(cand.check.blob), bytes(ref.check.blob))

    def test_a_call_planned_whole_that_does_not_fit_is_sampled(self):
        # The reference's outputs fit whole; a candidate returning 4000 floats does not:
        # its calls are sampled (the judge then finds a sample where the reference's output is
        # whole), and what it keeps stays within the budget.
        small = timer(reps=10, max_bytes_per_site=10000, **self.SMALL)
        short = FT(self.X.values[:100])
        small.measure("add", add, (short, short), {}, lambda: None)
        self.assertEqual(small.sites[0]["check"]["whole"], 10)

        def bigger(x, y):
            return FT(add(x, y).values * 40)

        cand = timer(plan_of(small), reps=10, max_bytes_per_site=10000, **self.SMALL)
        cand.measure("add", bigger, (short, short), {}, lambda: None)
        entries = self.entries(cand)
        self.assertTrue(all("sampled" in e["result"] for e in entries))
        self.assertEqual(entries[0]["result"]["shape"], [4000])
        self.assertLessEqual(len(cand.check.blob), 10000)

    def test_a_candidate_wrong_at_sampled_positions_is_caught_there(self):
        """Sampling is a probability: a difference at a few scattered elements is caught only by
        the calls whose sample holds one of them (the argument is in the runner, above
        FLOAT_DTYPES). What is certain, and tested here: the same positions in every process,
        so a wrong element that a call's sample holds shows in that call; and a wrong run of
        2n/k consecutive elements holds a whole stratum, so every sampled call shows it."""
        budget = 16 << 10
        ref = self.site(max_bytes_per_site=budget)
        plan = plan_of(ref)
        ops = FakeOps()
        # One element that call 3's sample holds.
        wrong = ops.sample_positions(self.N, 64, r.sample_seed(SECRET, 0, 3, "result"))[40]

        def off_at(positions):
            def op(x, y):
                out = add(x, y)
                for i in positions:
                    out.values[i] += 1.0
                return out
            return op

        one = self.site(plan, op=off_at([wrong]), max_bytes_per_site=budget)
        blob_r, blob_c = bytes(ref.check.blob), bytes(one.check.blob)
        for rep in range(10):
            want = decode(ref.sites[0]["check"]["outputs"][rep], blob_r)["result"]
            got = decode(one.sites[0]["check"]["outputs"][rep], blob_c)["result"]
            drawn = wrong in ops.sample_positions(
                self.N, 64, r.sample_seed(SECRET, 0, rep, "result"))
            self.assertEqual(got != want, drawn, rep)
            if rep == 3:
                self.assertTrue(drawn)
                self.assertEqual([abs(a - b) > 0.5 for a, b in zip(got, want)].count(True), 1)
        run = range(1000, 1000 + 2 * (self.N // 64 + 1))
        block = self.site(plan, op=off_at(run), max_bytes_per_site=budget)
        for rep in range(10):
            self.assertNotEqual(decode(block.sites[0]["check"]["outputs"][rep],
                                       bytes(block.check.blob))["result"],
                                decode(ref.sites[0]["check"]["outputs"][rep], blob_r)["result"])

    def test_positions_are_stratified_and_a_small_leaf_is_kept_whole(self):
        ops = FakeOps()
        pos = ops.sample_positions(1000, 10, 5)
        self.assertEqual([p // 100 for p in pos], list(range(10)))
        self.assertEqual(pos, ops.sample_positions(1000, 10, 5))
        self.assertNotEqual(pos, ops.sample_positions(1000, 10, 6))
        check = r.CallCheck(ops, {"seed": SECRET, "sample_elements": 4})
        plan = {"whole": 0, "sample": 4}
        kept = check.keep({"big": FT([1.0] * 10), "small": FT([2.0] * 4), "n": 3}, 0, 0, plan, 0)
        by = {e["name"]: e for e in kept["entries"]}
        self.assertEqual(by["big"]["sampled"]["elements"], 4)
        self.assertNotIn("sampled", by["small"])
        self.assertNotIn("sampled", by["n"])
        self.assertEqual(kept["data_bytes"], 16 + 16 + 8)

    def test_seeds_depend_on_the_secret_the_site_the_repetition_and_the_leaf(self):
        seeds = {r.sample_seed(s, i, rep, n) for s in (1, 2) for i in (0, 1) for rep in (0, 1)
                 for n in ("result", "args[0]")}
        self.assertEqual(len(seeds), 16)
        self.assertNotEqual(r.sample_seed(1, 0, 0, "args[0]"), r.perturb_seed(1, 0, 0, "args[0]"))


class EntryArgsTest(unittest.TestCase):
    """The judge's entry_args (an operator whose output is an argument of calls too large to
    record whole): only the named arguments of the named entry's calls are kept, after the
    call, under a cap of their own; other entries' calls are kept whole as before."""

    KEEP = {"entry": "op", "args": [1], "max_bytes": 1 << 20}

    def test_the_recorder_keeps_only_the_named_arguments(self):
        rec = r.CallRecorder(FakeOps(), keep=dict(self.KEEP, args=[1, 3, 7]))
        x, out = FT([1.0, 2.0]), FT([3.0, 4.0])
        rec.record("op", None, (x, out, 5, [FT([6.0]), FT([7.0])]), {"y": FT([8.0])})
        rec.record("other", FT([9.0]), (FT([1.5]),), {})  # another entry: kept whole
        self.assertEqual([c["entry"] for c in rec.calls], ["op", "other"])
        blob = bytes(rec.blob)
        first = rec.calls[0]["outputs"]
        # args[1] after the call, args[3] a list of tensors, args[7] not passed: left out; the
        # result, args[0] and the keyword argument are not kept.
        self.assertEqual([e["name"] for e in first["entries"]],
                         ["args[1]", "args[3][0]", "args[3][1]"])
        self.assertEqual(decode(first, blob),
                         {"args[1]": [3.0, 4.0], "args[3][0]": [6.0], "args[3][1]": [7.0]})
        self.assertEqual(decode(rec.calls[1]["outputs"], blob),
                         {"result": [9.0], "args[0]": [1.5]})
        self.assertEqual(rec.kept, {"entry": "op", "args": [1, 3, 7], "calls": 1,
                                    "recorded": 1, "bytes": 16})

    def test_calls_are_kept_whole_within_the_cap_of_their_own(self):
        big = FT([0.0] * 8)  # 32 bytes
        rec = r.CallRecorder(FakeOps(), max_bytes=8, keep=dict(self.KEEP, max_bytes=80))
        for _ in range(3):
            rec.record("op", None, (FT([1.0] * 1000), big), {})  # the input is not kept
        # 32 bytes a call under the entry's own cap of 80 (not the whole calls' 8): the third
        # call would pass it, and is not recorded at all.
        self.assertEqual([c["outputs"] is None for c in rec.calls], [False, False, True])
        self.assertEqual(rec.kept["calls"], 3)
        self.assertEqual(rec.kept["recorded"], 2)
        self.assertEqual(rec.kept["bytes"], 64)
        # Without keep, the same call is recorded whole, or sampled within the samples' own
        # budget: with none, not at all.
        whole = r.CallRecorder(FakeOps(), max_bytes=80, sample_bytes=0)
        whole.record("op", None, (FT([1.0] * 1000), big), {})
        self.assertIsNone(whole.calls[0]["outputs"])
        self.assertIsNone(whole.kept)

    def test_a_call_too_large_to_keep_whole_keeps_samples_at_the_judges_positions(self):
        # Issue 31: destindex_copy_kv's one call holds 150 MB and its test returns only
        # torch.allclose(src, dest). The call's tensors are sampled, at positions drawn from the
        # key the judge sends once the call has returned.
        judge = FakeJudge()
        try:
            rec = r.CallRecorder(FakeOps(), max_bytes=64, stream=r.CallStream(judge.fd),
                                 sample_elements=4)
            out = FT([float(i) for i in range(100)])
            rec.record("op", None, (FT([7.0] * 3), out), {})
            time.sleep(0.05)
        finally:
            judge.close()
        self.assertEqual([m[:2] for m in judge.messages], [["call", "0"], ["rec", "0"]])
        key = int(FakeJudge.key(0, 0, "s"), 16)
        # FakeJudge answers "call" as it answers "done": with its sample key for (site, rep).
        entries = {e["name"]: e for e in rec.calls[0]["outputs"]["entries"]}
        self.assertEqual(entries["args[1]"]["sampled"],
                         {"elements": 4, "seed": r.sample_seed(key, 0, 0, "args[1]")})
        self.assertEqual(entries["args[1]"]["shape"], [100])
        self.assertNotIn("sampled", entries["args[0]"])  # small enough: whole
        positions = FakeOps().sample_positions(100, 4, r.sample_seed(key, 0, 0, "args[1]"))
        self.assertEqual(decode(rec.calls[0]["outputs"], bytes(rec.blob))["args[1]"],
                         [float(p) for p in positions])

    def test_the_request_is_checked(self):
        self.assertIsNone(r.entry_args_request(None))
        self.assertEqual(r.entry_args_request({"entry": "f", "args": [0]})["max_bytes"],
                         r.ENTRY_ARGS_BYTES)
        for bad in ({"entry": "f", "args": []}, {"entry": "f", "args": [-1]},
                    {"entry": "f", "args": [True]}, {"entry": 3, "args": [0]},
                    {"entry": "f", "args": [0], "max_bytes": 0}, [0], "f"):
            with self.assertRaises(ValueError, msg=repr(bad)):
                r.entry_args_request(bad)

    def run_inplace(self, entry_args, torch=True):
        """A run whose operator writes its output into its second argument and returns None,
        as context_attn_bloom's and matmul_kernel's do."""
        d = kjfake_module()
        try:
            cand, tpath = write_operator(
                d,
                "def op(x, out):\n"
                "    out.values[:] = [2 * v for v in x.values]\n",
                "from kjfake import FT\n"
                "def test_op():\n"
                "    out = FT([0.0, 0.0])\n"
                "    return {'test_case_%d' % i: op(FT([i, 0.5]), out) for i in range(3)}\n"
                "result_gold = test_op()\n")
            req = {"protocol": 1, "nonce": "n", "candidate_path": cand, "test_path": tpath,
                   "seed": 7, "modes": ["test"], "require_torch": torch,
                   "entry_args": entry_args}
            return r.run(req, (fake_torch(), None, FakeOps()) if torch else (None, None))
        finally:
            forget_kjfake_module(d)

    def test_a_run_keeps_the_output_argument_after_each_call_and_says_so(self):
        rec, data = self.run_inplace(dict(self.KEEP, max_bytes=16))
        self.assertEqual(rec["status"], "ok", rec.get("error"))
        self.assertEqual([e["kind"] for e in rec["outputs"]["entries"]], ["none"] * 3)
        calls = rec["call_outputs"]
        self.assertEqual([c["entry"] for c in calls], ["op"] * 3)
        # One 8-byte tensor per call: two fit in 16 bytes, the third is not recorded.
        self.assertEqual(decode(calls[0]["outputs"], data), {"args[1]": [0.0, 1.0]})
        self.assertEqual(decode(calls[1]["outputs"], data), {"args[1]": [2.0, 1.0]})
        self.assertIsNone(calls[2]["outputs"])
        self.assertEqual(rec["entry_args"], {"entry": "op", "args": [1], "calls": 3,
                                             "recorded": 2, "bytes": 16})
        self.assertEqual(len(data), rec["outputs"]["data_bytes"] + 16)
        # Without the request: the whole call (result and both arguments), no report.
        rec, data = self.run_inplace(None)
        self.assertEqual(decode(rec["call_outputs"][2]["outputs"], data),
                         {"result": "none", "args[0]": [2.0, 0.5], "args[1]": [4.0, 1.0]})
        self.assertNotIn("entry_args", rec)

    def test_a_malformed_request_or_no_torch_is_a_setup_error(self):
        rec, data = self.run_inplace({"entry": "op", "args": "1"})
        self.assertEqual(rec["error"]["stage"], "setup")
        self.assertEqual(data, b"")
        rec, _ = self.run_inplace(self.KEEP, torch=False)
        self.assertEqual(rec["error"]["stage"], "setup")
        self.assertIn("needs torch", rec["error"]["message"])


class TorchOpsTest(unittest.TestCase):
    """TorchOps with the real torch, on CPU tensors: only where torch is installed (not in CI;
    on the GPU machine, run this file with the venv's python)."""

    def setUp(self):
        torch = r.import_optional("torch")
        if torch is None:
            self.skipTest("torch is not installed for this python")
        self.torch = torch
        self.ops = r.TorchOps(torch, r.import_optional("numpy"))

    def test_new_content_keeps_dtype_shape_strides_signs_and_zeros(self):
        torch, ops = self.torch, self.ops
        x = torch.randn(4, 6).t()  # not contiguous
        x[0, 0] = 0.0
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            p = ops.perturbed(x.to(dtype), 7, 0.125)
            self.assertEqual((p.dtype, p.shape, p.stride()), (dtype, x.shape, x.to(dtype).stride()))
        p = ops.perturbed(x, 7, 0.125)
        ratio = (p / x)[x != 0]
        self.assertGreater(ratio.min().item(), 0.76)
        self.assertLess(ratio.max().item(), 1.27)
        self.assertEqual(p[0, 0].item(), 0.0)
        self.assertTrue(torch.equal(p, ops.perturbed(x, 7, 0.125)))
        self.assertFalse(torch.equal(p, ops.perturbed(x, 8, 0.125)))
        self.assertEqual(ops.perturbed(torch.tensor(2.5), 1, 0.125).shape, torch.Size([]))
        self.assertEqual(ops.perturbed(torch.empty(0), 1, 0.125).shape, torch.Size([0]))
        g = torch.randn(3, requires_grad=True)
        ops.perturbed(g, 1, 0.125).sum().backward()  # still part of the graph, as a clone is
        self.assertIsNotNone(g.grad)

    def test_what_may_change(self):
        torch, ops = self.torch, self.ops
        self.assertTrue(ops.perturbable(torch.randn(5)))
        for t in (torch.ones(3), torch.tensor([0.0, float("-inf")]), torch.arange(5),
                  torch.arange(5.0), torch.empty(0), torch.randn(2, dtype=torch.complex64)):
            self.assertFalse(ops.perturbable(t), t)

    def test_same_close_finite_and_parts(self):
        torch, ops = self.torch, self.ops
        x = torch.randn(3)
        nan = torch.tensor([float("nan"), 1.0])
        self.assertTrue(ops.same(x, x.clone()))
        self.assertTrue(ops.same(nan, nan.clone()))
        self.assertFalse(ops.same(x, x + 1))
        self.assertTrue(ops.close(x, x + 1e-7, (1e-4, 1e-5)))
        self.assertFalse(ops.close(x, x + 1e-2, (1e-4, 1e-5)))
        self.assertTrue(ops.close(nan, nan.clone(), (1e-4, 1e-5)))
        self.assertFalse(ops.close(torch.tensor([float("inf")]), torch.tensor([float("-inf")]),
                                   (1e-4, 1e-5)))
        self.assertFalse(ops.finite(nan))
        self.assertTrue(ops.finite(torch.tensor([1])))
        dtype, shape, raw, cplx = ops.parts(torch.tensor([1.5, -2.0]))
        self.assertEqual((dtype, shape, raw, cplx),
                         ("float32", [2], struct.pack("<2f", 1.5, -2.0), False))

        class Lazy(torch.Tensor):
            pass

        # A subclass's methods are the operator code's: it is an object, never read.
        self.assertIsNone(ops.parts(torch.randn(2).as_subclass(Lazy)))
        self.assertEqual(ops.parts(torch.nn.Parameter(torch.ones(1)))[:2], ("float32", [1]))

    def test_samples_are_gathered_in_row_major_order_whatever_the_strides_and_dtype(self):
        torch, ops = self.torch, self.ops

        def raw(t):
            return bytes(t.contiguous().reshape(-1).view(torch.uint8).tolist())

        pos = ops.sample_positions(1000, 10, 5)
        self.assertEqual(pos.dtype, torch.int64)
        self.assertEqual([int(p) // 100 for p in pos], list(range(10)))  # one in each run
        self.assertTrue(torch.equal(pos, ops.sample_positions(1000, 10, 5)))
        self.assertFalse(torch.equal(pos, ops.sample_positions(1000, 10, 6)))
        x = torch.randn(40, 30).t()  # not contiguous
        at = ops.sample_positions(1200, 50, 7)
        got = ops.sampled_parts(x, 50, 7)
        self.assertEqual((got[0], got[1], got[3], got[4]),
                         ("float32", [30, 40], False, {"elements": 50, "seed": 7}))
        self.assertEqual(got[2], raw(x.reshape(-1)[at]))
        for t in (x.to(torch.float16), x.to(torch.bfloat16), x > 0, (x * 10).to(torch.int64)):
            got = ops.sampled_parts(t, 50, 7)
            self.assertEqual(got[2], raw(t.reshape(-1)[at]), t.dtype)
            self.assertEqual(ops.encoded_size(t), (1200, t.element_size()))
        z = torch.randn(30, 20, dtype=torch.complex64)
        got = ops.sampled_parts(z, 50, 7)
        self.assertEqual((got[0], got[1], got[3]), ("float32", [30, 20, 2], True))
        self.assertEqual(got[2], raw(torch.view_as_real(z).reshape(-1)[at]))
        self.assertEqual(ops.encoded_size(z), (1200, 4))
        small = torch.randn(50)  # no larger than the sample: whole
        self.assertEqual(ops.sampled_parts(small, 50, 7), ops.parts(small) + (None,))

        class Lazy(torch.Tensor):
            pass

        lazy = torch.randn(100).as_subclass(Lazy)
        self.assertIsNone(ops.sampled_parts(lazy, 10, 1))
        self.assertIsNone(ops.encoded_size(lazy))

    def test_patching_torch_later_does_not_reach_the_check(self):
        torch, ops = self.torch, self.ops
        x = torch.randn(4)
        saved = torch.Tensor.mul_, torch.rand, torch.Tensor.cpu
        try:
            torch.Tensor.mul_ = lambda self, other: self  # new content turned off
            torch.rand = lambda *a, **k: None
            torch.Tensor.cpu = lambda self: self.zero_()
            p = ops.perturbed(x, 3, 0.125)
            self.assertFalse(torch.equal(p, x))
            self.assertEqual(ops.parts(x)[2], x.numpy().tobytes())
        finally:
            torch.Tensor.mul_, torch.rand, torch.Tensor.cpu = saved


    def test_a_timed_site_with_real_tensors(self):
        torch = self.torch
        fake = fake_torch()  # the CUDA events and synchronize; tensors and the check are real
        fake.Tensor, fake.int32 = torch.Tensor, torch.int32
        fake.empty = lambda n, dtype=None, device=None: torch.empty(n, dtype=dtype)

        def make(plan=None):
            params = {"warmup": 1, "reps": 5, "min_reps": 1, "max_ms_per_site": 60000,
                      "check": {"seed": SECRET, "tolerances": TOL, "plan": plan}}
            return r.CudaTimer(fake, params, ops=self.ops)

        def scaled_add(x, y, out):  # writes its output buffer, returns nothing
            torch.add(x, y, alpha=0.5, out=out)

        x, y = torch.randn(64), torch.randn(64)
        idx = torch.arange(8)
        ref = make()
        ref.measure("op", scaled_add, (x, y), {"out": torch.empty(64)}, lambda: None)
        ref.measure("gather", lambda t, i: t[i], (x, idx), {}, lambda: None)
        checks = [s["check"] for s in ref.sites]
        self.assertEqual(checks[0]["perturbed"], ["args[0]", "args[1]", "kwargs.out"])
        self.assertEqual(checks[0]["observed"], ["kwargs.out"])
        self.assertEqual(checks[1]["perturbed"], ["args[0]"])
        self.assertEqual(checks[1]["observed"], ["args[1]"])  # an index: read back, unchanged

        cache = {}

        def stale(x, y, out):
            if x.shape not in cache:
                torch.add(x, y, alpha=0.5, out=out)
                cache[x.shape] = out.clone()
            out.copy_(cache[x.shape])

        cand = make(plan_of(ref))
        cand.measure("op", stale, (x, y), {"out": torch.empty(64)}, lambda: None)
        honest = make(plan_of(ref))
        honest.measure("op", scaled_add, (x, y), {"out": torch.empty(64)}, lambda: None)
        for i in range(5):
            want = decode(ref.sites[0]["check"]["outputs"][i], bytes(ref.check.blob))
            self.assertEqual(decode(honest.sites[0]["check"]["outputs"][i],
                                    bytes(honest.check.blob)), want)
            got = decode(cand.sites[0]["check"]["outputs"][i], bytes(cand.check.blob))
            self.assertEqual(len(got["kwargs.out"]), 64)
            self.assertNotEqual(got["kwargs.out"], want["kwargs.out"])


    def test_on_the_gpu_the_timer_and_the_check_together(self):
        """The whole timed site with CUDA events, the flush and CUDA generators: only where a GPU
        is (the device machine: PY python/test_kjudge_triton_runner.py)."""
        torch = self.torch
        if not torch.cuda.is_available():
            self.skipTest("no CUDA device")
        x = torch.randn(1000, device="cuda")
        p = self.ops.perturbed(x, 5, 0.125)
        self.assertEqual((p.device, p.dtype, p.shape), (x.device, x.dtype, x.shape))
        self.assertTrue(torch.equal(p, self.ops.perturbed(x, 5, 0.125)))
        self.assertFalse(torch.equal(p, x))

        def make(plan=None):
            params = {"warmup": 1, "reps": 5, "min_reps": 1, "flush_bytes": 1 << 20,
                      "check": {"seed": SECRET, "tolerances": TOL, "plan": plan}}
            return r.CudaTimer(torch, params, ops=self.ops)

        y = torch.randn(1000, device="cuda")
        ref = make()
        ref.measure("add", torch.add, (x, y), {}, lambda: None)
        self.assertEqual(ref.sites[0]["check"]["perturbed"], ["args[0]", "args[1]"])
        self.assertTrue(all(t > 0 for t in ref.sites[0]["samples_ms"]))
        cache = {}

        def stale(a, b):
            return cache.setdefault(tuple(a.shape), torch.add(a, b))

        cand = make(plan_of(ref))
        cand.measure("add", stale, (x, y), {}, lambda: None)
        honest = make(plan_of(ref))
        honest.measure("add", torch.add, (x, y), {}, lambda: None)
        for i in range(5):
            want = decode(ref.sites[0]["check"]["outputs"][i], bytes(ref.check.blob))
            self.assertEqual(decode(honest.sites[0]["check"]["outputs"][i],
                                    bytes(honest.check.blob)), want)
            got = decode(cand.sites[0]["check"]["outputs"][i], bytes(cand.check.blob))
            self.assertNotEqual(got, want)

        # Outputs too large for the budget: sampled on the device, the same positions as on
        # the CPU, the same in every process.
        w = torch.randn(64, 512, device="cuda").t()
        self.assertEqual(self.ops.sampled_parts(w, 1000, 3)[2],
                         self.ops.sampled_parts(w.cpu(), 1000, 3)[2])

        def sampling(plan=None):
            params = {"warmup": 1, "reps": 5, "min_reps": 1, "flush_bytes": 1 << 20,
                      "check": {"seed": SECRET, "tolerances": TOL, "plan": plan,
                                "max_bytes_per_site": 64 << 10, "sample_elements": 1000}}
            return r.CudaTimer(torch, params, ops=self.ops)

        big = torch.randn(256, 1024, device="cuda")
        ref = sampling()
        ref.measure("add", torch.add, (big, big), {}, lambda: None)
        check = ref.sites[0]["check"]
        self.assertEqual((check["whole"], check["sample"]), (0, 1000))
        self.assertEqual(len(ref.check.blob), 5 * 4000)
        honest = sampling(plan_of(ref))
        honest.measure("add", torch.add, (big, big), {}, lambda: None)
        self.assertEqual(bytes(honest.check.blob), bytes(ref.check.blob))


if __name__ == "__main__":
    unittest.main()
