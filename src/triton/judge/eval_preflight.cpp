#include "triton/judge/eval_preflight.h"

#include <fmt/format.h>

#include <system_error>

namespace kjudge::triton {

std::string triton_preflight(const TritonRunner& runner, const std::filesystem::path& workspace) {
  // A test-mode run of a one-line operator and its test, which touches no GPU: the runner has
  // imported torch (and triton) before it runs any code, and reports what it found.
  TritonRunRequest probe;
  probe.code = "def kjudge_preflight(x):\n    return x\n";
  probe.test_code =
      "def test_kjudge_preflight():\n"
      "    return {'test_case_1': kjudge_preflight(1.0)}\n"
      "result_gold = test_kjudge_preflight()\n";
  probe.test = true;
  probe.time = false;
  const TritonRunOutcome o = run_triton(runner, probe, workspace);
  std::error_code ec;
  std::filesystem::remove_all(workspace, ec);
  const std::string python = runner.python.executable;
  if (o.status != TritonRunStatus::ok) {
    const std::string why =
        !o.error.message.empty() ? o.error.exception_type + ": " + o.error.message : o.detail;
    if (o.error.stage == "setup" && why.find("torch") != std::string::npos)
      return fmt::format(
          "the Python runner cannot import torch with {} ({}); every TritonBench operator needs "
          "torch and triton: install them into that environment (scripts/install-python-env "
          "--add torch --add triton) or name another interpreter with --python",
          python, why);
    return fmt::format("the Python runner does not start on this machine with {}: {}", python,
                       why.empty() ? std::string(triton_run_status_name(o.status)) : why);
  }
  if (!o.env.contains("torch"))
    return fmt::format(
        "{} has no torch; install torch and triton into it, or name another "
        "interpreter with --python",
        python);
  if (!o.env.contains("triton"))
    return fmt::format(
        "{} has torch {} but no triton; install triton into it, or name another "
        "interpreter with --python",
        python, o.env.value("torch", std::string("?")));
  if (!o.env.contains("gpu"))
    return fmt::format(
        "torch {} ({}) sees no CUDA GPU (CUDA {}): TritonBench's tests run on the "
        "GPU; run on a machine with one, or check --gpu and the driver",
        o.env.value("torch", std::string("?")), python, o.env.value("cuda", std::string("?")));
  return "";
}

}  // namespace kjudge::triton
