// The headers problems take from the machine, and the probe that finds the missing ones.
#include "eval/header_probe.h"

#include <gtest/gtest.h>

#include "eval/env_check.h"
#include "run/machine.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

Problem problem(const std::string& id, const std::string& group, std::vector<SourceFile> context,
                std::vector<SourceFile> tests) {
  Problem p;
  p.task_id = id;
  p.group = group;
  p.type = "cuda_cpp";
  p.build_command = "nvcc -I include -o test.out solution.cpp test/*.cpp -lcuda";
  p.context_files = std::move(context);
  p.test_files = std::move(tests);
  return p;
}

TEST(HeaderProbe, TheHeadersAProblemDoesNotShipAreTheMachines) {
  Problem a =
      problem("cudnn/0", "cudnn", {{"include/conv.h", "#pragma once\n#include <cudnn.h>\n"}},
              {{"test/test_main.cpp",
                "#include <cudnn_frontend.h>\n#include \"conv.h\"\n#include <conv.h>\n"
                "#include \"../include/conv.h\"\n#include <vector>\n"}});
  Problem b = problem("cuda/1", "cuda-kernels", {}, {{"test/main.cu", "#include <vector>\n"}});
  const auto uses = headers_from_machine({&a, &b});
  std::vector<std::string> names;
  for (const auto& [h, u] : uses) names.push_back(h);
  EXPECT_EQ(names, (std::vector<std::string>{"cudnn.h", "cudnn_frontend.h", "vector"}));
  EXPECT_EQ(uses.at("vector").problems, 2);
  EXPECT_EQ(uses.at("vector").groups, (std::set<std::string>{"cudnn", "cuda-kernels"}));
  EXPECT_EQ(uses.at("cudnn_frontend.h").groups, std::set<std::string>{"cudnn"});
}

TEST(HeaderProbe, AnIncludeUnderAConditionIsNotAskedOfTheMachineButAGuardIsNoCondition) {
  Problem p = problem("x/0", "g", {},
                      {{"test/a.h",
                        "#ifndef A_H\n#define A_H\n#include <cuda_runtime.h>\n"
                        "#ifdef _WIN32\n#include <windows.h>\n#endif\n"
                        "#if defined(USE_MPI)\n#  include <mpi.h>\n#else\n#include <x.h>\n#endif\n"
                        "#endif\n"},
                       {"test/b.cu", "#if 0\n#include <never.h>\n#endif\n#include <after.h>\n"},
                       {"notes.md", "#include <not_source.h>\n"}});
  std::vector<std::string> names;
  for (const auto& [h, u] : headers_from_machine({&p})) names.push_back(h);
  EXPECT_EQ(names, (std::vector<std::string>{"after.h", "cuda_runtime.h"}));
}

TEST(HeaderProbe, TheCompilerNamesEveryMissingHeaderInOneRun) {
  const MachineInfo m = probe_machine();
  if (m.nvcc_path.empty()) GTEST_SKIP() << "no nvcc here";
  testing::TempDir dir;
  const auto missing = missing_headers(
      m.nvcc_path, {"vector", "kjudge_missing_one.h", "cuda_runtime.h", "kjudge/missing_two.h"},
      dir.path());
  EXPECT_EQ(missing, (std::vector<std::string>{"kjudge_missing_one.h", "kjudge/missing_two.h"}));
  // A header the folder of scripts/install-libs holds is found through it (CPATH).
  testing::write_text(dir / "libs/include/kjudge_missing_one.h", "#pragma once\n");
  const auto with = missing_headers(m.nvcc_path, {"kjudge_missing_one.h"}, dir.path(),
                                    "CPATH='" + (dir / "libs/include").string() + "' ");
  EXPECT_TRUE(with.empty());
}

TEST(HeaderProbe, TheEnvironmentCheckNamesTheGroupAndWhatToInstall) {
  const MachineInfo m = probe_machine();
  if (m.nvcc_path.empty()) GTEST_SKIP() << "no nvcc here";
  Problem p = problem("cudnn/7", "cudnn", {},
                      {{"test/t.cpp", "#include <cudnn_frontend_kjudge_test_missing.h>\n"}});
  EnvCheckOptions o;
  o.need_gpus = false;
  const auto checks = check_environment(m, {&p}, o);
  const std::string text = format_checks(checks);
  EXPECT_TRUE(any_failed(checks)) << text;
  EXPECT_NE(text.find("missing here: <cudnn_frontend_kjudge_test_missing.h> (1 problems: cudnn)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scripts/install-libs"), std::string::npos) << text;
  EXPECT_NE(text.find("--exclude-group cudnn"), std::string::npos) << text;
}

}  // namespace
}  // namespace kjudge
