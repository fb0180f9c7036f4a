#include "eval/source_kinds.h"

#include <cctype>
#include <set>

namespace kjudge {

bool is_c_like(const std::string& path) {
  static const std::set<std::string> kC = {".cu",  ".cuh", ".cpp", ".cc",  ".cxx",  ".c",   ".c++",
                                           ".cp",  ".h",   ".hh",  ".hpp", ".hxx",  ".h++", ".inl",
                                           ".inc", ".ipp", ".tcc", ".tpp", ".cuinc"};
  const std::string name = path.substr(path.rfind('/') + 1);
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return false;
  std::string ext = name.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kC.count(ext) > 0;
}

}  // namespace kjudge
