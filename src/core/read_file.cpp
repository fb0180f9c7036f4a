#include "core/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/input_error.h"

namespace kjudge {
namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string too_large(std::uintmax_t max_bytes) {
  return "file is larger than the " + std::to_string(max_bytes) + " bytes the judge reads for it";
}

}  // namespace

std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes,
                            Links links) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before fstat
  // could tell it is not a file.
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  if (links == Links::refuse) flags |= O_NOFOLLOW;
  Fd f{::open(name.c_str(), flags)};
  if (f.fd < 0) {
    const int err = errno;
    if (err == ELOOP && links == Links::refuse)
      throw InputError(name, 0, "", "is a symbolic link; only regular files are read");
    throw InputError(name, 0, "", std::string("cannot open file: ") + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw InputError(name, 0, "", std::string("cannot stat file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw InputError(name, 0, "", "not a regular file (a FIFO, device or directory is not read)");
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    throw InputError(name, 0, "", too_large(max_bytes));
  // The size is re-checked while reading: a file may grow, and /proc files report 0.
  std::string data;
  data.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw InputError(name, 0, "",
                       std::string("error while reading file: ") + std::strerror(errno));
    if (n == 0) break;
    if (data.size() + static_cast<std::size_t>(n) > max_bytes)
      throw InputError(name, 0, "", too_large(max_bytes));
    data.append(buffer, static_cast<std::size_t>(n));
  }
  return data;
}

}  // namespace kjudge
