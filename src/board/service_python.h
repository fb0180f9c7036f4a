#pragma once
// The Python the service runs GPU MODE's Python tasks (kjudge's Python harness) and KernelBench
// submissions in: the interpreter `kjudge task run --python` and `kjudge kernelbench eval
// --python` would take, asked once when the service starts (outside the sandbox, with no
// submission's code), so that a service whose Python lacks torch refuses such work when it is
// registered or submitted, naming the interpreter, instead of failing every submission in turn.
//
// A run whose harness says the GPU is unusable to torch is held to account by recheck_gpu():
// the interpreter, again with no submission's code, makes a tensor on the GPU. Only when that
// fails too is the run the machine's (an environment error, not charged); the words alone
// prove nothing, since the submission can print them.
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "task/python_check.h"

namespace kjudge::board {

class ServicePython {
 public:
  // Asks `python` at once (empty: $KJUDGE_PYTHON, else python3). Never throws: an interpreter
  // that cannot be run is a refusal, said by why().
  explicit ServicePython(const std::string& python);

  // Why Python work cannot run here, in one line naming the interpreter; "" when it can.
  std::string why() const;
  // The interpreter as named (for messages) and as probed (absolute; empty when it never ran).
  const std::string& name() const { return name_; }
  const std::optional<task::TaskPython>& probed() const { return probed_; }
  // kjudge's Python task harness (python/kjudge_gpumode_runner.py); empty when not found (why()
  // then says so).
  const std::filesystem::path& gpumode_runner() const { return gpumode_runner_; }

  // After a run that failed as a machine without a usable GPU would: whether torch in this
  // interpreter can use GPU `gpu` (-1: its default). When it cannot, Python work is refused from
  // then on (why() says why) until a later recheck passes.
  bool recheck_gpu(int gpu, double timeout_s = 180);
  // Refused by a recheck (not from the start): worth asking again later.
  bool failed_recheck() const;

 private:
  std::string name_;
  std::optional<task::TaskPython> probed_;
  std::filesystem::path gpumode_runner_;
  std::string start_why_;  // set once, by the constructor
  mutable std::mutex mu_;
  std::string fault_why_;  // the last recheck_gpu()'s refusal; "" after one that passed
};

// Whether a Python harness's failure reads as the machine's (the CUDA runtime's machine-fault
// messages, or kjudge's Python harness saying torch found no usable GPU before any submission
// code ran). Only a reason to ask recheck_gpu(), never a verdict by itself.
bool reads_as_gpu_unusable(const std::string& text);

}  // namespace kjudge::board
