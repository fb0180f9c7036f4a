#include "core/input_error.h"

namespace kjudge {
namespace {

std::string format_location(const std::string& file, int line, const std::string& field,
                            const std::string& what) {
  std::string out = file.empty() ? "<input>" : file;
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!field.empty()) out += "field '" + field + "': ";
  return out + what;
}

}  // namespace

InputError::InputError(std::string file, int line, std::string field, const std::string& what)
    : Error(exit_code::usage, format_location(file, line, field, what)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      reason_(what) {}

}  // namespace kjudge
