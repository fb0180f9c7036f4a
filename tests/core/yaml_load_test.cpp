// The bounded YAML loader and the readers that go through it (problem-spec.yaml, task.yml).
// Alias bombs run in a child under a 1 GiB address-space limit and a 20 s alarm: before the
// bound, nine levels of ten aliases made a 1.4 KB spec abort with std::bad_alloc.
#include "core/yaml_load.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "bounded_child.h"
#include "core/problem_dir.h"
#include "core/task_spec.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using testing::BoundedResult;
using testing::run_bounded;
using testing::TempDir;

constexpr std::size_t kOneGiB = std::size_t{1} << 30;

// `levels` anchors, each a list of ten aliases of the one before: 10^levels leaves, indented
// by `indent` to sit inside a map field.
std::string alias_bomb(int levels, const std::string& indent) {
  std::string out = indent + "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < levels; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    out += indent + "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) out += (k ? ", " : "") + prev;
    out += "]\n";
  }
  return out;
}

void expect_refused_quickly(const BoundedResult& r, const std::string& file) {
  ASSERT_EQ(r.outcome, BoundedResult::Outcome::input_error) << r.message;
  EXPECT_NE(r.message.find(file), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("aliases"), std::string::npos) << r.message;
  EXPECT_LT(r.seconds, 10) << "the walk stops at the bound";
}

TEST(YamlLoad, AliasBombInAProblemSpecFieldIsRefused) {
  TempDir tmp;
  const fs::path spec = tmp / "p" / "problem-spec.yaml";
  testing::write_text(spec,
                      "type: cuda_cpp\ntask_id: CUDA/1\ndate: x\nprompt: p\ngroup: g\n"
                      "test_command: ./t\nmetadata:\n" +
                          alias_bomb(9, "  "));
  ASSERT_LT(fs::file_size(spec), 2000u);
  expect_refused_quickly(run_bounded([&] { load_problem_dir(tmp / "p"); }, kOneGiB, 20),
                         spec.string());
}

TEST(YamlLoad, AliasBombInATaskYmlIsRefused) {
  TempDir tmp;
  const fs::path yml = tmp / "t" / "task.yml";
  testing::write_text(yml, "lang: cu\ndescription: d\nconfig:\n" + alias_bomb(9, "  "));
  expect_refused_quickly(run_bounded([&] { load_task(tmp / "t"); }, kOneGiB, 20), yml.string());
}

TEST(YamlLoad, TheNodeBoundHoldsWithoutAliasesTooAndNamesTheLine) {
  // 60 lines of ~1000 items each: past 20000 nodes, so a bound of 20000 is hit on a later line.
  std::string list = "k:\n";
  for (int i = 0; i < 60; ++i) {
    list += "  - [";
    for (int k = 0; k < 1000; ++k) list += k ? ",1" : "1";
    list += "]\n";
  }
  YamlBounds bounds;
  bounds.max_nodes = 20000;
  auto e = testing::expect_input_error([&] { load_yaml_text(list, "n.yaml", bounds); });
  EXPECT_EQ(e.file(), "n.yaml");
  EXPECT_GE(e.line(), 20) << e.what();
  EXPECT_NO_THROW(load_yaml_text(list, "n.yaml")) << "60000 nodes fit the default bound";
}

TEST(YamlLoad, ASpecOverTheSizeBoundIsRefusedUnread) {
  TempDir tmp;
  const fs::path spec = tmp / "p" / "problem-spec.yaml";
  testing::write_text(spec, "prompt: \"" + std::string(5 << 20, 'x') + "\"\n");
  auto e = testing::expect_input_error([&] { load_problem_dir(tmp / "p"); });
  EXPECT_EQ(e.file(), spec.string());
  EXPECT_NE(e.reason().find("larger than"), std::string::npos) << e.reason();
}

TEST(YamlLoad, AFifoTaskYmlIsRefusedNotWaitedOn) {
  TempDir tmp;
  fs::create_directories(tmp / "t");
  ASSERT_EQ(mkfifo((tmp / "t" / "task.yml").c_str(), 0600), 0);
  const BoundedResult r = run_bounded([&] { load_task(tmp / "t"); }, kOneGiB, 10);
  ASSERT_EQ(r.outcome, BoundedResult::Outcome::input_error) << r.message;
  EXPECT_NE(r.message.find("task.yml"), std::string::npos) << r.message;
}

TEST(YamlLoad, InvalidYamlNamesFileAndLine) {
  auto e = testing::expect_input_error([&] { load_yaml_text("a: 1\nb: [x\n", "c.yaml"); });
  EXPECT_EQ(e.file(), "c.yaml");
  EXPECT_GE(e.line(), 2);
  EXPECT_NE(e.reason().find("invalid YAML"), std::string::npos);
}

}  // namespace
}  // namespace kjudge
