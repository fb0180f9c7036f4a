#pragma once
// Each file cmd_*.cpp adds its subcommands to the app. A command's callback stores the process
// exit code in `rc` (see exit_codes.h); errors the user can fix are thrown as InputError.
#include <CLI/CLI.hpp>

namespace kjudge {

void add_problems_commands(CLI::App& app, int& rc);
void add_solutions_commands(CLI::App& app, int& rc);
void add_run_commands(CLI::App& app, int& rc);  // validate, evaluate
void add_doctor_command(CLI::App& app, int& rc);
void add_generate_command(CLI::App& app, int& rc);
void add_task_commands(CLI::App& app, int& rc);  // task run, build, new
void add_task_new_command(CLI::App* task, int& rc);
void add_serve_commands(CLI::App& app, int& rc);  // serve, users
void add_submit_command(CLI::App& app, int& rc);
void add_report_command(CLI::App& app, int& rc);   // report, report --compare
void add_triton_commands(CLI::App& app, int& rc);  // triton list, show
void add_kernelbench_commands(CLI::App& app, int& rc);  // kernelbench list, eval

}  // namespace kjudge
