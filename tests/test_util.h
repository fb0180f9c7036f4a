#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>
// Small helpers shared by the tests: a temporary directory removed at scope exit, file IO.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/input_error.h"
#include "core/problem_json.h"

namespace kjudge::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("kjudge-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  std::filesystem::path path_;
};

// Runs `command` with sh, stdout and stderr together.
struct CmdResult {
  int rc;
  std::string out;
};
inline CmdResult run_capture(const std::string& command) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

// The records of a JSONL journal; a torn or foreign line is skipped, as the judge does.
inline std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& p) {
  std::vector<nlohmann::json> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << text;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `f`, which must throw InputError, and returns the error for its file/line/field.
template <typename F>
InputError expect_input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError("", 0, "", "");
}

// A problem's pack line with its files sorted by path: directories list files by path, so
// problems that went through one compare equal this way.
inline std::string canon(Problem p) {
  auto by_path = [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; };
  std::sort(p.context_files.begin(), p.context_files.end(), by_path);
  std::sort(p.test_files.begin(), p.test_files.end(), by_path);
  if (p.baseline_solution)
    std::sort(p.baseline_solution->files.begin(), p.baseline_solution->files.end(), by_path);
  return problem_to_json_line(p);
}

}  // namespace kjudge::testing
