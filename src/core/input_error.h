#pragma once
// Errors caused by what a user hands the judge (a pack, a YAML file, a solution), as opposed to
// faults of the judge. The message always names where: file, line (0 = not line-based), field.
// An Error (core/error.h) with exit code usage, so run_cli catches it with every other error.
#include <string>

#include "core/error.h"

namespace kjudge {

class InputError : public Error {
 public:
  InputError(std::string file, int line, std::string field, const std::string& what);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }
  // The message without the location prefix.
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  int line_;
  std::string field_;
  std::string reason_;
};

}  // namespace kjudge
