#pragma once
// The compact table `kjudge evaluate|validate|run` print on stderr when they finish: one row
// per slice (all, each group, each difficulty), verdict columns and pass@k, from summary.json.
#include <nlohmann/json.hpp>
#include <string>

namespace kjudge::report {

std::string terminal_table(const nlohmann::json& summary);

}  // namespace kjudge::report
