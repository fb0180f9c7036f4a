#include "eval/json_lines_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace kjudge {

JsonLinesJournal::JsonLinesJournal(const std::filesystem::path& path, const LineReader& read)
    : path_(path) {
  std::uintmax_t keep = 0;  // bytes of complete, accepted lines
  if (std::filesystem::exists(path)) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    std::uintmax_t offset = 0;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      const bool complete = !in.eof();  // getline hit a newline
      const std::uintmax_t next = offset + line.size() + (complete ? 1 : 0);
      if (line.find_first_not_of(" \t\r") == std::string::npos) {
        offset = next;
        if (complete) keep = offset;
        continue;
      }
      // Unterminated: torn, or whole but not known to be; the record is made again.
      if (!complete) break;
      try {
        if (read)
          read(line, lineno);
        else if (!nlohmann::json::accept(line))
          throw std::runtime_error("not JSON");
      } catch (const std::exception& e) {
        if (in.peek() != EOF) {
          throw std::runtime_error(path.string() + ":" + std::to_string(lineno) +
                                   ": not a kjudge result line (" + e.what() + ")");
        }
        break;  // torn last line
      }
      keep = next;
      offset = next;
    }
  }
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("cannot open journal " + path.string() + ": " + std::strerror(errno));
  if (ftruncate(fd_, static_cast<off_t>(keep)) != 0 || lseek(fd_, 0, SEEK_END) < 0) {
    const std::string why = std::strerror(errno);
    close(fd_);
    throw std::runtime_error("cannot prepare journal " + path.string() + ": " + why);
  }
}

JsonLinesJournal::~JsonLinesJournal() {
  if (fd_ >= 0) close(fd_);
}

void JsonLinesJournal::append(const nlohmann::json& j) {
  append_line(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void JsonLinesJournal::append(const nlohmann::ordered_json& j) {
  append_line(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

void JsonLinesJournal::append_line(const std::string& line) {
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
