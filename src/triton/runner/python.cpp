// The Python interpreter that runs the Triton runner: probing it and what it needs bound.
// Declared, and explained, in triton/runner/python.h.
#include "triton/runner/python.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "run/beside_binary.h"
#include "run/process.h"

namespace kjudge::triton {
namespace fs = std::filesystem;

namespace {

// Everything the interpreter may read from outside /usr, in one line of JSON.
constexpr const char* kProbe =
    "import sys, json\n"
    "print('KJUDGE-PYTHON ' + json.dumps({'executable': sys.executable, 'version': "
    "sys.version.split()[0], 'paths': [sys.prefix, sys.base_prefix, sys.exec_prefix, "
    "sys.base_exec_prefix] + [p for p in sys.path if p]}))\n";

bool under(const fs::path& p, const fs::path& root) {
  auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end();
}

}  // namespace

std::vector<fs::path> python_bind_paths(const std::vector<std::string>& reported) {
  std::vector<fs::path> candidates;
  for (const std::string& s : reported) {
    if (s.empty() || s[0] != '/') continue;
    fs::path p = fs::path(s).lexically_normal();
    if (!p.has_filename() && p != "/") p = p.parent_path();  // "/x/" is "/x"
    std::error_code ec;
    // A zip on sys.path (python312.zip) is bound through its folder; missing entries are
    // common (the zip rarely exists) and skipped.
    if (fs::is_regular_file(p, ec)) p = p.parent_path();
    if (!fs::exists(p, ec)) continue;
    candidates.push_back(p);
    // A symlinked folder is bound at both names: the link's target must exist in the sandbox.
    fs::path real = fs::canonical(p, ec);
    if (!ec && real != p) candidates.push_back(real);
  }
  std::vector<fs::path> out;
  for (const fs::path& p : candidates) {
    if (p == "/" || under(p, "/usr") || under(p, "/proc") || under(p, "/dev")) continue;
    out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  std::vector<fs::path> outermost;
  for (const fs::path& p : out)
    if (std::none_of(outermost.begin(), outermost.end(),
                     [&](const fs::path& q) { return under(p, q); }))
      outermost.push_back(p);
  return outermost;
}

PythonEnv probe_python(const std::string& python, double timeout_s) {
  ProcessSpec spec;
  spec.argv = {python, "-I", "-c", kProbe};
  spec.timeout_s = timeout_s;
  ProcessResult r = run_process(spec);
  const std::string what = "python '" + python + "'";
  if (!r.started) throw std::runtime_error("cannot run " + what + ": " + r.error);
  if (r.timed_out) throw std::runtime_error(what + " did not answer within the time limit");
  if (!r.ok())
    throw std::runtime_error(what + " failed (exit " + std::to_string(r.exit_code) +
                             "): " + first_output_line(r.output));
  const std::string tag = "KJUDGE-PYTHON ";
  auto pos = r.output.rfind(tag);
  if (pos == std::string::npos)
    throw std::runtime_error(what + " printed no answer: " + first_output_line(r.output));
  auto end = r.output.find('\n', pos);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(r.output.substr(pos + tag.size(), end - pos - tag.size()));
  } catch (const std::exception& e) {
    throw std::runtime_error(what + " answered something that is not JSON: " + e.what());
  }
  PythonEnv env;
  if (!j.contains("executable") || !j["executable"].is_string() ||
      j["executable"].get<std::string>().empty() || j["executable"].get<std::string>()[0] != '/')
    throw std::runtime_error(what + " does not know its own path (sys.executable)");
  env.executable = j["executable"].get<std::string>();
  env.version = j.value("version", "");
  std::vector<std::string> paths = {fs::path(env.executable).parent_path().string()};
  if (j.contains("paths") && j["paths"].is_array())
    for (const auto& p : j["paths"])
      if (p.is_string()) paths.push_back(p.get<std::string>());
  env.ro_paths = python_bind_paths(paths);
  return env;
}

fs::path locate_triton_runner(const std::string& preferred) {
  return locate_python_entry("kjudge_triton_runner.py", "KJUDGE_TRITON_RUNNER", "the Triton runner",
                             preferred);
}

}  // namespace kjudge::triton
