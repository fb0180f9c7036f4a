#pragma once
// The runs the Triton judge (triton/judge/eval.h) makes of a job: the runner's request for the
// reference's or a candidate's code, the workspace each run gets below the work folder, one
// test-mode run, and the names the progress lines give them. Internal to the judge's files
// (eval.cpp, eval_timing.cpp, eval_json.cpp).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "triton/judge/eval.h"

namespace kjudge::triton {

// "G/add_example": the key of an operator in the results' maps and the progress lines.
std::string op_key(const TritonOperator& op);

// A folder name from an operator name ("torch.div" stays readable, "../x" cannot escape).
std::string slug(const std::string& s);

// The runner's request for one run of `code` against the operator's test: test mode, or with
// `time` a timing process (the job's secret and the reference's check plan handed on).
TritonRunRequest make_request(const TritonEvalOptions& opt, const TritonOperator& op,
                              const std::string& code, bool time, std::uint64_t perturb_seed = 0,
                              const nlohmann::json& plan = nlohmann::json());

// The workspace of a run: emptied before (a leftover of an earlier run must not leak into this
// one), and removed after unless kept.
void clear_workspace(const std::filesystem::path& ws);
void forget_workspace(const TritonEvalOptions& opt, const std::filesystem::path& ws);

// One test-mode run of `code` against the operator's test, in work_dir/ws_name.
TritonRunOutcome run_one(const TritonEvalOptions& opt, const TritonOperator& op,
                         const std::string& code, const std::string& ws_name);

// " (setup 2.1, time 3.9 s)": where a run's seconds went, for the progress lines.
std::string phases_text(const TritonRunOutcome& o);

}  // namespace kjudge::triton
