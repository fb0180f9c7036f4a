#pragma once
// A tiny CUDA program that proves a GPU still works: it launches a kernel, copies the result
// back and checks it. The judge runs it on a GPU after a test that may have left the GPU in a
// bad state (a kernel that never ended, a sticky error, a crash mid-launch) before the GPU's
// slots take new work.
#include <filesystem>
#include <string>

namespace kjudge {

// The probe's source; it exits 0 only when the GPU computed the right answer.
const std::string& gpu_probe_source();

// Compiles the probe with `nvcc` into `dir` (reused when already there); returns the
// executable's path, or an empty path with `error` set.
std::filesystem::path build_gpu_probe(const std::filesystem::path& nvcc,
                                      const std::filesystem::path& dir, std::string* error);

// Copies the built probe into `dir` as `gpu-probe`, executable, so a sandboxed probe sees only
// its own folder. Opened O_CLOEXEC: a child forked meanwhile would otherwise keep the copy busy
// (ETXTBSY) when it runs. Throws when it cannot.
void place_gpu_probe(const std::filesystem::path& exe, const std::filesystem::path& dir);

// Whether a test's outcome calls for a probe of its GPU before reuse.
bool gpu_may_be_unwell(bool timed_out, int signal, const std::string& log);

}  // namespace kjudge
