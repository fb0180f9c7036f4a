#include "run/python_env.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace kjudge {

namespace fs = std::filesystem;

namespace {

std::string read_small(const fs::path& file) {
  std::ifstream in(file);
  // A few lines of names and versions (or pyvenv.cfg's keys); anything longer is not ours.
  char buf[4096];
  in.read(buf, sizeof buf);
  return std::string(buf, static_cast<std::size_t>(in.gcount()));
}

bool inside(const fs::path& p, const fs::path& root) {
  const std::string s = p.string(), r = root.string();
  return s == r || (s.size() > r.size() && s.compare(0, r.size(), r) == 0 && s[r.size()] == '/');
}

// The installation `bin_dir` belongs to: /x/bin → /x.
fs::path installation_of(const fs::path& bin_dir) {
  return bin_dir.filename() == "bin" ? bin_dir.parent_path() : bin_dir;
}

// pyvenv.cfg's `home = /path/to/bin`; empty when absent.
fs::path venv_home(const fs::path& root) {
  std::istringstream cfg(read_small(root / "pyvenv.cfg"));
  std::string line;
  while (std::getline(cfg, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    auto trim = [](std::string& s) {
      s.erase(0, s.find_first_not_of(" \t\r"));
      s.erase(s.find_last_not_of(" \t\r") + 1);
    };
    trim(key);
    trim(value);
    if (key == "home" && !value.empty() && value.front() == '/') return value;
  }
  return {};
}

}  // namespace

std::optional<PythonEnv> read_python_env(const fs::path& given) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(fs::absolute(given, ec), ec);
  if (ec || !fs::is_directory(root, ec)) return std::nullopt;
  const fs::path python = root / "bin" / "python";
  if (!fs::is_regular_file(python, ec) || ::access(python.c_str(), X_OK) != 0) return std::nullopt;
  PythonEnv env;
  env.root = root;
  env.bin_dir = root / "bin";
  env.stamp = read_small(root / "kjudge-python.txt");
  std::set<fs::path> bases;
  auto add = [&](const fs::path& dir) {
    if (dir.empty()) return;
    const fs::path d = fs::weakly_canonical(dir, ec);
    if (ec || d.empty() || !fs::is_directory(d, ec)) return;
    // /usr is always in the sandbox; the environment itself is bound whole.
    if (inside(d, "/usr") || inside(d, root) || d == "/") return;
    bases.insert(d);
  };
  if (const fs::path home = venv_home(root); !home.empty()) add(installation_of(home));
  // bin/python is usually a link (to the interpreter a venv was made from, which may itself be
  // a link into a managed installation): each step of the chain must exist in the sandbox.
  fs::path link = python;
  for (int hop = 0; hop < 8 && fs::is_symlink(link, ec); ++hop) {
    fs::path target = fs::read_symlink(link, ec);
    if (ec) break;
    if (target.is_relative()) target = link.parent_path() / target;
    target = target.lexically_normal();
    add(installation_of(target.parent_path()));
    link = target;
  }
  add(installation_of(fs::weakly_canonical(python, ec).parent_path()));
  env.base_dirs.assign(bases.begin(), bases.end());
  return env;
}

std::optional<PythonEnv> find_python_env() {
  std::vector<fs::path> candidates;
  if (const char* v = std::getenv("KJUDGE_PYTHON_ENV"); v && *v) {
    if (std::string(v) == "none") return std::nullopt;
    candidates.emplace_back(v);
  } else {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) candidates.push_back(self.parent_path() / "python-env");
    candidates.emplace_back("/opt/kjudge/python");
    if (const char* home = std::getenv("HOME"); home && *home)
      candidates.push_back(fs::path(home) / ".local/share/kjudge/python");
  }
  for (const fs::path& c : candidates)
    if (auto env = read_python_env(c)) return env;
  return std::nullopt;
}

}  // namespace kjudge
