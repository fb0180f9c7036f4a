#include "eval/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "eval/graded_json.h"

namespace kjudge {

Journal::Journal(const std::filesystem::path& path, std::vector<GradedSolution>* existing)
    : path_(path) {
  std::uintmax_t keep = 0;  // bytes of complete, valid lines
  if (std::filesystem::exists(path)) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    std::uintmax_t offset = 0;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      bool complete = !in.eof();  // getline hit a newline
      std::uintmax_t next = offset + line.size() + (complete ? 1 : 0);
      if (line.find_first_not_of(" \t\r") == std::string::npos) {
        offset = next;
        if (complete) keep = offset;
        continue;
      }
      try {
        GradedSolution g = graded_from_json(nlohmann::json::parse(line));
        if (!complete) break;  // valid JSON but unterminated: rewrite it whole later
        if (existing) existing->push_back(std::move(g));
        keep = next;
      } catch (const std::exception& e) {
        if (complete && in.peek() != EOF) {
          throw std::runtime_error(path.string() + ":" + std::to_string(lineno) +
                                   ": not a kjudge result line (" + e.what() + ")");
        }
        break;  // torn last line
      }
      offset = next;
    }
  }
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("cannot open journal " + path.string() + ": " + std::strerror(errno));
  if (ftruncate(fd_, static_cast<off_t>(keep)) != 0 || lseek(fd_, 0, SEEK_END) < 0) {
    throw std::runtime_error("cannot prepare journal " + path.string() + ": " +
                             std::strerror(errno));
  }
}

Journal::~Journal() {
  if (fd_ >= 0) close(fd_);
}

void Journal::append(const GradedSolution& g) {
  std::string line =
      graded_to_json(g).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    ssize_t n = write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot write journal " + path_.string() + ": " +
                               std::strerror(errno));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  // fdatasync would survive a power cut too; a killed process only needs the write() done.
}

}  // namespace kjudge
