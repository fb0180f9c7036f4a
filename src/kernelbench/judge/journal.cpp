// RUN/results.jsonl of a KernelBench run, and --resume.
// Declared, and explained, in kernelbench/judge/journal.h.
#include "kernelbench/judge/journal.h"

#include <fmt/format.h>

#include <stdexcept>

#include "core/input_error.h"

namespace kjudge::kernelbench {

namespace {

std::set<std::string> keys_of(const std::vector<Solution>& solutions) {
  std::set<std::string> keys;
  for (const Solution& s : solutions) keys.insert(s.key());
  return keys;
}

}  // namespace

Journal::Journal(const std::filesystem::path& run_dir, const std::vector<Solution>& solutions)
    : Journal(run_dir, keys_of(solutions)) {}

Journal::Journal(const std::filesystem::path& run_dir, const std::set<std::string>& keys)
    : path_(run_dir / "results.jsonl") {
  std::vector<std::pair<int, nlohmann::ordered_json>> lines;
  journal_ = std::make_unique<JsonLinesJournal>(path_, [&](const std::string& line, int lineno) {
    auto j = nlohmann::ordered_json::parse(line);
    if (!j.is_object() || j.value("kind", "") != "kjudge-kernelbench-result" ||
        !j.contains("key") || !j["key"].is_string())
      throw std::runtime_error("not a kjudge KernelBench result");
    lines.emplace_back(lineno, std::move(j));
  });
  for (const auto& [lineno, j] : lines) {
    const std::string key = j["key"].get<std::string>();
    if (!keys.count(key))
      throw InputError(path_.string(), lineno, "key",
                       "'" + key + "' is none of this run's solutions (another run's journal?)");
    if (!done_.insert(key).second)
      throw InputError(path_.string(), lineno, "key", "'" + key + "' is judged twice");
    try {
      earlier_.push_back(graded_from_json(j));
    } catch (const std::exception& e) {
      throw InputError(path_.string(), lineno, "", e.what());
    }
  }
}

std::vector<const Solution*> Journal::todo(const std::vector<Solution>& solutions) const {
  std::vector<const Solution*> out;
  for (const Solution& s : solutions)
    if (!done_.count(s.key())) out.push_back(&s);
  return out;
}

void Journal::append(const Result& r) { journal_->append(r.json); }

}  // namespace kjudge::kernelbench
