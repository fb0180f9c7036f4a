#!/usr/bin/python3
"""ComputeEval's own reader loads the NAME-graded-solutions.jsonl that kjudge writes.

kjudge evaluates a folder of two solution packs, the way ComputeEval 2026.1 evaluates several
models at once and with ComputeEval's option names; then ComputeEval's
compute_eval.data.utils.read_graded_solutions, with its pydantic models (GradedSolution,
CudaCppProblem, FileSolution), reads each pack's graded file, and what it reads must agree with
kjudge's results.jsonl.

ComputeEval's modules come from a ComputeEval git repository at test time ($KJUDGE_COMPUTEEVAL_REPO,
default /work/.mirror/NVIDIA+compute-eval/repo), exported into a temporary folder: nothing of
ComputeEval is kept in this repository. Two modules the data model does not need for reading are
replaced there by stubs, so that the environment holds pydantic alone: the package's __init__.py
(it imports the OpenAI client) and utils/parsing.py (tree-sitter grammars, 171 MB, used only to
check source references). pydantic comes from scripts/install-computeeval-reader.

    computeeval_reader_test.py PATH/TO/kjudge

Exit 77 (skipped) without the repository, without nvcc, or where pydantic cannot be installed.
"""
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPO = os.environ.get("KJUDGE_COMPUTEEVAL_REPO", "/work/.mirror/NVIDIA+compute-eval/repo")
SKIP = 77
KJUDGE = None
PYTHON = None  # the environment with pydantic

# Run by the environment's python, with the exported modules first on sys.path: each graded
# file read by ComputeEval's own reader, and what it read, as JSON.
READER = r"""
import json, sys
from compute_eval.data.data_model import CudaCppProblem, FileSolution, GradedSolution
from compute_eval.data.utils import read_graded_solutions
out = []
for g in read_graded_solutions(sys.argv[1]):
    assert isinstance(g, GradedSolution)
    assert isinstance(g.problem, CudaCppProblem), type(g.problem)
    assert isinstance(g.solution, FileSolution), type(g.solution)
    out.append({"task_id": g.task_id, "passed": g.passed, "skipped": g.skipped,
                "datapack_name": g.solution.datapack_name, "sample": g.solution.sample,
                "files": [f.path for f in g.solution.files],
                "test_files": len(g.problem.test_files), "group": g.problem.group,
                "build_output": g.build_output, "test_output": g.test_output})
print(json.dumps(out))
"""

# The data model's imports that reading does not use (see the docstring).
STUB_PARSING = '''"""Stub for the test: source-reference checks are not part of reading graded files."""


def get_most_likely_language(path, content):
    raise NotImplementedError("compute_eval.utils.parsing is stubbed in kjudge's reader test")
'''


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def export_computeeval(dest):
    """ComputeEval's data model and its helpers, exported from the repository's HEAD."""
    tar = os.path.join(dest, "compute_eval.tar")
    archive = run(["git", "-C", REPO, "archive", "--format=tar", "-o", tar, "HEAD",
                   "compute_eval/data", "compute_eval/utils"])
    if archive.returncode != 0:
        raise RuntimeError("cannot export compute_eval from %s: %s" % (REPO, archive.stderr))
    with tarfile.open(tar) as t:
        # The "data" filter where this Python has it (3.11.4 and later).
        t.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    os.remove(tar)
    pkg = os.path.join(dest, "compute_eval")
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(pkg, "utils", "parsing.py"), "w") as f:
        f.write(STUB_PARSING)


