#include "cli/app.h"

#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/yaml_config.h"
#include "core/input_error.h"

namespace kjudge {

int run_cli(int argc, char** argv) {
  CLI::App app{"kjudge: judges GPU kernel code (ComputeEval packs, GPU MODE tasks, Triton)",
               "kjudge"};
  app.set_version_flag("--version", std::string("kjudge ") + KJUDGE_VERSION);
  app.require_subcommand(1);
  app.config_formatter(std::make_shared<YamlConfig>());
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
  add_submit_command(app, rc);
  add_report_command(app, rc);
  add_triton_commands(app, rc);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int r = app.exit(e);
    return r == 0 ? 0 : exit_code::usage;
  } catch (const InputError& e) {
    fmt::print(stderr, "kjudge: error: {}\n", e.what());
    return exit_code::usage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kjudge: error: {}\n", e.what());
    return exit_code::usage;
  }
  return rc;
}

}  // namespace kjudge
