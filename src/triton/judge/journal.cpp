// results.jsonl of a Triton run: the verdicts as they come, and --resume reading them back.
// Declared, and explained, in triton/judge/journal.h.
#include "triton/judge/journal.h"

#include <fmt/format.h>

#include <mutex>
#include <set>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "triton/judge/eval_runs.h"

namespace kjudge::triton {
namespace fs = std::filesystem;

namespace {

std::string candidate_key(const std::string& channel, const std::string& op, long long sample) {
  return fmt::format("{}/{}#{}", channel, op, sample);
}

// The field `name` of `j`, which must be of the kind `is` checks; else a runtime_error naming
// it.
const nlohmann::ordered_json& field(const nlohmann::ordered_json& j, const std::string& name,
                                    bool (nlohmann::ordered_json::*is)() const noexcept,
                                    const char* kind) {
  auto it = j.find(name);
  if (it == j.end()) throw std::runtime_error("field '" + name + "' missing");
  if (!((*it).*is)()) throw std::runtime_error("field '" + name + "' is not " + kind);
  return *it;
}

std::string text(const nlohmann::ordered_json& j, const std::string& name) {
  return field(j, name, &nlohmann::ordered_json::is_string, "a string").get<std::string>();
}

const nlohmann::ordered_json& object(const nlohmann::ordered_json& j, const std::string& name) {
  return field(j, name, &nlohmann::ordered_json::is_object, "an object");
}

// The text of `name` where it is a string, else "".
std::string text_or_empty(const nlohmann::ordered_json& j, const std::string& name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

TritonRunStatus run_status(const nlohmann::ordered_json& run) {
  const std::string name = text(run, "status");
  const auto s = triton_run_status_from_name(name);
  if (!s) throw std::runtime_error("run.status '" + name + "' is no run status");
  return *s;
}

}  // namespace

std::string triton_candidate_key(const TritonJob& job) {
  return candidate_key(std::string(channel_name(job.op->channel)), job.op->name, job.sample);
}

TritonJobResult triton_result_from_json(const nlohmann::ordered_json& line, const TritonJob& job) {
  TritonJobResult r;
  r.job = job;
  r.flags = triton_static_flags(job);  // a function of the code, as when it was judged
  r.graded.op = job.op->name;
  r.graded.channel = std::string(channel_name(job.op->channel));
  r.graded.difficulty = job.op->difficulty;
  const std::string verdict = text(line, "verdict");
  const auto v = triton_verdict_from_name(verdict);
  if (!v) throw std::runtime_error("field 'verdict': '" + verdict + "' is no verdict");
  r.graded.verdict = *v;
  r.graded.call_ok =
      field(line, "call_ok", &nlohmann::ordered_json::is_boolean, "true or false").get<bool>();
  r.detail = text_or_empty(line, "detail");
  // An excluded operator's candidate never ran: "run" is null.
  if (auto run = line.find("run"); run != line.end() && run->is_object()) {
    r.run.status = run_status(*run);
    r.run.detail = text_or_empty(*run, "detail");
  }
  if (r.run.status == TritonRunStatus::error) {  // flat on the line, for the failure classes
    r.run.error.stage = text_or_empty(line, "stage");
    r.run.error.exception_type = text_or_empty(line, "exception_type");
    r.run.error.message = text_or_empty(line, "message");
    r.run.error.traceback = text_or_empty(line, "traceback");
  }
  if (auto sp = line.find("speedup"); sp != line.end() && sp->is_object()) {
    TritonSpeedup s;
    auto number = [&](const char* name) {
      return field(*sp, name, &nlohmann::ordered_json::is_number, "a number").get<double>();
    };
    s.estimate = number("estimate");
    s.low = number("low");
    s.high = number("high");
    r.speedup = s;
    r.graded.speedup = s.estimate;
  }
  r.speedup_note = text_or_empty(line, "speedup_note");
  // What the timing processes said of persisting L2 (the summary's env.persisting_l2).
  if (auto t = line.find("timing"); t != line.end() && t->is_object())
    if (auto p = t->find("persisting_l2"); p != t->end() && p->is_array())
      for (const auto& said : *p)
        if (said.is_string()) r.persisting_l2.insert(said.get<std::string>());
  // The GPU efficiency and the work it rests on (summary.json's `work`).
  if (auto eff = line.find("gpu_efficiency"); eff != line.end() && eff->is_object()) {
    r.efficiency = *eff;
    r.efficiency_note = text_or_empty(line, "gpu_efficiency_note");
    r.work.basis = text(*eff, "basis");
    r.work.bytes = field(*eff, "bytes", &nlohmann::ordered_json::is_number_integer, "an integer")
                       .get<std::int64_t>();
    if (auto f = eff->find("flops"); f != eff->end() && f->is_number())
      r.work.flops = f->get<double>();
    r.work.flops_dtype = text_or_empty(*eff, "flops_dtype");
    if (auto f = eff->find("formulas"); f != eff->end() && f->is_array())
      for (const auto& formula : *f)
        if (formula.is_string()) r.work.formulas.push_back(formula.get<std::string>());
    r.work.note = text_or_empty(*eff, "work_note");
  }
  return r;
}

std::pair<TritonRunOutcome, TritonReferenceCheck> triton_reference_from_json(
    const nlohmann::ordered_json& line) {
  TritonRunOutcome ref;
  const nlohmann::ordered_json& run = object(line, "run");
  ref.status = run_status(run);
  ref.detail = text_or_empty(run, "detail");
  if (auto env = run.find("env"); env != run.end() && env->is_object()) ref.env = *env;
  if (auto err = run.find("error"); err != run.end() && err->is_object()) {
    ref.error.stage = text_or_empty(*err, "stage");
    ref.error.exception_type = text_or_empty(*err, "exception_type");
    ref.error.message = text_or_empty(*err, "message");
    ref.error.traceback = text_or_empty(*err, "traceback");
  }
  TritonReferenceCheck check;
  const nlohmann::ordered_json& c = object(line, "self_check");
  check.status = text(c, "status");
  check.detail = text_or_empty(c, "detail");
  check.second_run = text_or_empty(c, "second_run");
  check.compared_on = text_or_empty(c, "compared_on");
  if (auto compared = c.find("compared"); compared != c.end()) {
    if (!compared->is_number_unsigned())
      throw std::runtime_error("field 'self_check.compared' is not a count");
    OutputsVerdict o;
    o.compared = compared->get<std::size_t>();
    if (auto differ = c.find("differ"); differ != c.end() && differ->is_array())
      for (const auto& d : *differ) {
        EntryVerdict e;
        e.name = text(d, "name");
        e.status = text(d, "status");
        e.failed = true;
        e.detail = text_or_empty(d, "detail");
        if (auto m = d.find("max_abs_error"); m != d.end() && m->is_number())
          e.max_abs_error = m->get<double>();
        o.entries.push_back(std::move(e));
      }
    o.failed = o.entries.size();
    o.passed = o.failed == 0;
    check.outputs = std::move(o);
  }
  return {std::move(ref), std::move(check)};
}

TritonJournal::TritonJournal(const fs::path& run_dir, const std::vector<TritonJob>& jobs)
    : run_dir_(run_dir) {
  auto reader = [](std::vector<std::pair<int, nlohmann::ordered_json>>& into) {
    return [&into](const std::string& line, int lineno) {
      into.emplace_back(lineno, nlohmann::ordered_json::parse(line));
    };
  };
  results_journal_ =
      std::make_unique<JsonLinesJournal>(run_dir / "results.jsonl", reader(result_lines_));
  references_journal_ =
      std::make_unique<JsonLinesJournal>(run_dir / "references.jsonl", reader(reference_lines_));

  std::map<std::string, const TritonJob*> by_key;
  std::set<std::string> ops;
  for (const TritonJob& j : jobs) {
    by_key.emplace(triton_candidate_key(j), &j);
    ops.insert(op_key(*j.op));
  }
  const std::string results = (run_dir / "results.jsonl").string();
  for (const auto& [lineno, line] : result_lines_) {
    std::string key;
    try {
      if (!line.is_object()) throw std::runtime_error("not a JSON object");
      const auto& sample =
          field(line, "sample", &nlohmann::ordered_json::is_number_integer, "an integer");
      key = candidate_key(text(line, "channel"), text(line, "operator"), sample.get<long long>());
    } catch (const std::exception& e) {
      throw InputError(results, lineno, "", std::string("not a kjudge triton result: ") + e.what());
    }
    auto job = by_key.find(key);
    if (job == by_key.end())
      throw InputError(results, lineno, "",
                       key + " is no candidate of this run (the run directory holds another run)");
    if (done_.count(key)) throw InputError(results, lineno, "", key + " is judged twice");
    try {
      earlier_.push_back(triton_result_from_json(line, *job->second));
    } catch (const std::exception& e) {
      throw InputError(results, lineno, "", std::string("not a kjudge triton result: ") + e.what());
    }
    done_.insert(key);
  }
  const std::string references = (run_dir / "references.jsonl").string();
  for (const auto& [lineno, line] : reference_lines_) {
    std::string key;
    try {
      if (!line.is_object()) throw std::runtime_error("not a JSON object");
      key = text(line, "channel") + "/" + text(line, "operator");
      (void)triton_reference_from_json(line);
    } catch (const std::exception& e) {
      throw InputError(references, lineno, "",
                       std::string("not a kjudge triton reference: ") + e.what());
    }
    if (!ops.count(key))
      throw InputError(references, lineno, "",
                       key + " is no operator of this run (the run directory holds another run)");
    references_[key] = line;  // a later line is a later run of the same reference
  }
  result_lines_.clear();
  reference_lines_.clear();
}

std::vector<TritonJob> TritonJournal::todo(const std::vector<TritonJob>& jobs) const {
  std::vector<TritonJob> out;
  for (const TritonJob& j : jobs)
    if (!done_.count(triton_candidate_key(j))) out.push_back(j);
  return out;
}

void TritonJournal::append(const TritonJobResult& r) {
  results_journal_->append(triton_result_json(r));
}

void TritonJournal::append_reference(const TritonOperator& op, const TritonRunOutcome& reference,
                                     const TritonReferenceCheck& check,
                                     const TritonDefect* defect) {
  nlohmann::ordered_json line = triton_reference_json(op, reference, &check, defect);
  std::lock_guard<std::mutex> lock(mu_);
  if (!references_journal_) throw std::logic_error("references.jsonl is already written whole");
  references_journal_->append(line);
  references_[op_key(op)] = std::move(line);
}

void TritonJournal::add_earlier(TritonEvalResult& res,
                                const std::vector<TritonDefect>& defects) const {
  std::vector<TritonJobResult> all = earlier_;
  for (TritonJobResult& r : res.results) all.push_back(std::move(r));
  res.results = std::move(all);
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, line] : references_) {
    if (res.references.count(key)) continue;  // this run's (it ran the operator again)
    auto [ref, check] = triton_reference_from_json(line);
    res.references.emplace(key, std::move(ref));
    res.checks.emplace(key, std::move(check));
  }
  for (const TritonJobResult& r : earlier_)
    if (const TritonDefect* d = find_triton_defect(defects, *r.job.op))
      res.defects.emplace(op_key(*r.job.op), *d);
  std::vector<TritonGraded> graded;
  for (const TritonJobResult& r : res.results) graded.push_back(r.graded);
  res.scores = score_triton(graded);
}

void TritonJournal::finish_references(const std::vector<TritonJob>& jobs) {
  std::lock_guard<std::mutex> lock(mu_);
  references_journal_.reset();
  std::string text;
  std::set<std::string> written;  // one line per operator, in the jobs' order
  for (const TritonJob& j : jobs) {
    const std::string key = op_key(*j.op);
    auto it = references_.find(key);
    if (it == references_.end() || !written.insert(key).second) continue;
    text +=
        it->second.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  }
  // Replaced whole (core/atomic_file.h): a reader, a kill or a crash sees the old file or the
  // new one, never half of either.
  write_file_atomically(run_dir_ / "references.jsonl", text);
}

}  // namespace kjudge::triton
