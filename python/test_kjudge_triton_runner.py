#!/usr/bin/env python3
"""Tests of the runner's torch-free parts: flattening, encoding with fake tensors, reading the
test code, wrapping entries, whole runs of pure-Python operators, and the two ways in and out
(file and descriptor). Run: /usr/bin/python3 python/test_kjudge_triton_runner.py"""

import ast
import json
import os
import struct
import subprocess
import sys
import tempfile
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
            self.assertEqual(struct.unpack("<q", f.read())[0], 2)

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


if __name__ == "__main__":
    unittest.main()
