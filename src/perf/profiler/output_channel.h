#pragma once
// Where the exit record goes, taken on raw system calls (run/preload_channel.h) so that no
// symbol of the profiled program can intercept it.
//
// The judge names a memfd (KJUDGE_PROFILE_FD) that holds the run's nonce; the profiler takes the
// nonce and empties the file before any code of the program runs, so the nonce is never in the
// environment, in bubblewrap's command line or in a file the program can read. At the end the
// record is written as the file's whole content, sealed and read back. KJUDGE_PROFILE_FILE
// names a file instead, for use by hand (no nonce: "-").
#include <cstddef>

namespace kjudge::profiler {

struct OutputChannel {
  int fd = -1;           // close-on-exec, moved high above the descriptors a program uses
  char nonce[80] = "-";  // "-" when none was given (file use)
  // KJUDGE_PROFILE_EARLY_HEADER=1 (the task and Triton paths ask for it): the start line
  // (kStartLine, no nonce) is written as soon as the profiler starts and replaced by the record
  // at exit. The start line alone then says that the profiler was loaded but the process ended
  // without its exit handlers.
  bool early_header = false;
  bool stream = false;  // a pipe (by hand): no offset, no seal; written in order
};

// The first line of a record that carries no nonce; alone in the channel, "started, never
// finished" (src/perf/profile_record.h, profile_channel_text).
inline constexpr char kStartLine[] = "KJPROF 1 -\n";

// Takes the variables out of `envp`, the environment block the loader hands the constructor
// (libc's environ at that point): neither getenv, /proc/self/environ nor a child sees them
// afterwards. False when no usable channel was named: the library then stays idle, as it must
// in the processes a program starts.
bool take_output_channel(char** envp, OutputChannel& out);

// Writes `record` as the channel's whole content, seals it and reads it back; a channel that
// something else wrote to or sealed ends the process with status 111 (the run then counts for
// nothing), never with a record the judge could take for the profiler's.
void finish_output(const OutputChannel& channel, const char* record, std::size_t n);

// The start line, for KJUDGE_PROFILE_EARLY_HEADER.
void write_start_line(const OutputChannel& channel);

}  // namespace kjudge::profiler
