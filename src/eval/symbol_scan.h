#pragma once
// Names a solution defines that code of the judge's would call in place of the C library's.
//
// The judge runs code inside the solution's process: the main guard and the CUPTI profiler are
// preloaded into ComputeEval test and benchmark programs, and the task harness is linked into the
// task's program with the submission. Their calls into libc go through the dynamic linker (a
// preloaded library) or the static linker (the harness), and both bind a name to the program's
// own definition first: a test program that defines `getenv` received the guard's channel, one
// that defines `write` rewrote the profiler's record. So a program that defines a name the judge's
// code relies on is refused at build: every name the C runtime libraries export (no honest
// program replaces libc), and every name the judge's libraries and harness objects import.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace kjudge {

// The names the judge's in-process code relies on: every name the C runtime libraries loaded in
// this process export (libc, libm, the dynamic loader; this judge runs on the machine that runs
// the programs), and each name `imports_of` import (the guard and profiler libraries, harness
// objects; files that do not exist are skipped) that a library defines: libstdc++ and libgcc_s
// (as loaded here) or one of `libraries` (cuda_libraries()). A name they import that no library
// defines is one the solution is there to provide (`custom_kernel`), and stays the solution's.
std::set<std::string> judge_relied_names(const std::vector<std::filesystem::path>& imports_of,
                                         const std::vector<std::filesystem::path>& libraries = {});

// The CUDA libraries a program built by `nvcc` links or loads beside the judge's code: the
// runtime, CUPTI and the driver (its stub where the driver itself is absent), those found.
std::vector<std::filesystem::path> cuda_libraries(const std::filesystem::path& nvcc);

// The names a built program defines that are in `relied`, one reason per name (at most a few,
// then a count). `linked_in`: read `file` as an object the judge's code is linked with (every
// global or weak definition, hidden ones included: the static linker binds to those); otherwise
// as a program that preloaded libraries run in (its dynamic symbol table, where the loader looks,
// without the variables it copies from a library). Throws std::runtime_error naming the file
// when it is no ELF64 file.
std::vector<std::string> interposed_names(const std::filesystem::path& file,
                                          const std::set<std::string>& relied, bool linked_in);

}  // namespace kjudge
