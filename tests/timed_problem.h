#pragma once
// A host-only pack problem with a custom-timed benchmark, shared by the service's tests:
// solve() must return 42, and `test.out --perf` prints the milliseconds the solution's
// bench_ms() returns (its baseline reports 10 ms). The test program prints the timing marker,
// so a clean solution names nothing the static pass flags (a flagged ranked run waits for
// review: review_test.cpp).
#include <filesystem>
#include <string>

#include "test_util.h"

namespace kjudge::testing {

inline void write_timed_problem(const std::filesystem::path& dir, const std::string& task_id,
                                const std::string& group) {
  write_text(dir / "problem-spec.yaml",
             "type: cuda_cpp\nschema_version: 2\ntask_id: " + task_id +
                 "\ndate: \"2026-11-22\"\nprompt: Return 42 from solve().\n"
                 "metadata: {difficulty: easy, host_only: true}\ngroup: " +
                 group +
                 "\nsource_references: null\nbuild_command: cc -O1 -o test.out solution.c "
                 "test/main.c\ntest_command: ./test.out\nbenchmark_command: ./test.out "
                 "--perf\ntiming_mode: {type: custom}\nmin_cuda_toolkit: null\n"
                 "compute_capability: null\nrequires_datacenter_gpu: false\n"
                 "timeout_seconds: 20.0\n");
  write_text(dir / "test/main.c",
             "#include <stdio.h>\n#include <string.h>\nint solve(void);\n"
             "double bench_ms(void);\nint main(int argc, char** argv) {\n"
             "  if (argc > 1 && strcmp(argv[1], \"--perf\") == 0) {\n"
             "    printf(\"COMPUTE_EVAL_TIME_MS: %f\\n\", bench_ms());\n    return 0;\n"
             "  }\n  return solve() == 42 ? 0 : 1;\n}\n");
  write_text(dir / "solution/solution.c",
             "int solve(void) { return 42; }\ndouble bench_ms(void) { return 10.0; }\n");
}

}  // namespace kjudge::testing
