#pragma once
#include <nlohmann/json.hpp>

#include "eval/graded.h"

namespace kjudge {

nlohmann::json graded_to_json(const GradedSolution& g);
// Throws std::exception on a line that is not a graded solution.
GradedSolution graded_from_json(const nlohmann::json& j);

}  // namespace kjudge
