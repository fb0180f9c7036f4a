"""kjudge's TritonBench runner, as a package of modules with one job each: runs one operator's
test code against one piece of operator code (a candidate's, or the reference's) and reports to
the judge. Standard library + torch (+ the triton the code imports) only. The judge
(src/triton/runner/run.cpp) starts it in the sandbox, one process per run, through the entry script
python/kjudge_triton_runner.py (which says how it is loaded); the protocol is documented in
docs/triton.md ("The runner protocol"), the modules in python/README.md.

    python3 -I kjudge_triton_runner.py --request-fd R --result-fd W     (as the judge starts it)
    python3 -I kjudge_triton_runner.py --request FILE --output-dir DIR  (by hand, for debugging)

Order of work (each step's failure is reported with its stage):
  setup     read the request, import torch, seed            (a failure here is the judge's)
  syntax    compile the operator code                        (SyntaxError: the candidate's)
  import    execute the operator code as module __main__
  test_syntax  compile the test code                         (the dataset's)
  call      execute the test code: it calls the operator
  result    find and encode what the test returned
  time      time the operator calls, keeping every timed call's output for the judge to
            check: whole, or a sample of each large tensor where the whole would not fit the
            byte budgets (mode "time" only)

With "zero_fill": true in the request, torch.empty, empty_like, empty_strided and
Tensor.new_empty(_strided) return zero-filled tensors from before the operator code runs until
the test's results (or its timed calls) are in hand: the judge asks for it for operators whose
own test reads memory it never set (src/triton/judge/defect_table.cpp), for reference and
candidate alike, in test and timed runs (in timed runs the fill is part of both sides' time).
With "entry_args": {"entry": NAME, "args": [i, ...], "max_bytes": N} (test mode only), the calls
of that entry record only those arguments, after each call, up to N bytes in all, instead of the
whole call up to 16 MiB (CallRecorder): an operator whose output is an argument of calls too
large to record whole; the report says how many calls were kept ("entry_args").

Honest limit: the operator code runs in this very process. Nothing here can stop code that is
determined to reach the runner's objects (gc, sys.modules, /proc/self/fd). What the judge relies
on instead (issue 31, docs/notes-i31-triton.md): the keys of each timed call's inputs and
sample come from the judge in its turn (CallStream), what each call measured and returned is
committed to the judge as it ends, the runner reports its own code rebound (Tamper: every module
listed in MODULES), and with the CUPTI profiler the judge holds the timing to what the GPU did,
on its own clock.

This file imports none of the modules: the entry imports every one in MODULES before the request
is read, so that none is loaded later, once operator code could have changed how imports
resolve.
"""

# The package's modules, in the order the tamper check snapshots them (tamper.runner_modules).
MODULES = (
    "held",           # what is held before operator code runs: clock, hash, descriptor calls, JSON
    "errors",         # a failure tagged with its stage; the report's error object
    "results",        # flattening the test's results and encoding them (manifest + blob)
    "testcode",       # reading the test code's syntax tree: results variable, names it calls
    "entries",        # wrapping the operator's entries: RNG state per call, timer or recorder
    "callinfo",       # describing a call: bytes moved, values given (the judge's work counts)
    "check",          # every timed call checked: inputs, the site's plan, what is kept
    "torchops",       # torch's tensor operations, taken before operator code runs
    "recorder",       # test mode: what each entry call returned and wrote (CallRecorder)
    "watch",          # what the operator left running beside its timed calls (RuntimeWatch)
    "tamper",         # the runner's own code rebound (Tamper)
    "stream",         # the per-call channel to the judge (CallStream, LocalKeys)
    "marks",          # CUPTI marks: each call's window on the profiler's clock (CallMarks)
    "persisting_l2",  # persisting L2 taken back before every timed repetition
    "timing",         # CUDA events around each call, L2 flush, holds (CudaTimer)
    "zerofill",       # the torch.empty family zero-filled (ZeroFill)
    "execute",        # one pass: operator code, entries wrapped, test code, results found
    "run",            # one whole run: modes, stages, record and blob, tamper findings
    "channel",        # the result channel: one JSON line and the blob; reading the request
    "main",           # the command line, descriptors taken over, the report written, exit
)
