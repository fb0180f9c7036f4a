#pragma once
// Which of a solution's files hold C, C++ or CUDA code: one answer for every rule that reads
// them (the rules on what a solution may bring, the static flags). Two lists that differed let
// code in a `.tcc` or `.HPP` file, included by the solution, pass one check unread.
#include <string>

namespace kjudge {

// By the name's extension, in any case: sources (.cu .cpp .c …) and every extension a header
// that such a source includes is commonly given (.h .cuh .hpp .inl .tcc …).
bool is_c_like(const std::string& path);

}  // namespace kjudge
