#include "core/read_file.h"

#include <fstream>
#include <iterator>

#include "core/input_error.h"

namespace kjudge {

std::string read_input_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), 0, "", "cannot open file");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path.string(), 0, "", "error while reading file");
  return data;
}

}  // namespace kjudge
