#pragma once
// Whether a test program's main() returned: what the judge asks of a run before an exit status
// of 0 counts as a pass. The solution is compiled into the test program, so an exit(0) of its
// own (or _exit, or the exit system call, from any thread) would end the process "passing"
// before the test has checked anything. libkjudge_main_guard.so (src/run/main_guard/),
// preloaded into the program, writes one line over a private channel when main returns:
//   kjudge-main <nonce> returned <code>
// and nothing on any other way out.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run/result_channel.h"

namespace kjudge {

// The guard library: KJUDGE_MAIN_GUARD (a path; "none" turns the check off), else
// libkjudge_main_guard.so in lib/ beside the running binary or beside it. Empty when off, or
// when what was found or named is no file.
std::filesystem::path locate_main_guard();

// Why `argv0`, the program of a simple command run in `workspace`, cannot carry the guard, or ""
// when it can: it must be a path (it has a '/') to a file inside the workspace that is a
// dynamically linked ELF program (the loader preloads nothing into a static one, a script's
// interpreter is not the test, and a system program run by the command is not either).
std::string main_guard_unfit(const std::filesystem::path& workspace, const std::string& argv0);

// Why the loader would not preload a library into `argv0`, the program of a simple command run in
// `workspace`: a file of the workspace that is an ELF but no dynamically linked ELF64 program
// (static, 32-bit, cut). "" otherwise: a script's interpreter, a program on PATH or outside the
// workspace take a preload. A channel handed to a program that loads no judge's library holds
// its nonce for the program to read.
std::string preload_ignored(const std::filesystem::path& workspace, const std::string& argv0);

// What the guard's channel said. nullopt: nothing (main never returned). Throws
// std::runtime_error when the text is not one well-formed line with this nonce.
std::optional<int> parse_main_return(const std::string& text, const std::string& nonce);

// Why a run that ended with `exit_code` (no signal) cannot stand, given the guard's channel
// text; nullopt when it can. Only an exit code of 0 is questioned: any other fails anyway.
std::optional<std::string> main_return_problem(const std::string& text, const std::string& nonce,
                                               int exit_code);

// One guarded run: the channel (a memfd holding the nonce until the guard takes it), and what the
// step must add to carry the guard.
class MainGuard {
 public:
  // Throws std::runtime_error when no channel can be made.
  explicit MainGuard(std::filesystem::path library);
  // The KEY=VALUE entry that names the channel's descriptor (never the nonce); the step
  // preloads library() and keeps fd().
  std::vector<std::string> env() const;
  int fd() const { return channel_.fd(); }
  const std::string& nonce() const { return channel_.nonce(); }
  const std::filesystem::path& library() const { return library_; }
  // main_return_problem on what the channel holds now.
  std::optional<std::string> problem(int exit_code) const;

 private:
  std::filesystem::path library_;
  ResultChannel channel_;
};

}  // namespace kjudge
