// The judge's own bytecode of torch, triton and numpy, compiled outside every sandbox.
// Declared, and explained, in triton/runner/python_bytecode.h.
#include "triton/runner/python_bytecode.h"

#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <sstream>

#include "run/process.h"

namespace kjudge::triton {

namespace fs = std::filesystem;

namespace {

// Imports each module named in argv, reporting those that are not installed; an import that
// fails otherwise (a broken install) is reported too, so the caller can say so.
constexpr const char* kPrime = R"(import importlib, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
        print("KJUDGE-BYTECODE ok", name)
    except ImportError:
        print("KJUDGE-BYTECODE missing", name)
    except Exception as e:
        print("KJUDGE-BYTECODE failed", name, type(e).__name__)
)";

std::string folder_name(const PythonEnv& python) {
  // The version in clear for a person; the hash keeps two interpreters of one version apart.
  const std::size_t h = std::hash<std::string>{}(python.executable + "\n" + python.version);
  return fmt::format("{}-{:016x}", python.version.empty() ? "python" : python.version, h);
}

}  // namespace

fs::path default_python_bytecode_root() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return fs::path(x) / "kjudge/python-bytecode";
  if (const char* h = std::getenv("HOME"); h && *h)
    return fs::path(h) / ".cache/kjudge/python-bytecode";
  return {};
}

PythonBytecode prepare_python_bytecode(const PythonEnv& python, const fs::path& root,
                                       const std::vector<std::string>& modules, double timeout_s) {
  const fs::path dir = fs::absolute(root) / folder_name(python);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  ProcessSpec spec;
  spec.argv = {python.executable, "-I", "-X", "pycache_prefix=" + dir.string(), "-c", kPrime};
  spec.argv.insert(spec.argv.end(), modules.begin(), modules.end());
  spec.timeout_s = timeout_s;
  // No GPU is touched (torch and triton start CUDA lazily), and none should be looked for.
  spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir.string(), "CUDA_VISIBLE_DEVICES="};
  const ProcessResult r = run_process(spec);
  const std::string what = "python '" + python.executable + "' filling " + dir.string();
  if (!r.started) throw std::runtime_error("cannot run " + what + ": " + r.error);
  if (r.timed_out) throw std::runtime_error(what + " did not end within the time limit");
  if (!r.ok()) throw std::runtime_error(fmt::format("{} failed (exit {})", what, r.exit_code));
  PythonBytecode out;
  out.dir = dir;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string tag, status, name, error;
    if (!(words >> tag >> status >> name) || tag != "KJUDGE-BYTECODE") continue;
    if (status == "ok") out.compiled.push_back(name);
    if (status == "missing") out.missing.push_back(name);
    if (status == "failed") out.failed.push_back(name + ": " + (words >> error ? error : "?"));
  }
  return out;
}

std::vector<std::string> python_bytecode_args(const fs::path& cache) {
  if (cache.empty()) return {};
  return {"-X", "pycache_prefix=" + cache.string()};
}

}  // namespace kjudge::triton
