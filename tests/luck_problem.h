#pragma once
// Issue 34's checks ("Luck does not pass") end to end without a GPU: host-only problems built
// with cc, and tests/fixtures/fake-compute-sanitizer, which reports an out-of-bounds read when
// the program prints FAKE-OOB. Shared by the command line's tests and the Slurm executor's.
//   problems/luck/ok   its baseline returns 42 (clean)
//   problems/luck/oob  its baseline prints FAKE-OOB (memcheck flags it)
//   solutions/s0..s2   for luck/ok: clean, out of bounds, and one whose runs share a file that
//                      grows by a byte a run and fail on the even runs (flaky under --repeat)
#include <filesystem>
#include <string>

#include "test_util.h"

namespace kjudge::testing {

inline const std::filesystem::path& fake_compute_sanitizer() {
  static const std::filesystem::path p =
      std::filesystem::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/fake-compute-sanitizer";
  return p;
}

inline void write_luck_problem(const std::filesystem::path& dir, const std::string& id,
                               const std::string& baseline) {
  const std::filesystem::path p = dir / "problems" / id;
  write_text(p / "problem-spec.yaml",
             "type: cuda_cpp\nschema_version: 2\ntask_id: " + id +
                 "\ndate: \"2026-11-28\"\nprompt: Return 42 from solve().\n"
                 "metadata: {difficulty: easy, host_only: true}\ngroup: luck\n"
                 "source_references: null\nbuild_command: cc -O1 -o test.out solution.c "
                 "test/main.c\ntest_command: ./test.out\nbenchmark_command: null\n"
                 "min_cuda_toolkit: null\ncompute_capability: null\n"
                 "requires_datacenter_gpu: false\ntimeout_seconds: 20.0\n");
  write_text(p / "test/main.c",
             "int solve(void);\nint main(void) { return solve() == 42 ? 0 : 1; }\n");
  write_text(p / "solution/solution.c", baseline);
}

inline void write_luck_solution(const std::filesystem::path& dir, int sample,
                                const std::string& code) {
  const std::filesystem::path s = dir / "solutions" / ("s" + std::to_string(sample));
  write_text(s / "solution-spec.yaml",
             "task_id: luck/ok\nsample: " + std::to_string(sample) + "\n");
  write_text(s / "solution.c", code);
}

// DIR/problems (luck/ok, luck/oob) and DIR/solutions (three of luck/ok).
inline void write_luck_pack(const std::filesystem::path& dir) {
  const std::string clean = "int solve(void) { return 42; }\n";
  const std::string oob =
      "#include <stdio.h>\nint solve(void) { puts(\"FAKE-OOB\"); return 42; }\n";
  write_luck_problem(dir, "luck/ok", clean);
  write_luck_problem(dir, "luck/oob", oob);
  write_luck_solution(dir, 0, clean);
  write_luck_solution(dir, 1, oob);
  write_luck_solution(
      dir, 2,
      "#include <stdio.h>\nint solve(void) {\n  FILE* f = fopen(\"runs\", \"a+\");\n"
      "  fputc('x', f);\n  long n = ftell(f);\n  fclose(f);\n"
      "  return n % 2 == 1 ? 42 : 0;\n}\n");
}

}  // namespace kjudge::testing
