// The model and API options (cli/generation_session.h).
#include "cli/generation_session.h"

namespace kjudge {

void add_model_options(CLI::App* g, GenArgs& a, bool standalone) {
  // In `kjudge run` the judge's own --workers, --retries and --timeout-like options exist too.
  const std::string requests_flags = standalone ? "--requests,--workers" : "--requests";
  const std::string retries_flags = standalone ? "--retries,--api-retries" : "--api-retries";
  const std::string timeout_flags = standalone ? "--timeout,--api-timeout" : "--api-timeout";
  g->add_option("--provider", a.provider,
                "openai (Chat Completions, any compatible server) or anthropic (Messages API)")
      ->check(CLI::IsMember({"openai", "anthropic"}));
  g->add_option("--base-url,--base_url", a.base_url,
                "API base URL (default https://api.openai.com/v1 or https://api.anthropic.com/v1)");
  g->add_option("--model", a.model, "Model name")->required();
  g->add_option("--temperature", a.temperature, "Sampling temperature");
  g->add_option("--top-p", a.top_p, "Nucleus sampling");
  g->add_option("--max-tokens", a.max_tokens, "Most tokens per answer");
  g->add_option("--reasoning-effort", a.reasoning_effort, "Reasoning effort (low|medium|high)");
  g->add_option("--seed", a.seed, "Sampling seed, where the API supports one");
  g->add_option("-n,--samples", a.samples, "Answers per problem (default 1)")
      ->check(CLI::Range(1, 1000));
  g->add_option("--turns", a.turns,
                "Answers per sample: after a failing one, the build errors or test output "
                "(never the hidden test source) go back to the model (default 1)")
      ->check(CLI::Range(1, 20));
  g->add_option(requests_flags, a.workers, "Requests in flight at once (default 8)")
      ->check(CLI::Range(1, 256));
  g->add_option("--system-prompt-file", a.system_prompt_file, "Use this system prompt");
  g->add_option("--user-prompt-template", a.user_prompt_template,
                "Use this user prompt template ({{prompt}}, {{build_command}}, "
                "{{context_files}}, {{task_id}}, {{group}}, {{solution_path}})");
  g->add_option("--env-file", a.env_file,
                "Where to look for API keys besides the environment (default .env)");
  g->add_option(timeout_flags, a.timeout, "Seconds per request (default 600)");
  g->add_option(retries_flags, a.retries, "Retries on 429, 5xx, timeouts (default 6)");
  g->add_option("--price-in", a.price_in, "USD per million input tokens, for the cost estimate");
  g->add_option("--price-out", a.price_out, "USD per million output tokens");
}

}  // namespace kjudge
