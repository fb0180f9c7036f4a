#include "gen/generator.h"

#include <chrono>
#include <deque>
#include <mutex>
#include <thread>

#include "gen/answer_parser.h"
#include "gen/feedback.h"
#include "gen/prompt.h"

namespace kjudge {

namespace {

nlohmann::json turns_json(const std::vector<GenTurn>& turns) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : turns) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : t.files) files.push_back({{"path", f.path}, {"content", f.content}});
    out.push_back(
        {{"raw_answer", t.raw_answer},
         {"files", files},
         {"parse_error", t.parse_error},
         {"verdict", t.verdict},
         {"feedback", t.feedback},
         {"usage",
          {{"input_tokens", t.usage.input_tokens}, {"output_tokens", t.usage.output_tokens}}}});
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const GenRecord& r) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : r.files) files.push_back({{"path", f.path}, {"content", f.content}});
  return {
      {"schema_version", 1},
      {"task_id", r.task_id},
      {"sample", r.sample},
      {"model", r.model},
      {"raw_answer", r.raw_answer},
      {"files", files},
      {"warnings", r.warnings},
      {"parse_error", r.parse_error},
      {"finish_reason", r.finish_reason},
      {"usage", {{"input_tokens", r.usage.input_tokens}, {"output_tokens", r.usage.output_tokens}}},
      {"attempts", r.attempts},
      {"seconds", r.seconds},
      {"turns", turns_json(r.turns)}};
}

GenRecord gen_record_from_json(const nlohmann::json& j) {
  GenRecord r;
  r.task_id = j.at("task_id").get<std::string>();
  r.sample = j.at("sample").get<int>();
  r.model = j.value("model", "");
  r.raw_answer = j.value("raw_answer", "");
  for (const auto& f : j.value("files", nlohmann::json::array()))
    r.files.push_back({f.at("path").get<std::string>(), f.at("content").get<std::string>()});
  r.warnings = j.value("warnings", std::vector<std::string>{});
  r.parse_error = j.value("parse_error", "");
  r.finish_reason = j.value("finish_reason", "");
  if (j.contains("usage")) {
    r.usage.input_tokens = j["usage"].value("input_tokens", 0L);
    r.usage.output_tokens = j["usage"].value("output_tokens", 0L);
  }
  r.attempts = j.value("attempts", 0);
  r.seconds = j.value("seconds", 0.0);
  for (const auto& t : j.value("turns", nlohmann::json::array())) {
    GenTurn turn;
    turn.raw_answer = t.value("raw_answer", "");
    for (const auto& f : t.value("files", nlohmann::json::array()))
      turn.files.push_back({f.at("path").get<std::string>(), f.at("content").get<std::string>()});
    turn.parse_error = t.value("parse_error", "");
    turn.verdict = t.value("verdict", "");
    turn.feedback = t.value("feedback", "");
    if (t.contains("usage")) {
      turn.usage.input_tokens = t["usage"].value("input_tokens", 0L);
      turn.usage.output_tokens = t["usage"].value("output_tokens", 0L);
    }
    r.turns.push_back(turn);
  }
  return r;
}

Solution solution_of(const GenRecord& r, const Problem& problem) {
  Solution s;
  s.task_id = r.task_id;
  s.sample = r.sample;
  s.files = r.files;
  if (s.files.empty()) {
    // Not valid C++ on purpose: the build fails and the log says why.
    s.files.push_back(
        {expected_solution_path(problem),
         "#error \"kjudge: the model's answer held no usable code: " + r.parse_error + "\"\n"});
  }
  return s;
}

Generator::Generator(GenOptions options, ChatClient& client)
    : opt_(std::move(options)), client_(client) {
  if (opt_.samples < 1) opt_.samples = 1;
  if (opt_.workers < 1) opt_.workers = 1;
}

void Generator::run(const std::vector<const Problem*>& problems,
                    const std::set<std::pair<std::string, int>>& done,
                    const std::function<void(const GenRecord&)>& on_record,
                    const std::function<void(const GenFailure&)>& on_failure) {
  struct Job {
    const Problem* problem;
    int sample;
    std::vector<ChatMessage> messages;
    std::string expected_path;
  };
  // Every prompt first: a template error stops the run before any request is made.
  std::map<std::string, PromptTemplates> templates;
  std::deque<Job> queue;
  for (const Problem* p : problems) {
    auto it = templates.find(p->type);
    if (it == templates.end())
      it = templates
               .emplace(p->type,
                        load_templates(p->type, opt_.system_prompt_file, opt_.user_prompt_template))
               .first;
    std::vector<ChatMessage> messages;
    for (const auto& m : build_prompt(*p, it->second)) messages.push_back({m.role, m.content});
    const std::string expected = expected_solution_path(*p);
    for (int s = 0; s < opt_.samples; ++s)
      if (!done.count({p->task_id, s})) queue.push_back({p, s, messages, expected});
  }

  std::mutex mu, out_mu;
  auto worker = [&] {
    for (;;) {
      Job job;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (queue.empty() || stop_) return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      ChatRequest req = opt_.request;
      req.messages = job.messages;
      auto t0 = std::chrono::steady_clock::now();
      try {
        GenRecord r;
        r.task_id = job.problem->task_id;
        r.sample = job.sample;
        const int turns = opt_.judge ? std::max(1, opt_.turns) : 1;
        for (int turn = 1; turn <= turns; ++turn) {
          ChatResponse resp = client_.complete(req);
          r.model = resp.model.empty() ? req.model : resp.model;
          r.raw_answer = resp.text;
          r.finish_reason = resp.finish_reason;
          r.usage.input_tokens += resp.usage.input_tokens;
          r.usage.output_tokens += resp.usage.output_tokens;
          r.attempts += resp.attempts;
          ParsedAnswer parsed = parse_answer(resp.text, job.expected_path);
          r.files = parsed.files;
          r.warnings = parsed.warnings;
          r.parse_error = parsed.error;
          if (resp.finish_reason == "length")
            r.warnings.push_back("the answer was cut at max_tokens (finish_reason length)");
          if (turns == 1) break;
          GenTurn t{resp.text, parsed.files, parsed.error, "", "", resp.usage};
          GradedSolution g = opt_.judge(*job.problem, solution_of(r, *job.problem));
          t.verdict = std::string(to_string(g.verdict));
          if (g.verdict != Verdict::pass && turn < turns) {
            t.feedback = judge_feedback(g, *job.problem);
            req.messages.push_back({"assistant", resp.text});
            req.messages.push_back({"user", t.feedback});
          }
          r.turns.push_back(t);
          if (g.verdict == Verdict::pass || stop_) break;
        }
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::lock_guard<std::mutex> lock(out_mu);
        on_record(r);
      } catch (const ChatError& e) {
        std::lock_guard<std::mutex> lock(out_mu);
        on_failure({job.problem->task_id, job.sample, e.kind(), e.what()});
        // A key the API refuses fails every request the same way: stop asking.
        if (e.kind() == "auth") stop_ = true;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < opt_.workers; ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
}

}  // namespace kjudge
