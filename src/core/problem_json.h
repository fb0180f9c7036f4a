#pragma once
// ComputeEval's JSON form of a Problem and of a Solution. This is the only core header that pulls
// in nlohmann/json (slow to compile); modules that just use the model include problem.h alone.
//
// Reading follows ComputeEval's pydantic models: unknown top-level keys are ignored, null means
// "absent" for optional fields, defaults are ComputeEval's. Writing follows its
// model_dump_json(exclude_none=True): same key order, null optionals left out, with two
// deliberate exceptions that keep a pack's meaning when ComputeEval reads it back:
//   * compute_capability is written as null when unset, because ComputeEval reads an absent key
//     as "8.0";
//   * source_references is written as {"any": ..., "all": ...} with null for an empty side, the
//     normalised form ComputeEval itself writes.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/input_error.h"
#include "core/problem.h"

namespace kjudge {

// Parses one JSON document (e.g. one JSONL line). Like ComputeEval's json.loads(strict=False),
// raw control characters inside strings are accepted. Throws InputError(file, line, "", ...).
nlohmann::json parse_json_text(std::string_view text, const std::string& file, int line);

// Throws InputError(file, line, "<field.path>", reason) for a missing or mistyped field, e.g.
// field "metadata.tags[2]", reason "expected string, got number".
Problem problem_from_json(const nlohmann::json& j, const std::string& file, int line);
nlohmann::ordered_json problem_to_json(const Problem& problem);

// A solution line of a solutions pack (type "file" only: "patch" solutions are rejected because
// ComputeEval cannot evaluate them either). The extra key "sample", when present, sets
// Solution::sample; solution_has_sample() tells whether it was there.
Solution solution_from_json(const nlohmann::json& j, const std::string& file, int line);
bool solution_has_sample(const nlohmann::json& j);
// Writes "sample" after ComputeEval's own keys when with_sample is true.
nlohmann::ordered_json solution_to_json(const Solution& solution, bool with_sample = true);

// Compact one-line form, exactly what a pack line holds (without the trailing "\n").
// Throws InputError naming the task when a string is not valid UTF-8.
std::string problem_to_json_line(const Problem& problem);
std::string solution_to_json_line(const Solution& solution);

// Rejects paths that would land outside the directory a file is written into: empty, absolute,
// or with a ".." component. Throws InputError(file, line, field, ...).
void check_relative_path(const std::string& path, const std::string& file, int line,
                         const std::string& field);

}  // namespace kjudge
