// The Triton side of `kjudge generate --tritonbench`. Declared, and explained, in
// triton/candidates/generation.h.
#include "triton/candidates/generation.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <tuple>
#include <utility>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "core/read_file.h"
#include "core/sha256.h"
#include "triton/candidates/oneshot_retrieval.h"
#include "triton/candidates/prompt.h"

namespace kjudge::triton {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> resolve_triton_tasks(const std::vector<std::string>& tasks,
                                              const TritonBench& bench,
                                              std::optional<TritonChannel> channel) {
  std::vector<std::string> out;
  for (const std::string& t : tasks) {
    std::optional<TritonChannel> ch = channel;
    std::string key = t;
    if (t.size() > 2 && (t[0] == 'G' || t[0] == 'T') && t[1] == '/') {
      ch = t[0] == 'G' ? TritonChannel::G : TritonChannel::T;
      key = t.substr(2);
    }
    bool found = false;
    for (const TritonOperator& op : bench.operators) {
      if (ch && op.channel != *ch) continue;
      if (op.name == key || op.file == key || op.file == key + ".py") {
        out.push_back(triton_task_id(op));
        found = true;
      }
    }
    if (!found) throw InputError("--task", 0, "", "no TritonBench operator named '" + t + "'");
  }
  return out;
}

std::string triton_corpus_fingerprint(const std::string& path) {
  if (path.empty()) return "";
  std::error_code ec;
  if (fs::is_directory(path, ec)) return "dir:" + fs::weakly_canonical(path, ec).string();
  return "file:" + Sha256().update(read_input_file(path)).hex();
}

json add_oneshot_examples(std::vector<Problem>& problems, const TritonTaskMap& by_task,
                          InstructionKind kind, const std::string& corpus, const std::string& db) {
  json one_shot = json::object();
  OneShotIndex index(load_oneshot_corpus(corpus), db);
  if (index.size() == 0) throw InputError(corpus, 0, "", "the corpus holds no example with code");
  for (Problem& p : problems) {
    const TritonOperator& op = *by_task.at(p.task_id);
    std::optional<OneShotExample> ex = index.best_for(op, instruction_of(op, kind));
    p = triton_problem(op, kind, ex ? &*ex : nullptr);
    one_shot[p.task_id] = ex ? json(ex->source) : json(nullptr);
  }
  return one_shot;
}

TritonAnswers triton_answers(const std::vector<Problem>& problems, const TritonTaskMap& by_task,
                             InstructionKind kind, const std::vector<GenRecord>& records) {
  TritonAnswers a;
  std::set<std::string> asked;
  for (const Problem& p : problems) asked.insert(p.task_id);
  for (const GenRecord& r : records) {
    if (!asked.count(r.task_id)) continue;
    const TritonOperator& op = *by_task.at(r.task_id);
    a.in_tokens += r.usage.input_tokens;
    a.out_tokens += r.usage.output_tokens;
    a.truncated += r.finish_reason == "length";
    TritonCode code = extract_triton_code(r.raw_answer, op.file);
    TritonCandidate c;
    c.channel = op.channel;
    c.file = op.file;
    c.operator_name = op.name;
    c.instruction = kind;
    c.sample = r.sample;
    c.code = std::move(code.code);
    c.code_error = std::move(code.error);
    if (!c.code_error.empty())
      a.unusable.push_back(
          {{"task_id", r.task_id}, {"sample", r.sample}, {"reason", c.code_error}});
    a.candidates.push_back(std::move(c));
  }
  std::sort(a.candidates.begin(), a.candidates.end(),
            [](const TritonCandidate& x, const TritonCandidate& y) {
              return std::tie(x.channel, x.file, x.sample) < std::tie(y.channel, y.file, y.sample);
            });
  return a;
}

void write_triton_solutions(const fs::path& file, const std::vector<TritonCandidate>& candidates) {
  std::string text;
  for (const TritonCandidate& c : candidates)
    text += triton_solution_json(c).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  write_file_atomically(file, text);
}

}  // namespace kjudge::triton
