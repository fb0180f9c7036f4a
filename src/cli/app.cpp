#include "cli/app.h"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/command_words.h"
#include "cli/commands.h"
#include "cli/yaml_config.h"
#include "core/error.h"
#include "core/exit_codes.h"
#include "core/read_file.h"
#include "core/yaml_load.h"

// The commit of this build (cmake/git_commit.cmake writes it into build/generated/).
const char* kjudge_git_commit();

namespace kjudge {

int run_cli(int argc, char** argv) {
  CLI::App app{"kjudge: judges GPU kernel code (ComputeEval packs, GPU MODE tasks, Triton)",
               "kjudge"};
  app.set_version_flag("--version", std::string("kjudge ") + KJUDGE_VERSION + " (commit " +
                                        kjudge_git_commit() + ")");
  app.require_subcommand(1);
  const std::string config_file = config_file_in(argc, argv);
  app.config_formatter(std::make_shared<YamlConfig>(config_file));
  // A key no option has is a typo that would silently drop a setting. Subcommands copy this
  // mode when they are created, so it is set before any is added.
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.set_config("--config", "",
                 "YAML file with options; nested maps name the subcommand "
                 "(evaluate: {workers: 8}); the command line wins");
  int rc = exit_code::ok;
  add_problems_commands(app, rc);
  add_solutions_commands(app, rc);
  add_run_commands(app, rc);
  add_doctor_command(app, rc);
  add_generate_command(app, rc);
  add_task_commands(app, rc);
  add_serve_commands(app, rc);
  add_users_commands(app, rc);
  add_submit_command(app, rc);
  add_leaderboards_commands(app, rc);
  add_report_command(app, rc);
  add_export_command(app, rc);
  add_triton_commands(app, rc);
  add_kernelbench_commands(app, rc);
  add_completion_command(app, rc);
  add_manpage_command(app, rc);
  // `--config` is the root's option but may come after the subcommand; an unknown command word
  // is named with the nearest commands rather than CLI11's "A subcommand is required".
  std::vector<std::string> args = hoist_config(argc, argv);
  if (auto unknown = unknown_command(app, args)) {
    fmt::print(stderr, "kjudge: error: {}\n", *unknown);
    return exit_code::usage;
  }
  std::vector<char*> hoisted;
  for (std::string& a : args) hoisted.push_back(a.data());
  try {
    // CLI11 opens the file with an ifstream, which blocks on a FIFO: it is checked first.
    if (!config_file.empty()) read_input_file(config_file, YamlBounds{}.max_bytes);
    app.parse(static_cast<int>(hoisted.size()), hoisted.data());
  } catch (const CLI::ConfigError& e) {
    // CLI11 words an unknown key for INI files ("INI was not able to parse evaluate.x").
    std::string what = e.what();
    const std::string extras = "INI was not able to parse ";
    if (what.starts_with(extras))
      what = "unknown key '" + what.substr(extras.size()) +
             "' (no such option for that command; nested maps name subcommands)";
    fmt::print(stderr, "kjudge: error: {}: {}\n", config_file, what);
    return exit_code::usage;
  } catch (const CLI::ParseError& e) {
    int r = app.exit(e);
    return r == 0 ? 0 : exit_code::usage;
  } catch (const std::exception& e) {
    // The one place errors end up (core/error.h): an Error carries its exit code, an InputError
    // is usage, and so is any other exception (an unreadable file, a malformed document).
    fmt::print(stderr, "kjudge: error: {}\n", e.what());
    return exit_code_of(e);
  }
  return rc;
}

}  // namespace kjudge
