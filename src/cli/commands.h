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
void add_serve_commands(CLI::App& app, int& rc);  // serve
void add_users_commands(CLI::App& app, int& rc);  // users add, token, list, revoke
void add_submit_command(CLI::App& app, int& rc);
void add_leaderboards_commands(CLI::App& app, int& rc);  // leaderboards list, show, create, delete
void add_report_command(CLI::App& app, int& rc);         // report, report --compare
void add_export_command(CLI::App& app, int& rc);         // export --csv, --inspect
void add_triton_commands(CLI::App& app, int& rc);        // triton list, show
void add_completion_command(CLI::App& app, int& rc);     // completion bash|zsh
void add_manpage_command(CLI::App& app, int& rc);        // man (kjudge(1) in roff)
void add_kernelbench_commands(CLI::App& app, int& rc);   // kernelbench list, eval

}  // namespace kjudge
