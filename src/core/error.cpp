// The exit code of an exception that ends a command (core/error.h).
#include "core/error.h"

namespace kjudge {

int exit_code_of(const std::exception& e) {
  if (const auto* err = dynamic_cast<const Error*>(&e)) return err->code();
  return exit_code::usage;
}

}  // namespace kjudge
