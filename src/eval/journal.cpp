#include "eval/journal.h"

#include "eval/graded_json.h"

namespace kjudge {

Journal::Journal(const std::filesystem::path& path, std::vector<GradedSolution>* existing)
    : lines_(path, [existing](const std::string& line, int) {
        GradedSolution g = graded_from_json(nlohmann::json::parse(line));
        if (existing) existing->push_back(std::move(g));
      }) {}

void Journal::append(const GradedSolution& g) { lines_.append(graded_to_json(g)); }

}  // namespace kjudge
