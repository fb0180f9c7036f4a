#pragma once
// The CUDA runtime's words for "the machine, not the program, failed". A program prints its
// own output, so finding one proves nothing alone: the judge's own probe of the GPU decides
// whether the fault is the machine's (eval/evaluator.cpp, board/judge_service.cpp).
#include <string>

namespace kjudge {

// The first marker found in `log`; "" when none.
std::string machine_fault(const std::string& log);

}  // namespace kjudge
