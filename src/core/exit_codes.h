#pragma once
// Exit codes of kjudge, documented in README.md. In core, not cli, because an error thrown by
// any layer carries one (core/error.h) and run_cli returns it.
namespace kjudge::exit_code {

constexpr int ok = 0;
constexpr int findings = 1;     // the run finished and found what the command looks for:
                                // a failing baseline (validate), a bad hash (verify), lines
                                // of the input that could not be read
constexpr int usage = 2;        // bad arguments or unreadable input; nothing was run
constexpr int environment = 3;  // the machine cannot do the job (see `kjudge doctor`)
constexpr int judge_error = 4;  // some solutions could not be judged (faults of the machine)
constexpr int interrupted = 130;

}  // namespace kjudge::exit_code
