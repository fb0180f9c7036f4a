#pragma once
// The compute-sanitizer options (eval/sanitizer.h) of validate|evaluate|run and doctor:
// --sanitize TOOLS, --memcheck (= --sanitize memcheck) and --sanitizer PATH.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kjudge {

void add_sanitizer_options(CLI::App* c, std::vector<std::string>& tools, bool& memcheck,
                           std::string& sanitizer);

}  // namespace kjudge
