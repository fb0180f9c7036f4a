#pragma once
// Where the exit record goes. The judge passes a pipe (KJUDGE_PROFILE_FD) and a nonce
// (KJUDGE_PROFILE_NONCE) that the solution, running in this same process, must not read back
// from its environment; KJUDGE_PROFILE_FILE names a file instead, for use by hand.
#include <optional>
#include <string>
#include <string_view>

namespace kjudge::profiler {

struct OutputChannel {
  int fd = -1;        // close-on-exec, moved high above the descriptors a program uses
  std::string nonce;  // "-" when none was given (file use)
  // KJUDGE_PROFILE_EARLY_HEADER=1 (the task path asks for it): the record's header line is
  // written as soon as the profiler starts, the rest at exit. A header alone then says that the
  // profiler was loaded but the process ended without its exit handlers.
  bool early_header = false;
};

// Takes the variables out of the environment (and blanks their values in place, so neither
// getenv nor /proc/self/environ shows them). nullopt when no usable channel was named: the
// library then stays idle, as it must in the processes a program starts.
std::optional<OutputChannel> take_output_channel();

// All of `data` or nothing more can be done; never raises SIGPIPE.
bool write_all(int fd, std::string_view data);

}  // namespace kjudge::profiler