class ComputeEvalReader(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="kjudge-ce-reader-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def problems(self):
        """Two example problems, their releases named as ComputeEval names them (its reader
        takes only its own release names; the example pack's is 'example')."""
        problems = os.path.join(self.dir, "problems")
        for name in ("saxpy", "half_convert"):
            shutil.copytree(os.path.join(SOURCE, "examples", "pack", name),
                            os.path.join(problems, name))
            spec = os.path.join(problems, name, "problem-spec.yaml")
            with open(spec) as f:
                text = f.read()
            self.assertIn("releases: [example]", text)
            with open(spec, "w") as f:
                f.write(text.replace("releases: [example]", "releases: [2026-1]"))
        return problems

    def pack(self, name, solutions, folder):
        out = os.path.join(folder, name + "-solutions.tar.gz")
        r = run([KJUDGE, "solutions", "pack",
                 *[os.path.join(SOURCE, "examples", "solutions", s) for s in solutions], "-o", out])
        self.assertEqual(r.returncode, 0, r.stderr)

    def read_with_computeeval(self, graded):
        modules = os.path.join(self.dir, "computeeval")
        if not os.path.isdir(modules):
            os.makedirs(modules)
            export_computeeval(modules)
        env = dict(os.environ, PYTHONPATH=modules, PYTHONDONTWRITEBYTECODE="1")
        r = run([PYTHON, "-c", READER, graded], env=env)
        self.assertEqual(r.returncode, 0, "ComputeEval's reader refused %s:\n%s" % (graded, r.stderr))
        return json.loads(r.stdout)

    def test_computeeval_reads_each_packs_graded_file_as_kjudge_graded_it(self):
        problems = self.problems()
        folder = os.path.join(self.dir, "packs")
        os.makedirs(folder)
        self.pack("good", ["pass-saxpy-functor", "pass-half-convert-rn"], folder)
        self.pack("bad", ["fail-saxpy-wrong-sign", "fail-half-convert-round-toward-zero"], folder)
        out = os.path.join(self.dir, "out")
        cache = os.path.join(os.path.dirname(KJUDGE), "test-cache")
        # ComputeEval's own option names.
        r = run([KJUDGE, "evaluate", "--problems", problems, "--solutions_datapack", folder,
                 "--k", "1", "--n_workers", "2", "--mode", "local", "--out", out,
                 "--cache-dir", cache, "--work-dir", os.path.join(self.dir, "work"), "-q"],
                cwd=SOURCE, env=dict(os.environ, PATH=os.environ["PATH"] + ":/usr/local/cuda/bin"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

        expected_pass = {"good": True, "bad": False}
        for name in ("bad", "good"):
            graded = os.path.join(out, name, name + "-graded-solutions.jsonl")
            self.assertTrue(os.path.isfile(graded), graded)
            read = self.read_with_computeeval(graded)
            with open(os.path.join(out, name, "results.jsonl")) as f:
                results = [json.loads(line) for line in f if line.strip()]
            self.assertEqual(len(read), len(results))
            self.assertEqual(len(read), 2)
            by_key = {(g["task_id"], g["sample"]): g for g in read}
            for res in results:
                g = by_key[(res["task_id"], res["sample"])]
                self.assertEqual(g["passed"], res["verdict"] == "pass", res)
                self.assertEqual(g["passed"], expected_pass[name], res)
                self.assertFalse(g["skipped"])
                self.assertEqual(g["datapack_name"], name)
                self.assertEqual(g["files"], ["solution.cu"])
                self.assertEqual(g["test_files"], 0, "no hidden test in a run file")
                self.assertEqual(g["group"], "cuda-kernels")
                self.assertEqual(g["test_output"], res["test"]["log"])
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["kind"], "kjudge-packs-summary")
        self.assertEqual({p["name"]: p["pass_at_k"]["1"] for p in summary["packs"]},
                         {"bad": 0.0, "good": 1.0})


def main():
    global KJUDGE, PYTHON
    if len(sys.argv) < 2:
        sys.exit("usage: computeeval_reader_test.py PATH/TO/kjudge")
    KJUDGE = os.path.abspath(sys.argv.pop(1))
    if not os.path.isdir(REPO):
        print("skipped: no ComputeEval repository at %s (set KJUDGE_COMPUTEEVAL_REPO)" % REPO)
        sys.exit(SKIP)
    if shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda/bin/nvcc"):
        print("skipped: nvcc not installed (the example problems build with it)")
        sys.exit(SKIP)
    venv = run([os.path.join(SOURCE, "scripts", "install-computeeval-reader")])
    if venv.returncode != 0:
        print("skipped: " + venv.stderr.strip())
        sys.exit(SKIP if venv.returncode == SKIP else 1)
    PYTHON = venv.stdout.strip().splitlines()[-1]
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
