// The generation session (plan/generation_session.h).
#include "plan/generation_session.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "core/atomic_file.h"
#include "core/datapack.h"
#include "core/error.h"
#include "core/input_error.h"
#include "core/run_identity.h"
#include "core/sha256.h"
#include "eval/evaluator.h"
#include "eval/pass_at_k.h"
#include "run/cloexec_file.h"

namespace kjudge::plan {

namespace fs = std::filesystem;

namespace {

void append_line(const fs::path& path, const nlohmann::json& j) {
  append_line_cloexec(path,
                      j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

std::vector<GenRecord> read_journal(const fs::path& path) {
  std::vector<GenRecord> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    try {
      out.push_back(gen_record_from_json(j));
    } catch (const std::exception&) {
    }
  }
  return out;
}

std::string file_text(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What must not change between a run and its --resume: the model, the endpoint, the prompts.
// The hash keeps the value earlier versions recorded; the named fields beside it say which.
std::string settings_fingerprint(const GenArgs& a) {
  Sha256 h;
  h.update(a.provider).update("\n").update(a.base_url).update("\n").update(a.model).update("\n");
  h.update(file_text(a.system_prompt_file)).update("\n").update(file_text(a.user_prompt_template));
  return h.hex();
}

constexpr IdentityField kGenerationIdentity[] = {
    {"provider", "--provider"},
    {"base_url", "--base-url"},
    {"model", "--model"},
    {"settings_fingerprint",
     "the model, endpoint or prompts (--system-prompt-file, --user-prompt-template or the files "
     "they name)",
     true}};

}  // namespace

std::string model_pack_name(const std::string& model) {
  std::string s;
  for (char c : model) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '.') ? c : '-';
  return s.empty() ? "model" : s;
}

GenerationSession::GenerationSession(const GenArgs& args, fs::path dir)
    : a_(args), dir_(std::move(dir)) {}

GenerationSession::~GenerationSession() = default;

void GenerationSession::open() {
  if (a_.model.empty()) throw InputError("--model", 0, "", "name the model to ask");
  ClientOptions co;
  co.provider = a_.provider;
  co.base_url = a_.base_url;
  co.timeout_s = a_.timeout;
  // Answers are not streamed, so no byte arrives while the model thinks: a shorter stall limit
  // would cut long reasoning off. Only a connection silent for the whole timeout is a stall.
  co.stall_s = a_.timeout;
  co.max_retries = a_.retries;
  std::optional<std::string> key = find_api_key(a_.provider, a_.env_file);
  if (!key) {
    throw Error(exit_code::environment,
                fmt::format("no API key for {}: set {} (or put it in {})", a_.provider,
                            a_.provider == "anthropic" ? "ANTHROPIC_API_KEY"
                                                       : "OPENAI_API_KEY or NEMO_API_KEY",
                            a_.env_file));
  }
  co.api_key = *key;
  if (!a_.quiet)
    co.on_retry = [](int attempt, const std::string& why, double delay) {
      fmt::print(stderr, "kjudge: retry {} in {:.1f} s: {}\n", attempt, delay, why);
    };
  client_ = make_chat_client(co);

  const fs::path journal = dir_ / "generation.jsonl";
  const std::string fingerprint = settings_fingerprint(a_);
  if (fs::exists(journal) && !a_.resume)
    throw InputError(dir_.string(), 0, "",
                     "holds an earlier generation run; pass --resume to finish it, or choose "
                     "another --out");
  if (a_.resume && fs::exists(dir_ / "generation-run.json")) {
    std::ifstream in(dir_ / "generation-run.json");
    const auto prev = nlohmann::ordered_json::parse(in, nullptr, false);
    const nlohmann::ordered_json now = {{"provider", a_.provider},
                                        {"base_url", a_.base_url},
                                        {"model", a_.model},
                                        {"settings_fingerprint", fingerprint}};
    if (!prev.is_discarded())
      check_run_identity(dir_ / "generation-run.json", dir_, identity_part(prev, now), now,
                         kGenerationIdentity, "settings_fingerprint");
  }
  fs::create_directories(dir_ / "answers");
  // No key here: the file says which endpoint, not with what credentials.
  nlohmann::json run = {{"schema_version", 1},
                        {"kind", "kjudge-generation"},
                        {"problems", a_.problems},
                        {"provider", a_.provider},
                        {"base_url", a_.base_url},
                        {"model", a_.model},
                        {"samples", a_.samples},
                        {"temperature", a_.temperature ? nlohmann::json(*a_.temperature) : nullptr},
                        {"top_p", a_.top_p ? nlohmann::json(*a_.top_p) : nullptr},
                        {"max_tokens", a_.max_tokens ? nlohmann::json(*a_.max_tokens) : nullptr},
                        {"reasoning_effort", a_.reasoning_effort},
                        {"seed", a_.seed ? nlohmann::json(*a_.seed) : nullptr},
                        {"system_prompt_file", a_.system_prompt_file},
                        {"user_prompt_template", a_.user_prompt_template},
                        {"settings_fingerprint", fingerprint}};
  write_json_atomically(dir_ / "generation-run.json", run);
  records_ = read_journal(journal);
  if (a_.resume && !records_.empty() && !a_.quiet)
    fmt::print(stderr, "kjudge: resuming {}: {} answers already there\n", dir_.string(),
               records_.size());
}

void GenerationSession::run(const std::vector<Problem>& problems,
                            const std::function<void(const GenRecord&)>& also) {
  std::set<std::pair<std::string, int>> done;
  for (const auto& r : records_) done.insert({r.task_id, r.sample});
  std::vector<const Problem*> ps;
  for (const auto& p : problems) ps.push_back(&p);
  const std::size_t total = problems.size() * static_cast<std::size_t>(a_.samples);

  GenOptions go;
  go.request.model = a_.model;
  go.request.temperature = a_.temperature;
  go.request.top_p = a_.top_p;
  go.request.max_tokens = a_.max_tokens;
  if (!a_.reasoning_effort.empty()) go.request.reasoning_effort = a_.reasoning_effort;
  go.request.seed = a_.seed;
  go.samples = a_.samples;
  go.turns = a_.turns;
  go.judge = judge_;
  go.workers = a_.workers;
  if (!a_.system_prompt_file.empty()) go.system_prompt_file = a_.system_prompt_file;
  if (!a_.user_prompt_template.empty()) go.user_prompt_template = a_.user_prompt_template;
  generator_ = std::make_unique<Generator>(go, *client_);
  const fs::path journal = dir_ / "generation.jsonl";
  std::size_t seen = done.size();
  generator_->run(
      ps, done,
      [&](const GenRecord& r) {
        append_line(journal, to_json(r));
        write_file_atomically(
            dir_ / "answers" /
                (sanitize_task_id(r.task_id) + "-s" + std::to_string(r.sample) + ".md"),
            r.raw_answer);
        records_.push_back(r);
        ++seen;
        if (!a_.quiet)
          fmt::print(stderr, "[{}/{}] {} #{}: {}\n", seen, total, r.task_id, r.sample,
                     r.parse_error.empty() ? fmt::format("{} file(s)", r.files.size())
                                           : "no usable code: " + r.parse_error);
        if (also) also(r);
      },
      [&](const GenFailure& f) {
        failures_.push_back(f);
        fmt::print(stderr, "kjudge: {} #{}: request failed ({}): {}\n", f.task_id, f.sample, f.kind,
                   f.message);
      });
}

void GenerationSession::request_stop() {
  if (generator_) generator_->request_stop();
}

nlohmann::json GenerationSession::finish(const std::vector<Problem>& problems,
                                         const std::string& summary_name, double wall_s) {
  std::map<std::string, const Problem*> by_id;
  for (const auto& p : problems) by_id[p.task_id] = &p;
  std::vector<Solution> solutions;
  long in_tokens = 0, out_tokens = 0;
  int unusable = 0, truncated = 0;
  for (const auto& r : records_) {
    in_tokens += r.usage.input_tokens;
    out_tokens += r.usage.output_tokens;
    unusable += !r.parse_error.empty();
    truncated += r.finish_reason == "length";
    if (by_id.count(r.task_id)) solutions.push_back(solution_of(r, *by_id[r.task_id]));
  }
  std::sort(solutions.begin(), solutions.end(), [](const Solution& x, const Solution& y) {
    return std::tie(x.task_id, x.sample) < std::tie(y.task_id, y.sample);
  });
  const fs::path pack = dir_ / (model_pack_name(a_.model) + "-solutions.tar.gz");
  write_solution_pack(pack, model_pack_name(a_.model), "generated by kjudge from " + a_.model,
                      std::nullopt, solutions);
  const std::size_t total = problems.size() * static_cast<std::size_t>(a_.samples);
  nlohmann::json summary = {{"schema_version", 1},
                            {"kind", "kjudge-generation-summary"},
                            {"model", a_.model},
                            {"provider", a_.provider},
                            {"problems", problems.size()},
                            {"samples_per_problem", a_.samples},
                            {"answers", records_.size()},
                            {"missing", total > records_.size() ? total - records_.size() : 0},
                            {"unusable_answers", unusable},
                            {"truncated_answers", truncated},
                            {"failed_requests", failures_.size()},
                            {"usage", {{"input_tokens", in_tokens}, {"output_tokens", out_tokens}}},
                            {"solutions_pack", pack.string()},
                            {"journal", (dir_ / "generation.jsonl").string()},
                            {"wall_s", wall_s}};
  if (a_.turns > 1) {
    // pass@k after each turn (k = 1 and k = samples): a sample counts as passed at turn t when
    // one of its first t answers passed; the unbiased estimator, averaged over problems.
    std::vector<int> ks = {1};
    if (a_.samples > 1) ks.push_back(a_.samples);
    nlohmann::json by_turn = nlohmann::json::object();
    for (int k : ks) {
      nlohmann::json series = nlohmann::json::array();
      for (int t = 1; t <= a_.turns; ++t) {
        std::map<std::string, std::pair<int, int>> per_problem;  // samples, passed
        for (const auto& r : records_) {
          bool passed = false;
          for (std::size_t i = 0; i < r.turns.size() && static_cast<int>(i) < t; ++i)
            passed = passed || r.turns[i].verdict == "pass";
          auto& [n, c] = per_problem[r.task_id];
          ++n;
          c += passed;
        }
        std::vector<std::pair<int, int>> counts;
        for (const auto& [task, nc] : per_problem) counts.push_back(nc);
        std::optional<double> v = mean_pass_at_k(counts, k);
        series.push_back(v ? nlohmann::json(*v) : nlohmann::json());
      }
      by_turn[std::to_string(k)] = series;
    }
    summary["turns"] = a_.turns;
    summary["pass_at_k_by_turn"] = by_turn;
  }
  if (a_.price_in && a_.price_out)
    summary["estimated_cost_usd"] = (in_tokens * *a_.price_in + out_tokens * *a_.price_out) / 1e6;
  else
    summary["estimated_cost_usd"] = nullptr;  // no price given: no made-up figure
  write_json_atomically(dir_ / summary_name, summary);
  return summary;
}

}  // namespace kjudge::plan
