"""kjudge's KernelBench runner, as a package of modules with one job each: judges one solution's
ModelNew against its problem's reference Model, in one process, and reports to the judge.
Standard library + torch (+ what the problem and the solution import) only. The judge
(src/kernelbench/runner/run.cpp) starts it in the sandbox, one process per solution, through the
entry script python/kjudge_kernelbench_runner.py; the protocol is in docs/kernelbench.md ("The
runner protocol"), the modules in python/README.md.

Order of work (each step's failure is reported with its stage; GPU phases in brackets are
asked of the judge over the control channel, which lets them overlap other runs' or not):
  setup        read the request, import torch, find the GPU   (a failure: the machine's)
  reference    execute the reference, build Model under the seed, draw each trial's inputs
               [gpu] the reference's output on every trial [idle]
               (a failure: the dataset's, not the solution's)
  syntax       compile the solution                           (the solution's, as all below)
  import       execute it (load_inline builds its extension here, holding no GPU phase)
  init         build ModelNew under the same seed (KernelBench's way: the same weights)
  correctness  [gpu] ModelNew on every trial's inputs, each output checked [idle]
  compile      [gpu] the reference under torch.compile, warmed up [idle]  (not fatal)
  time         [time] solution, reference (and compiled reference) interleaved, every pair on
               fresh inputs whose key the judge sends in its turn, every solution output checked,
               L2 flushed before every call, each pair committed as it ends [end]

What the solution can reach, and what the judge relies on instead (the solution runs in this
very process, and nothing here can stop code determined to reach the runner's objects):
  - the reference's outputs are computed before any solution code runs, and its inputs' seeds
    and the timed pairs' keys come from the judge (the pairs' in their turn, from a secret the
    runner never holds): no answer can be prepared ahead;
  - torch's functions are snapshotted before the solution is imported, and every rebinding
    (which would slow or change the reference) is reported (guard.TorchGuard); torch's settings
    the solution changes (TF32, cuDNN's benchmark mode) are put back while the reference runs;
  - the runner's own code is snapshotted (tamper.Tamper): a rebinding refuses the run;
  - the report can only say what the control channel committed pair by pair, with the judge's
    clock bounding each pair's times; with the CUPTI profiler, the judge holds the timing to what
    the GPU did.

This file imports none of the modules: the entry imports every one in MODULES up front.
"""

# The package's modules, in the order the tamper check snapshots them (tamper.runner_modules).
MODULES = (
    "held",      # what is held before any solution code runs: clock, hash, descriptors, JSON
    "errors",    # a failure tagged with its stage; the report's error object
    "channel",   # the report as one line of JSON; reading the request
    "control",   # the control channel to the judge (Control, LocalControl)
    "tamper",    # the runner's own code rebound (Tamper)
    "guard",     # torch rebound or re-set by the solution (TorchGuard), what it left running (Watch)
    "load",      # a problem's or a solution's source executed as a module
    "tensors",   # inputs moved and made fresh, outputs compared, memory shared (Tensors)
    "marks",     # CUPTI marks: each call's window on the profiler's clock (CallMarks)
    "timing",    # CUDA events around each call, L2 flushed, persisting L2 reset (Timer)
    "run",       # one whole run: the stages, the record
    "main",      # the command line, descriptors taken over, the report written, exit
)
