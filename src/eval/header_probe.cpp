#include "eval/header_probe.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "run/process.h"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

bool is_c_family_file(const std::string& path) {
  static const char* kExts[] = {".cu", ".cuh", ".h", ".hpp", ".hh", ".cpp", ".cc", ".cxx", ".c"};
  for (const char* e : kExts)
    if (fs::path(path).extension() == e) return true;
  return false;
}

// The headers a file includes unconditionally: an #include under #if/#ifdef (a platform's or a
// configuration's) may never be read, so it is not asked of the machine. An include guard
// (#ifndef X followed by #define X) does not count as a condition.
std::vector<std::string> unconditional_includes(const std::string& text) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  static const std::regex kIf(R"(^\s*#\s*if(n?def)?\b\s*(\w*))");
  static const std::regex kEndif(R"(^\s*#\s*endif\b)");
  static const std::regex kDefine(R"(^\s*#\s*define\s+(\w+))");
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line, pending_guard;
  int depth = 0;
  bool guard_open = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kIf)) {
      ++depth;
      pending_guard = m[1] == "ndef" && !guard_open && depth == 1 ? m[2].str() : "";
      continue;
    }
    if (!pending_guard.empty()) {
      if (std::regex_search(line, m, kDefine) && m[1] == pending_guard) {
        guard_open = true;
        --depth;  // the guard's #endif closes at depth 0 below
        pending_guard.clear();
        continue;
      }
      if (line.find_first_not_of(" \t\r") != std::string::npos) pending_guard.clear();
    }
    if (std::regex_search(line, kEndif)) {
      if (depth > 0) --depth;
      continue;
    }
    if (depth == 0 && std::regex_search(line, m, kInclude)) out.push_back(m[1]);
  }
  return out;
}

}  // namespace

std::map<std::string, HeaderUse> headers_from_machine(const std::vector<const Problem*>& problems) {
  std::map<std::string, HeaderUse> out;
  for (const Problem* p : problems) {
    std::vector<const SourceFile*> files;
    for (const auto& f : p->context_files) files.push_back(&f);
    for (const auto& f : p->test_files) files.push_back(&f);
    if (p->baseline_solution)
      for (const auto& f : p->baseline_solution->files) files.push_back(&f);
    auto shipped = [&](const std::string& h) {
      for (const SourceFile* f : files) {
        const std::string& path = f->path;
        if (path == h || (path.size() > h.size() && path.ends_with("/" + h))) return true;
      }
      return false;
    };
    std::set<std::string> mine;
    for (const SourceFile* f : files) {
      if (!is_c_family_file(f->path)) continue;
      for (const std::string& h : unconditional_includes(f->content))
        if (h.find("..") == std::string::npos && !shipped(h)) mine.insert(h);
    }
    for (const std::string& h : mine) {
      HeaderUse& u = out[h];
      u.groups.insert(p->group);
      ++u.problems;
    }
  }
  return out;
}

std::vector<std::string> missing_headers(const std::string& nvcc,
                                         const std::vector<std::string>& headers,
                                         const fs::path& dir, const std::string& env) {
  if (headers.empty()) return {};
  static const std::regex kSafe(R"([A-Za-z0-9_./+-]+)");
  std::string probe;
  std::vector<std::string> asked;
  for (const std::string& h : headers) {
    if (!std::regex_match(h, kSafe)) continue;  // nothing a file name of a header looks like
    asked.push_back(h);
    probe += fmt::format("#if !__has_include(<{}>)\nkjudge_missing {}\n#endif\n", h, h);
  }
  {
    std::ofstream out(dir / "headers.cu");
    out << probe;
    if (!out) throw std::runtime_error("cannot write " + (dir / "headers.cu").string());
  }
  ProcessResult r = run_shell(env + "\"" + nvcc + "\" -std=c++17 -E -x cu headers.cu -o headers.i",
                              dir, 120, 8192);
  if (!r.ok())
    throw std::runtime_error("the header probe did not run: " +
                             r.output.substr(0, r.output.find('\n')));
  std::ifstream in(dir / "headers.i");
  std::vector<std::string> missing;
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("kjudge_missing ", 0) == 0) missing.push_back(line.substr(15));
  return missing;
}

std::string header_advice(const std::string& header) {
  if (header.rfind("cudnn_frontend", 0) == 0 || header.rfind("cudnn", 0) == 0)
    return "scripts/install-libs installs cuDNN and the cudnn-frontend headers from PyPI into "
           "/opt/kjudge/libs (or $KJUDGE_LIBS), which every step sees (README, Set up)";
  return "";
}

}  // namespace kjudge
