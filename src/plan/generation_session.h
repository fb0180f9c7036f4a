#pragma once
// One generation run directory (docs/formats.md): the API client, the journal of answers, the
// raw answers, and at the end the solutions pack and summary. Shared by `kjudge generate` and
// `kjudge run`, which also grades the answers as they arrive. The engine's: the command-line
// options that fill GenArgs are cli/generation_session.h's add_model_options.
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.h"
#include "gen/chat.h"
#include "gen/generator.h"
#include "plan/load.h"

namespace kjudge::plan {

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
  int turns = 1;
  std::string cache_dir;  // --turns: the build cache of the judge (default: the usual one)
  int workers = 8;
  std::string system_prompt_file, user_prompt_template;
  std::string env_file = ".env";
  double timeout = 600;
  int retries = 6;
  std::optional<double> price_in, price_out;  // USD per million tokens
  bool quiet = false;
  bool json = false;
};

class GenerationSession {
 public:
  GenerationSession(const GenArgs& args, std::filesystem::path dir);
  ~GenerationSession();

  // Finds the key, checks --resume against run.json, writes run.json and reads the journal.
  // Throws Error (core/error.h) when the run cannot start (no API key: exit code environment)
  // and InputError for bad input.
  void open();

  const std::vector<GenRecord>& records() const { return records_; }
  std::size_t failed_requests() const { return failures_.size(); }

  // Asks for every missing answer; each is journaled, then handed to `also` (may be empty).
  void run(const std::vector<Problem>& problems, const std::function<void(const GenRecord&)>& also);
  void request_stop();
  // --turns: how each turn's answer is judged (without one, a single turn is asked for).
  void set_judge(std::function<GradedSolution(const Problem&, const Solution&)> judge) {
    judge_ = std::move(judge);
  }

  // Writes the solutions pack and `summary_name` (in the run directory); returns the summary.
  nlohmann::json finish(const std::vector<Problem>& problems, const std::string& summary_name,
                        double wall_s);

 private:
  GenArgs a_;
  std::filesystem::path dir_;
  std::unique_ptr<ChatClient> client_;
  std::unique_ptr<Generator> generator_;
  std::vector<GenRecord> records_;
  std::vector<GenFailure> failures_;
  std::function<GradedSolution(const Problem&, const Solution&)> judge_;
};

// The name of a model's solutions pack (MODEL-solutions.tar.gz): the model with every character
// other than letters, digits and dots made a dash.
std::string model_pack_name(const std::string& model);

}  // namespace kjudge::plan
