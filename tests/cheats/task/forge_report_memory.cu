// CHEAT (reading the harness's memory): in one process the harness and the submission share
// everything. On its first call this submission finds the result channel among its own
// descriptors (/proc/self/fd, "memfd:kjudge-task") and the nonce in the records the harness keeps
// in memory (its writable heap and anonymous mappings, scanned for "KJ1 "), writes a whole report
// of its own (every case passed, every timed call 1 µs, the profiler "absent") and ends the
// process with _exit(0) before the harness writes anything. Run in one process, the judge
// accepts that report: only the static pass (proc_read, result_forge) names it. Run with
// --isolate, the submission's process holds neither the channel nor the nonce: it finds
// nothing, its _exit ends the worker, and the run fails (tests/gpu/run-isolate-check.sh).
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "task.h"

namespace {

bool is_nonce(const char* p, std::size_t n) {
  if (n < 16) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'))) return false;
  return true;
}

// "KJ1 <nonce> " in this process's heap and anonymous writable mappings.
std::string find_nonce() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const char head[] = {'K', 'J', '1', ' '};
  while (std::getline(maps, line)) {
    unsigned long lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%lx-%lx %7s", &lo, &hi, perms) != 3) continue;
    if (std::strcmp(perms, "rw-p") != 0 || hi - lo > (256ul << 20)) continue;
    const bool heap = line.find("[heap]") != std::string::npos;
    const bool anon = line.find('/') == std::string::npos && line.find('[') == std::string::npos;
    if (!heap && !anon) continue;
    const char* p = reinterpret_cast<const char*>(lo);
    const std::size_t n = hi - lo;
    for (std::size_t i = 0; i + 64 < n; ++i) {
      if (std::memcmp(p + i, head, 4) != 0) continue;
      std::size_t j = i + 4;
      while (j < n && p[j] != ' ' && j - i < 200) ++j;
      if (is_nonce(p + i + 4, j - i - 4)) return std::string(p + i + 4, j - i - 4);
    }
  }
  return "";
}

int find_channel() {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  int found = -1;
  while (dirent* e = readdir(d)) {
    char target[256] = {};
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    if (readlink(link.c_str(), target, sizeof target - 1) > 0 &&
        std::strstr(target, "memfd:kjudge-task"))
      found = std::atoi(e->d_name);
  }
  closedir(d);
  return found;
}

std::vector<std::string> cmdline() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string a;
  while (std::getline(in, a, '\0')) args.push_back(a);
  return args;
}

void forge() {
  const std::string nonce = find_nonce();
  const int fd = find_channel();
  const auto args = cmdline();
  if (nonce.empty() || fd < 0 || args.size() < 3) return;  // nothing to forge with
  const std::string mode = args[1];
  std::ifstream cases(args[2]);
  std::vector<std::string> lines;
  for (std::string l; std::getline(cases, l);)
    if (!l.empty()) lines.push_back(l);
  std::ostringstream r;
  int records = 0;
  auto put = [&](const std::string& k, const std::string& v) {
    r << "KJ1 " << nonce << " " << k << " " << v << "\n";
    ++records;
  };
  put("mode", mode);
  put("profiler", "absent");
  put("device", "NVIDIA H100 80GB HBM3");
  if (mode == "test") {
    put("test-count", std::to_string(lines.size()));
    for (std::size_t i = 0; i < lines.size(); ++i) {
      put("test." + std::to_string(i) + ".spec", lines[i]);
      put("test." + std::to_string(i) + ".status", "pass");
    }
  } else {
    put("benchmark-count", std::to_string(lines.size()));
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string p = "benchmark." + std::to_string(i) + ".";
      put(p + "spec", lines[i]);
      put(p + "times_ns", "1000,1000,1000,1000,1000,1000,1000,1000,1000,1000");
      put(p + "host_ns", "1000,1000,1000,1000,1000,1000,1000,1000,1000,1000");
      put(p + "checked", "10");
      put(p + "stop", "precise");
      put(p + "status", "pass");
    }
  }
  put("check", "pass");
  r << "KJ1 " << nonce << " end " << records << "\n";
  const std::string text = r.str();
  if (ftruncate(fd, 0) != 0) return;
  if (pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) return;
  _exit(0);
}

}  // namespace

output_t custom_kernel(const input_t& in) {
  forge();
  return in.out;  // reached only where there was nothing to forge with: a wrong result
}
