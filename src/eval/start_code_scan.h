#pragma once
// What a built program makes the loader run before kjudge's own code in it takes its result
// channel: the task harness's .preinit_array entry in a task program (kjudge_task), the
// preloaded main guard's and profiler's constructors in a ComputeEval test program. The harness
// takes it from the one .preinit_array entry it brings (harness/kjudge/channel.h); the loader runs
// those before every constructor. Only two things of the program itself run earlier or alongside:
// other .preinit_array entries (in link order, and the submission's object can come first) and
// IFUNC resolvers, which the loader calls while it relocates the program. A program with either is
// refused: no honest kernel needs them, and with them a submission could read the channel and forge
// the judge's report.
#include <filesystem>
#include <string>
#include <vector>

namespace kjudge {

// Reasons to refuse `program` (an ELF64 executable), one per finding; empty when it runs nothing
// before the harness's entry. `harness_entries`: the .preinit_array entries the harness brings
// (0 for a ComputeEval program: the guard is a preloaded library, whose constructor the loader
// runs after every .preinit_array entry of the program). `taker` names the code whose channel is
// at stake, as the reasons say it. Throws std::runtime_error naming the file when it cannot be
// read as ELF64.
std::vector<std::string> code_before_harness(
    const std::filesystem::path& program, std::size_t harness_entries = 1,
    const std::string& taker = "the harness takes its result channel");

}  // namespace kjudge
