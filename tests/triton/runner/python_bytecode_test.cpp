// The judge's bytecode of the runner's packages (triton/runner/python_bytecode.h): filled outside
// the sandbox, read by the real runner inside it, and never writable from there.
#include "triton/runner/python_bytecode.h"

#include <gtest/gtest.h>

#include "run/sandbox.h"
#include "test_util.h"
#include "triton/runner/run.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const fs::path kRunner = fs::path(KJUDGE_SOURCE_DIR) / "python/kjudge_triton_runner.py";

// The cached file of a module the interpreter imported: below `dir`, at the source's path.
bool cached_under(const fs::path& dir, const std::string& part) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".pyc" && e.path().string().find(part) != std::string::npos)
      return true;
  return false;
}

TEST(PythonBytecode, FilledByImportingWhatIsInstalled) {
  TempDir dir;
  const PythonEnv py = probe_python("/usr/bin/python3");
  const PythonBytecode bc =
      prepare_python_bytecode(py, dir.path() / "cache", {"json", "kjudge_no_such_module"});
  EXPECT_EQ(bc.dir.parent_path(), fs::absolute(dir.path() / "cache"));
  EXPECT_EQ(bc.compiled, std::vector<std::string>{"json"});
  EXPECT_EQ(bc.missing, std::vector<std::string>{"kjudge_no_such_module"});
  EXPECT_TRUE(bc.failed.empty());
  EXPECT_TRUE(cached_under(bc.dir, "/json/__init__."));
  // One folder per interpreter: the same one again.
  EXPECT_EQ(prepare_python_bytecode(py, dir.path() / "cache", {"json"}).dir, bc.dir);
}

TEST(PythonBytecode, ArgumentsOnlyWithACache) {
  EXPECT_TRUE(python_bytecode_args({}).empty());
  EXPECT_EQ(python_bytecode_args("/c/x"), (std::vector<std::string>{"-X", "pycache_prefix=/c/x"}));
}

TEST(PythonBytecode, AFailingInterpreterIsAnError) {
  TempDir dir;
  PythonEnv py;
  py.executable = "/nonexistent/python3";
  EXPECT_THROW(prepare_python_bytecode(py, dir.path() / "cache", {"json"}), std::runtime_error);
}

// Inside the sandbox the runner reads the judge's bytecode (the module's cached file exists
// there, under the prefix) and can write neither there nor anywhere as bytecode (-B).
TEST(PythonBytecode, TheSandboxedRunnerReadsItAndCannotWriteIt) {
  SandboxPolicy probe;
  probe.bwrap = locate_bwrap();
  std::string why;
  if (!sandbox_available(probe, &why)) GTEST_SKIP() << "no sandbox here: " << why;
  TempDir dir;
  TritonRunner r;
  r.python = probe_python("/usr/bin/python3");
  r.python.bytecode_cache = prepare_python_bytecode(r.python, dir.path() / "cache", {"json"}).dir;
  r.script = kRunner;
  r.step.sandbox = true;
  r.step.bwrap = probe.bwrap;
  r.step.memory_limit_bytes = 2ull << 30;
  r.timeout_s = 20;
  TritonRunRequest q;
  q.code =
      "import json, os, sys\n"
      "def op(x):\n"
      "    try:\n"
      "        open(os.path.join(sys.pycache_prefix, 'planted.pyc'), 'w').write('x')\n"
      "        wrote = 1.0\n"
      "    except OSError:\n"
      "        wrote = 0.0\n"
      "    return [float(sys.pycache_prefix == '" +
      r.python.bytecode_cache.string() +
      "'), float(sys.flags.dont_write_bytecode), float(os.path.exists(json.__cached__)), "
      "wrote]\n";
  q.test_code = "def test_op():\n    return {'t': op(1.0)}\nresult_gold = test_op()\n";
  q.seed = 1;
  q.require_torch = false;
  TritonRunOutcome o = run_triton(r, q, dir.path() / "ws");
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  std::vector<double> got;
  for (const char* name : {"t[0]", "t[1]", "t[2]", "t[3]"}) {
    const OutputEntry* e = o.outputs.find(name);
    ASSERT_NE(e, nullptr) << name;
    got.push_back(e->tensor.values.at(0));
  }
  EXPECT_EQ(got, (std::vector<double>{1.0, 1.0, 1.0, 0.0}));
  EXPECT_FALSE(fs::exists(r.python.bytecode_cache / "planted.pyc"));
}

}  // namespace
}  // namespace kjudge::triton
