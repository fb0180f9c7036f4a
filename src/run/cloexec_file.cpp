#include "run/cloexec_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kjudge {

namespace {

void write_all(int fd, const char* data, std::size_t size, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      close(fd);
      throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(e));
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_file_cloexec(const std::filesystem::path& path, const std::string& data, unsigned mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0)
    throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  write_all(fd, data.data(), data.size(), path);
  if (close(fd) != 0)
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
}

void append_line_cloexec(const std::filesystem::path& path, const std::string& line) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot append to " + path.string() + ": " + std::strerror(errno));
  write_all(fd, line.data(), line.size(), path);
  close(fd);
}

void copy_file_cloexec(const std::filesystem::path& from, const std::filesystem::path& to) {
  int in = open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    throw std::runtime_error("cannot read " + from.string() + ": " + std::strerror(errno));
  std::error_code ec;
  std::filesystem::remove(to, ec);
  int out = open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    int e = errno;
    close(in);
    throw std::runtime_error("cannot create " + to.string() + ": " + std::strerror(e));
  }
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(in);
      close(out);
      throw std::runtime_error("cannot read " + from.string() + ": " + std::strerror(e));
    }
    if (n == 0) break;
    write_all(out, buf, static_cast<std::size_t>(n), to);
  }
  close(in);
  if (close(out) != 0)
    throw std::runtime_error("cannot write " + to.string() + ": " + std::strerror(errno));
}

}  // namespace kjudge
