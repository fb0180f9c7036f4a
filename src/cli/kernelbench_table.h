#pragma once
// The table a KernelBench run prints on stdout (kjudge kernelbench eval, kjudge run
// --kernelbench): per level, compiled and correct rates, speedups, fast_p, hacks.
#include <nlohmann/json.hpp>

namespace kjudge {

void print_kernelbench_table(const nlohmann::ordered_json& summary);

}  // namespace kjudge
