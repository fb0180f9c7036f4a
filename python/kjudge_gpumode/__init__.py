"""kjudge's own harness for GPU MODE's Python tasks: the task's reference (generate_input,
check_implementation or ref_kernel) in a checker process, the submission's custom_kernel in a
worker process of its own. docs/tasks.md ("GPU MODE's Python tasks") describes the design and
why a submission cannot game it; python/README.md lists the modules.

Modules with one job each; the pure-Python ones (no torch) are tested by
python/tests/gpumode/:
  cases    the case lines the judge hands over, and the seeds of fresh inputs
  stats    statistics of timed calls and the stopping rule (harness/kjudge/bench_stats.h's)
  record   the report: KJ1 records on the judge's result channel, written whole and sealed
  wire     messages between checker and worker (length-framed JSON; pickles one way only)
  shape    what custom_kernel returned, described by the worker, rebuilt by the checker
  checker  the checker's main: the modes, the calls, the timing, the checks (torch)
  worker   the worker's main: import the submission, call it when told (torch)
"""

MODULES = ["cases", "stats", "record", "wire", "shape", "checker", "worker"]
