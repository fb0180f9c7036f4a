// kjudge generate: solutions from a language model, as a ComputeEval solutions pack.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/load.h"
#include "core/datapack.h"
#include "core/input_error.h"
#include "core/sha256.h"
#include "eval/evaluator.h"
#include "gen/chat.h"
#include "gen/generator.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

struct GenArgs {
  std::string problems;
  std::string out;
  bool resume = false;
  ProblemFilter filter;
  std::string provider = "openai";
  std::string base_url;
  std::string model;
  std::optional<double> temperature, top_p;
  std::optional<int> max_tokens;
  std::string reasoning_effort;
  std::optional<long> seed;
  int samples = 1;
  int workers = 8;
  std::string system_prompt_file, user_prompt_template;
  std::string env_file = ".env";
  double timeout = 600;
  int retries = 6;
  std::optional<double> price_in, price_out;  // USD per million tokens
  bool quiet = false;
  bool json = false;
};

std::atomic<Generator*> g_generator{nullptr};

extern "C" void on_generate_interrupt(int) {
  if (Generator* g = g_generator.load()) g->request_stop();
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

void append_line(const fs::path& path, const nlohmann::json& j) {
  // One write(2) of a whole line with O_APPEND: a kill leaves at most a torn last line, which
  // the reader skips (and --resume asks for again).
  const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot append to " + path.string());
  std::size_t done = 0;
  while (done < line.size()) {
    ssize_t n = write(fd, line.data() + done, line.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  close(fd);
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
std::string settings_fingerprint(const GenArgs& a) {
  Sha256 h;
  h.update(a.provider).update("\n").update(a.base_url).update("\n").update(a.model).update("\n");
  h.update(file_text(a.system_prompt_file)).update("\n").update(file_text(a.user_prompt_template));
  return h.hex();
}

std::string pack_name(const std::string& model) {
  std::string s;
  for (char c : model) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '.') ? c : '-';
  return s.empty() ? "model" : s;
}

int run_generate(const GenArgs& a) {
  auto t0 = std::chrono::steady_clock::now();
  LoadReport report;
  std::vector<Problem> problems = filter_problems(read_problems_any(a.problems, &report), a.filter);
  int load_errors = print_load_errors(report);
  if (problems.empty())
    throw InputError(a.problems, 0, "", "no problems to ask for (after filters)");
  if (a.model.empty()) throw InputError("--model", 0, "", "name the model to ask");

  ClientOptions co;
  co.provider = a.provider;
  co.base_url = a.base_url;
  co.timeout_s = a.timeout;
  // Answers are not streamed, so no byte arrives while the model thinks: a shorter stall limit
  // would cut long reasoning off. Only a connection silent for the whole timeout is a stall.
  co.stall_s = a.timeout;
  co.max_retries = a.retries;
  std::optional<std::string> key = find_api_key(a.provider, a.env_file);
  if (!key) {
    fmt::print(stderr, "kjudge: no API key for {}: set {} (or put it in {})\n", a.provider,
               a.provider == "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY or NEMO_API_KEY",
               a.env_file);
    return exit_code::environment;
  }
  co.api_key = *key;
  if (!a.quiet)
    co.on_retry = [](int attempt, const std::string& why, double delay) {
      fmt::print(stderr, "kjudge: retry {} in {:.1f} s: {}\n", attempt, delay, why);
    };
  std::unique_ptr<ChatClient> client = make_chat_client(co);

  fs::path out = a.out.empty() ? fs::path("kjudge-gen") / pack_name(a.model) : fs::path(a.out);
  const fs::path journal = out / "generation.jsonl";
  const std::string fingerprint = settings_fingerprint(a);
  if (fs::exists(journal) && !a.resume)
    throw InputError(out.string(), 0, "",
                     "holds an earlier generation run; pass --resume to finish it, or choose "
                     "another --out");
  if (a.resume && fs::exists(out / "run.json")) {
    std::ifstream in(out / "run.json");
    auto prev = nlohmann::json::parse(in, nullptr, false);
    if (!prev.is_discarded() && prev.value("settings_fingerprint", "") != fingerprint)
      throw InputError((out / "run.json").string(), 0, "settings_fingerprint",
                       "the model, endpoint or prompts differ from the run being resumed");
  }
  fs::create_directories(out / "answers");
  // No key here: run.json says which endpoint, not with what credentials.
  nlohmann::json run = {{"schema_version", 1},
                        {"kind", "kjudge-generation"},
                        {"problems", a.problems},
                        {"provider", a.provider},
                        {"base_url", a.base_url},
                        {"model", a.model},
                        {"samples", a.samples},
                        {"temperature", a.temperature ? nlohmann::json(*a.temperature) : nullptr},
                        {"top_p", a.top_p ? nlohmann::json(*a.top_p) : nullptr},
                        {"max_tokens", a.max_tokens ? nlohmann::json(*a.max_tokens) : nullptr},
                        {"reasoning_effort", a.reasoning_effort},
                        {"seed", a.seed ? nlohmann::json(*a.seed) : nullptr},
                        {"system_prompt_file", a.system_prompt_file},
                        {"user_prompt_template", a.user_prompt_template},
                        {"settings_fingerprint", fingerprint}};
  std::ofstream(out / "run.json") << run.dump(2) << "\n";

  std::vector<GenRecord> records = read_journal(journal);
  std::set<std::pair<std::string, int>> done;
  for (const auto& r : records) done.insert({r.task_id, r.sample});
  std::vector<const Problem*> ps;
  for (const auto& p : problems) ps.push_back(&p);
  const std::size_t total = problems.size() * static_cast<std::size_t>(a.samples);
  if (a.resume && !done.empty() && !a.quiet)
    fmt::print(stderr, "kjudge: resuming {}: {} answers already there\n", out.string(),
               done.size());

  GenOptions go;
  go.request.model = a.model;
  go.request.temperature = a.temperature;
  go.request.top_p = a.top_p;
  go.request.max_tokens = a.max_tokens;
  if (!a.reasoning_effort.empty()) go.request.reasoning_effort = a.reasoning_effort;
  go.request.seed = a.seed;
  go.samples = a.samples;
  go.workers = a.workers;
  if (!a.system_prompt_file.empty()) go.system_prompt_file = a.system_prompt_file;
  if (!a.user_prompt_template.empty()) go.user_prompt_template = a.user_prompt_template;

  std::vector<GenFailure> failures;
  Generator gen(go, *client);
  g_generator.store(&gen);
  signal(SIGINT, on_generate_interrupt);
  signal(SIGTERM, on_generate_interrupt);
  std::size_t seen = done.size();
  gen.run(
      ps, done,
      [&](const GenRecord& r) {
        append_line(journal, to_json(r));
        std::ofstream(out / "answers" /
                      (sanitize_task_id(r.task_id) + "-s" + std::to_string(r.sample) + ".md"))
            << r.raw_answer;
        records.push_back(r);
        ++seen;
        if (!a.quiet)
          fmt::print(stderr, "[{}/{}] {} #{}: {}\n", seen, total, r.task_id, r.sample,
                     r.parse_error.empty() ? fmt::format("{} file(s)", r.files.size())
                                           : "no usable code: " + r.parse_error);
      },
      [&](const GenFailure& f) {
        failures.push_back(f);
        fmt::print(stderr, "kjudge: {} #{}: request failed ({}): {}\n", f.task_id, f.sample, f.kind,
                   f.message);
      });
  g_generator.store(nullptr);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);

  // The solutions pack: every answer so far, in problem order.
  std::map<std::string, const Problem*> by_id;
  for (const auto& p : problems) by_id[p.task_id] = &p;
  std::vector<Solution> solutions;
  long in_tokens = 0, out_tokens = 0;
  int unusable = 0, truncated = 0;
  for (const auto& r : records) {
    in_tokens += r.usage.input_tokens;
    out_tokens += r.usage.output_tokens;
    unusable += !r.parse_error.empty();
    truncated += r.finish_reason == "length";
    if (by_id.count(r.task_id)) solutions.push_back(solution_of(r, *by_id[r.task_id]));
  }
  std::sort(solutions.begin(), solutions.end(), [](const Solution& x, const Solution& y) {
    return std::tie(x.task_id, x.sample) < std::tie(y.task_id, y.sample);
  });
  const fs::path pack = out / (pack_name(a.model) + "-solutions.tar.gz");
  write_solution_pack(pack, pack_name(a.model), "generated by kjudge from " + a.model, std::nullopt,
                      solutions);

  nlohmann::json summary = {
      {"schema_version", 1},
      {"kind", "kjudge-generation-summary"},
      {"model", a.model},
      {"provider", a.provider},
      {"problems", problems.size()},
      {"samples_per_problem", a.samples},
      {"answers", records.size()},
      {"missing", total > records.size() ? total - records.size() : 0},
      {"unusable_answers", unusable},
      {"truncated_answers", truncated},
      {"failed_requests", failures.size()},
      {"usage", {{"input_tokens", in_tokens}, {"output_tokens", out_tokens}}},
      {"solutions_pack", pack.string()},
      {"journal", journal.string()},
      {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
  if (a.price_in && a.price_out)
    summary["estimated_cost_usd"] = (in_tokens * *a.price_in + out_tokens * *a.price_out) / 1e6;
  else
    summary["estimated_cost_usd"] = nullptr;  // no price given: no made-up figure
  std::ofstream(out / "summary.json") << summary.dump(2) << "\n";
  if (a.json) fmt::print("{}\n", summary.dump(2));
  if (!a.quiet) {
    fmt::print(
        stderr,
        "generated {} of {} answers ({} without usable code, {} truncated); tokens in "
        "{} out {}{}\nsolutions: {}\n",
        records.size(), total, unusable, truncated, in_tokens, out_tokens,
        summary["estimated_cost_usd"].is_null()
            ? std::string()
            : fmt::format("; estimated cost ${:.4f}", summary["estimated_cost_usd"].get<double>()),
        pack.string());
  }
  if (records.size() < total) {
    fmt::print(stderr,
               "kjudge: {} answers missing; finish with: kjudge generate ... --out {} --resume\n",
               total - records.size(), out.string());
    return failures.empty() ? exit_code::interrupted : exit_code::judge_error;
  }
  return load_errors ? exit_code::findings : exit_code::ok;
}

}  // namespace

void add_generate_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<GenArgs>();
  auto* g = app.add_subcommand("generate",
                               "Ask a language model for solutions; writes a ComputeEval "
                               "solutions pack (OpenAI-compatible or Anthropic API)");
  g->add_option("--problems", a->problems, "Problems pack, problems.jsonl or problem directories")
      ->required();
  g->add_option("--out", a->out,
                "Run directory: generation.jsonl, answers/, <model>-solutions.tar.gz, "
                "summary.json (default kjudge-gen/<model>)");
  g->add_flag("--resume", a->resume, "Finish the run in --out: ask only for missing answers");
  add_filter_options(g, a->filter);
  g->add_option("--provider", a->provider,
                "openai (Chat Completions, any compatible server) or "
                "anthropic (Messages API)")
      ->check(CLI::IsMember({"openai", "anthropic"}));
  g->add_option("--base-url,--base_url", a->base_url,
                "API base URL (default https://api.openai.com/v1 or https://api.anthropic.com/v1)");
  g->add_option("--model", a->model, "Model name")->required();
  g->add_option("--temperature", a->temperature, "Sampling temperature");
  g->add_option("--top-p", a->top_p, "Nucleus sampling");
  g->add_option("--max-tokens", a->max_tokens, "Most tokens per answer");
  g->add_option("--reasoning-effort", a->reasoning_effort, "Reasoning effort (low|medium|high)");
  g->add_option("--seed", a->seed, "Sampling seed, where the API supports one");
  g->add_option("--samples", a->samples, "Answers per problem (default 1)")
      ->check(CLI::Range(1, 1000));
  g->add_option("--workers", a->workers, "Requests in flight at once (default 8)")
      ->check(CLI::Range(1, 256));
  g->add_option("--system-prompt-file", a->system_prompt_file, "Use this system prompt");
  g->add_option("--user-prompt-template", a->user_prompt_template,
                "Use this user prompt template ({{prompt}}, {{build_command}}, "
                "{{context_files}}, {{task_id}}, {{group}}, {{solution_path}})");
  g->add_option("--env-file", a->env_file,
                "Where to look for API keys besides the environment "
                "(default .env)");
  g->add_option("--timeout", a->timeout, "Seconds per request (default 600)");
  g->add_option("--retries", a->retries, "Retries on 429, 5xx, timeouts (default 6)");
  g->add_option("--price-in", a->price_in, "USD per million input tokens, for the cost estimate");
  g->add_option("--price-out", a->price_out, "USD per million output tokens");
  g->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  g->add_flag("--json", a->json, "Print the summary JSON on stdout");
  g->callback([a, &rc] { rc = run_generate(*a); });
}

}  // namespace kjudge
