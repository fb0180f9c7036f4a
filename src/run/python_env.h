#pragma once
// The Python environment ComputeEval's cuda_python problems run in. Their commands are
// `PYTHONPATH=. python test_x.py`: `python` must be an interpreter with what ComputeEval's
// python image holds (CuPy, cuda-python, numpy, nvtx, pytest; cuda-tile where the toolkit
// allows). scripts/install-python-env makes one (a venv of kjudge's own, or an existing
// environment it completes); a cuda_python step gets its bin/ first on PATH and, in the sandbox,
// the environment and the interpreter it was made from bound read-only. cuda_cpp steps never see
// it: their `python3` stays the system's, as in ComputeEval's C++ image.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjudge {

struct PythonEnv {
  std::filesystem::path root;     // absolute
  std::filesystem::path bin_dir;  // root/bin, which holds `python`
  // Folders outside /usr and outside `root` that the interpreter needs: the installation a venv
  // was made from (pyvenv.cfg's `home`, and where bin/python's links lead).
  std::vector<std::filesystem::path> base_dirs;
  // What it holds, from its kjudge-python.txt (one "name version" a line, written by
  // scripts/install-python-env); "" for an environment the script never completed.
  std::string stamp;
};

// The environment: $KJUDGE_PYTHON_ENV when set ("none": no environment), else python-env/ beside
// the kjudge binary, /opt/kjudge/python, $HOME/.local/share/kjudge/python: the first folder with
// an executable bin/python. nullopt when none has.
std::optional<PythonEnv> find_python_env();

// Reads the environment at `root`; nullopt unless root/bin/python is an executable file.
std::optional<PythonEnv> read_python_env(const std::filesystem::path& root);

}  // namespace kjudge
