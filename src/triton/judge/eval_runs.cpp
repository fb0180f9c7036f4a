// The runs the Triton judge makes of a job: each run's request, its workspace, a test-mode run,
// and their names in the progress lines. Declared in triton/judge/eval_runs.h.
#include "triton/judge/eval_runs.h"

#include <fmt/format.h>

#include <cctype>
#include <system_error>

namespace kjudge::triton {
namespace fs = std::filesystem;

std::string op_key(const TritonOperator& op) {
  return std::string(channel_name(op.channel)) + "/" + op.name;
}

// A folder name from an operator name ("torch.div" stays readable, "../x" cannot escape).
std::string slug(const std::string& s) {
  std::string out;
  for (char c : s)
    out +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
  if (out.empty() || out[0] == '.') out = "_" + out;
  return out;
}

TritonRunRequest make_request(const TritonEvalOptions& opt, const TritonOperator& op,
                              const std::string& code, bool time, std::uint64_t perturb_seed,
                              const nlohmann::json& plan) {
  TritonRunRequest req;
  req.code = code;
  req.test_code = op.test_code;
  req.seed = opt.seed;
  req.test = !time;
  req.time = time;
  req.timing = opt.timing;
  req.timing.perturb_seed = perturb_seed;
  req.timing.cupti = time && !opt.profiler.empty();
  req.plan = plan;
  req.require_torch = opt.require_torch;
  req.test_secret = opt.test_secret;
  // A known test defect (triton/judge/defects.h) applies to every run of the operator, the
  // reference's and every candidate's alike. The zero fill applies to timed runs too: their
  // outputs are checked, and memory never set differs between processes (on the H100,
  // mul_exponent_compensator's timed check failed 1 call in 600 against itself without it).
  const TritonDefect* defect = find_triton_defect(opt.defects, op);
  req.zero_fill = defect && defect->action == TritonDefectAction::zero_fill;
  if (!time && defect && defect->action == TritonDefectAction::entry_args)
    req.entry_args = TritonEntryArgs{defect->entry, defect->args};
  return req;
}

// The workspace of a run: emptied before (a leftover of an earlier run must not leak into this
// one), and removed after unless kept.
void clear_workspace(const fs::path& ws) {
  std::error_code ec;
  fs::remove_all(ws, ec);
}
void forget_workspace(const TritonEvalOptions& opt, const fs::path& ws) {
  if (!opt.keep_workspaces) clear_workspace(ws);
}

// One test-mode run of `code` against the operator's test, in work_dir/ws_name.
TritonRunOutcome run_one(const TritonEvalOptions& opt, const TritonOperator& op,
                         const std::string& code, const std::string& ws_name) {
  const fs::path ws = opt.work_dir / ws_name;
  clear_workspace(ws);
  TritonRunOutcome out = run_triton(opt.runner, make_request(opt, op, code, false), ws);
  forget_workspace(opt, ws);
  const TritonDefect* defect = find_triton_defect(opt.defects, op);
  if (defect && defect->action == TritonDefectAction::skip_entries)
    remove_skipped_entries(defect->entries, out.outputs);
  return out;
}

// " (setup 2.1, time 3.9 s)": where a run's seconds went, for the progress lines.
std::string phases_text(const TritonRunOutcome& o) {
  if (o.phase_seconds.empty()) return "";
  std::string t;
  for (const auto& [phase, s] : o.phase_seconds)
    t += fmt::format("{}{} {:.1f}", t.empty() ? " (" : ", ", phase, s);
  return t + " s)";
}

}  // namespace kjudge::triton
