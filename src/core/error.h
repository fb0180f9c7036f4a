#pragma once
// The one error style of kjudge: a command that cannot go on throws an Error carrying the exit
// code it ends with (core/exit_codes.h) and a message; run_cli (cli/app.cpp) is the one place
// that catches it, prints `kjudge: error: <message>` and returns the code. Input the user can fix
// is an InputError (core/input_error.h, exit code usage), which names the file, line and field.
// A run's outcomes (findings, judge_error, interrupted) are results a command returns, not
// errors.
#include <exception>
#include <stdexcept>
#include <string>

#include "core/exit_codes.h"

namespace kjudge {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}

  // The process exit code (exit_code::usage, exit_code::environment, ...).
  int code() const { return code_; }

 private:
  int code_;
};

// The exit code kjudge ends with when `e` reaches run_cli: an Error's own code, usage for any
// other exception (an unreadable input file, a malformed document).
int exit_code_of(const std::exception& e);

}  // namespace kjudge
