// kjudge task new NAME: a task folder to start from, which builds and passes as it is.
#include <fmt/format.h>

#include <filesystem>
#include <regex>

#include "cli/commands.h"
#include "core/error.h"
#include "run/cloexec_file.h"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

const char* kTaskYml = R"(# A kjudge task (docs/tasks.md). Keys as in GPU MODE's task.yml.
lang: cu
description: |
  {name}: out[i] = alpha * x[i] for a float32 vector x. Replace with your task's statement:
  it is what a model or a competitor reads.
files:
  - {{name: task.h, source: task.h}}
  - {{name: reference.cuh, source: reference.cuh}}
  - {{name: submission.cu, source: "@SUBMISSION@"}}
config:
  sources: [submission.cu]
# Argument maps handed to generate_input (integers or plain words). Tests check correctness;
# benchmarks are timed. Seeds are combined with a secret one in ranked runs.
tests:
  - {{size: 1, seed: 1}}
  - {{size: 1000, seed: 2}}
  - {{size: 1048577, seed: 3}}
benchmarks:
  - {{size: 1048576, seed: 10}}
  - {{size: 67108864, seed: 11}}
ranking_by: geom   # last | mean | geom of the per-benchmark mean times
test_timeout: 60
benchmark_timeout: 120
ranked_timeout: 180
)";

const char* kTaskH = R"(#pragma once
// The data of one call: what generate_input makes and custom_kernel receives.
#include "kjudge/task_api.cuh"

struct input_t {
  kj::Tensor<float> x;
  float alpha;
  kj::Tensor<float> out;  // preallocated (NaN-filled): custom_kernel writes it and returns it
};
using output_t = kj::Tensor<float>;
)";

const char* kReferenceCuh = R"(#pragma once
// The task's side: inputs from a case, the reference result, and the tolerance.
#include "task.h"

__global__ void scale_reference(const float* x, float alpha, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = alpha * x[i];
}

inline input_t generate_input(const kj::Spec& spec) {
  const std::int64_t n = spec.get_int("size");
  input_t in{kj::Tensor<float>::empty({n}), 0.0f, kj::Tensor<float>::empty({n})};
  kj::fill_uniform(in.x, spec.seed(), -1.0, 1.0);
  in.alpha = static_cast<float>(1.0 + kj::uniform01(spec.seed(), 0xa1fa));
  return in;
}

inline output_t ref_kernel(const input_t& in) {
  output_t out = kj::Tensor<float>::empty(in.x.shape());
  const std::int64_t n = in.x.numel();
  scale_reference<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.x.data(), in.alpha,
                                                                  out.data(), n);
  KJ_CHECK(cudaGetLastError());
  return out;
}

// One float multiply is correctly rounded: every right answer has the same bits.
inline kj::Tolerance tolerance(const input_t&) { return {0.0, 0.0}; }
)";

const char* kSubmission = R"(// A first submission: one thread per element.
#include "task.h"

__global__ void scale(const float* x, float alpha, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = alpha * x[i];
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.x.numel();
  scale<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.x.data(), in.alpha, in.out.data(), n);
  return in.out;
}
)";

const char* kReadme = R"(# {name}

A kjudge task folder (docs/tasks.md). Try it:

    kjudge task build {name} {name}/submission.cu                 # compile, show ptxas usage
    kjudge task run {name} {name}/submission.cu --mode test
    kjudge task run {name} {name}/submission.cu --mode benchmark
    kjudge task run {name} {name}/submission.cu --mode leaderboard
    kjudge task run {name} {name}/submission.cu --mode profile

Edit task.h (the input and output types), reference.cuh (generate_input, ref_kernel,
tolerance) and task.yml (the statement, tests and benchmarks).
)";

int task_new(const std::string& name, const std::string& parent) {
  static const std::regex ok("[A-Za-z0-9][A-Za-z0-9_.-]*");
  if (!std::regex_match(name, ok)) {
    throw Error(exit_code::usage,
                fmt::format("'{}' is not a usable task name (letters, digits, _ . -)", name));
  }
  const fs::path dir = fs::path(parent) / name;
  if (fs::exists(dir)) {
    throw Error(exit_code::usage, dir.string() + " already exists; nothing was written");
  }
  fs::create_directories(dir);
  auto fill = [&](const char* text) {
    return fmt::format(fmt::runtime(text), fmt::arg("name", name));
  };
  write_file_cloexec(dir / "task.yml", fill(kTaskYml));
  write_file_cloexec(dir / "task.h", kTaskH);
  write_file_cloexec(dir / "reference.cuh", kReferenceCuh);
  write_file_cloexec(dir / "submission.cu", kSubmission);
  write_file_cloexec(dir / "README.md", fill(kReadme));
  fmt::print(stderr,
             "kjudge: made {} (task.yml, task.h, reference.cuh, submission.cu, README.md)\n",
             dir.string());
  return exit_code::ok;
}

}  // namespace

void add_task_new_command(CLI::App* task, int& rc) {
  auto name = std::make_shared<std::string>();
  auto parent = std::make_shared<std::string>(".");
  CLI::App* c =
      task->add_subcommand("new", "Scaffold a task folder that builds and passes as it is");
  c->add_option("NAME", *name, "The task's name (the folder made)")->required();
  c->add_option("--dir", *parent, "Where to make it (default: here)");
  c->callback([name, parent, &rc] { rc = task_new(*name, *parent); });
}

}  // namespace kjudge
