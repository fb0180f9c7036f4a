// Reports made from the fixture runs (tests/fixtures/report: real results of the example pack,
// dressed as an H100 run with --benchmark): what each section shows, that model-written text
// comes out escaped, and how bad run directories are refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/input_error.h"
#include "report/render.h"
#include "report/run_data.h"
#include "report/run_view.h"
#include "test_util.h"

namespace kjudge::report {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const fs::path kRunA = kSource / "tests/fixtures/report/run-a";
const fs::path kRunB = kSource / "tests/fixtures/report/run-b";

LoadOptions with_inputs() {
  return {(kSource / "examples/pack").string(), (kSource / "examples/solutions").string()};
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(ReportLoad, ReadsEveryFileOfAFixtureRun) {
  RunData r = load_run(kRunA, with_inputs());
  EXPECT_EQ(r.results.size(), 19u);
  EXPECT_EQ(r.perf.size(), 8u);
  EXPECT_TRUE(r.perf_conditions.is_object());
  EXPECT_FALSE(r.summary_recomputed);
  EXPECT_EQ(r.problems.size(), 5u);
  EXPECT_EQ(r.solution_files.size(), 18u);
  EXPECT_TRUE(r.notes.empty()) << r.notes[0];
}

TEST(ReportLoad, MissingInputsAreNotedNotFatal) {
  RunData r = load_run(kRunA, {"/nonexistent/pack", "/nonexistent/solutions"});
  EXPECT_TRUE(r.problems.empty());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_TRUE(has(r.notes[0], "/nonexistent/pack")) << r.notes[0];
  EXPECT_TRUE(has(html_report(r), "/nonexistent/pack")) << "the page says why prompts are missing";
}

TEST(ReportHtml, ShowsEverySectionWithTheRunsNumbers) {
  const std::string html = html_report(load_run(kRunA, with_inputs()));
  for (const char* id :
       {"pass-at-k", "verdicts", "performance", "cheats", "conditions", "problems"})
    EXPECT_TRUE(has(html, std::string("<section id=\"") + id + "\"")) << id;
  for (const char* canvas : {"chart-groups", "chart-verdicts", "chart-speedups"})
    EXPECT_TRUE(has(html, std::string("<canvas id=\"") + canvas + "\"")) << canvas;
  EXPECT_TRUE(has(html, "45.0%")) << "pass@1 of run-a";
  EXPECT_TRUE(has(html, "76.7%")) << "pass@2 of run-a";
  EXPECT_TRUE(has(html, "1.421×")) << "geometric-mean speedup";
  EXPECT_TRUE(has(html, "27.8%")) << "fast_1 = 5 of 18";
  EXPECT_TRUE(has(html, "no_gpu")) << "skip reasons";
  EXPECT_TRUE(has(html, "required API not used")) << "verdicts in words";
  EXPECT_TRUE(has(html, "output_cache: the same output")) << "cheat flag";
  EXPECT_TRUE(has(html, "NVIDIA H100 80GB HBM3")) << "GPU";
  EXPECT_TRUE(has(html, "580.95.05")) << "driver";
  EXPECT_TRUE(has(html, "kjudge 0.1.0")) << "judge version";
  EXPECT_TRUE(has(html, "no NVTX range named bench_region")) << "not_timed reason";
  EXPECT_TRUE(has(html, "Chart.defaults.animation = false")) << "Chart.js inlined and used";
  EXPECT_FALSE(has(html, "<script src")) << "nothing loaded from elsewhere";
}

TEST(ReportHtml, DrillDownHasPromptFilesAndLogsWithTheirSizes) {
  HtmlOptions o;
  o.log_bytes = 1024;
  const std::string html = html_report(load_run(kRunA, with_inputs()), o);
  EXPECT_TRUE(has(html, "<details class=\"problem\" id=\"p-example/saxpy\">"));
  EXPECT_TRUE(has(html, "<h4>Prompt</h4>"));
  EXPECT_TRUE(has(html, "saxpy")) << "prompt text";
  EXPECT_TRUE(has(html, "solution.cu (")) << "the solution's files, with their size";
  // The 50 MiB flood: written, cut by the judge, cut again for the page, each size said.
  EXPECT_TRUE(has(html, "test log: 50.0 MiB written, 16.1 KiB kept by the judge, 1.0 KiB shown"))
      << "log sizes";
  EXPECT_TRUE(has(html, "bytes not shown")) << "the cut is marked";
  EXPECT_TRUE(has(html, "expected a &quot;;&quot;")) << "build log of the build error, escaped";
  EXPECT_LT(html.size(), 2u << 20) << "a flood does not flood the page";
}

TEST(ReportHtml, ModelWrittenTextIsEscaped) {
  const std::string html = html_report(load_run(kRunA, with_inputs()));
  EXPECT_FALSE(has(html, "<script>window.kjInjected")) << "a detail with a script element";
  EXPECT_FALSE(has(html, "<img src=x")) << "a log closing <pre> and adding an element";
  EXPECT_TRUE(has(html, "&lt;script&gt;window.kjInjected = 1&lt;/script&gt;"));
  EXPECT_TRUE(has(html, "&lt;/pre&gt;&lt;img src=x onerror=&quot;"));
}

TEST(ReportHtml, EscapesEveryRunWrittenString) {
  RunData r;
  r.dir = "<b>dir";
  r.run = {{"command", "<i>cmd"}, {"started_at", "<u>"}};
  r.results = {{{"task_id", "<t>&"},
                {"sample", 0},
                {"verdict", "test_fail"},
                {"group", "<g>"},
                {"difficulty", "<d>"},
                {"detail", "\"'"}}};
  r.summary = {{"ks", {1}}, {"pass_at_k", {{"1", 0.0}}}, {"groups", {{"<g>", {{"solutions", 1}}}}}};
  r.problems["<t>&"].prompt = "<p>prompt</p>";
  r.solution_files[{"<t>&", 0}] = {{"<x>.cu", "</pre>"}};
  const std::string html = html_report(r);
  for (const char* raw :
       {"<b>dir", "<i>cmd", "<u>", "<t>", "<g>", "<d>", "<p>prompt", "<x>", "</pre></pre>"})
    EXPECT_FALSE(has(html, raw)) << raw;
  EXPECT_TRUE(has(html, "&lt;t&gt;&amp;"));
  EXPECT_TRUE(has(html, "&quot;&#39;"));
  // The chart data is JSON inside <script>: no "<" may appear in it raw.
  EXPECT_TRUE(has(html, "\\u003cg\\u003e")) << "group name in the chart data";
}

TEST(ReportMarkdown, SummarisesTheRun) {
  const std::string md = markdown_report(load_run(kRunA, with_inputs()));
  EXPECT_TRUE(has(md, "# kjudge report: run-a"));
  EXPECT_TRUE(has(md, "**pass@1 45.0%**"));
  EXPECT_TRUE(has(md, "| cccl | 1 | 3 | 33.3% | 66.7% |")) << md;
  EXPECT_TRUE(has(md, "| test fail | 5 |")) << md;
  EXPECT_TRUE(has(md, "| no_gpu | 1 |")) << md;
  EXPECT_TRUE(has(md, "geometric-mean speedup 1.421×")) << md;
  EXPECT_TRUE(has(md, "| 2–4× | 2 |")) << "speedup distribution\n" << md;
  EXPECT_TRUE(has(md, "## Cheat flags"));
  EXPECT_TRUE(has(md, "| example/saxpy | cuda-kernels | easy | 1/4 |")) << md;
  EXPECT_TRUE(has(md, "| GPU | 0: NVIDIA H100 80GB HBM3 (compute capability 9.0) |")) << md;
  EXPECT_FALSE(has(md, "<script>")) << "raw HTML in a Markdown viewer would render";
}

TEST(ReportCompareRender, StatesFlipsAndTheTest) {
  RunData a = load_run(kRunA, with_inputs()), b = load_run(kRunB, with_inputs());
  Comparison c = compare_runs(a, b);
  EXPECT_EQ(c.a_only_pass, 1);
  EXPECT_EQ(c.b_only_pass, 3);
  EXPECT_NEAR(c.p_value, 0.625, 1e-12);
  const std::string md = markdown_comparison(a, b, c);
  EXPECT_TRUE(has(md, "p = 0.625")) << md;
  EXPECT_TRUE(has(md, "## Passed in A, failed in B (1)")) << md;
  EXPECT_TRUE(has(md, "| example/half_convert | 0 |")) << md;
  EXPECT_TRUE(has(md, "## Failed in A, passed in B (3)")) << md;
  EXPECT_TRUE(has(md, "| all | 44.4% (8/18) | 55.6% (10/18) | +11.1 pts |")) << md;
  const std::string html = html_comparison(a, b, c);
  EXPECT_TRUE(has(html, "<canvas id=\"chart-compare\""));
  EXPECT_TRUE(has(html, "p = 0.625"));
  EXPECT_FALSE(has(html, "<script>window.kjInjected"));
}

class ReportBadRun : public ::testing::Test {
 protected:
  void copy_fixture() {
    fs::create_directories(dir_.path() / "run");
    for (const auto& e : fs::directory_iterator(kRunA)) fs::copy(e.path(), dir_.path() / "run");
  }
  fs::path run() const { return dir_.path() / "run"; }
  testing::TempDir dir_;
};

TEST_F(ReportBadRun, MissingDirectoryOrJournalIsAnInputError) {
  auto e = testing::expect_input_error([&] { load_run(dir_.path() / "nope"); });
  EXPECT_TRUE(has(e.what(), "nope")) << e.what();
  fs::create_directories(run());
  auto f = testing::expect_input_error([&] { load_run(run()); });
  EXPECT_TRUE(has(f.what(), "results.jsonl")) << f.what();
}

TEST_F(ReportBadRun, AMalformedLineIsNamedByFileAndLine) {
  copy_fixture();
  std::string text = testing::read_text(run() / "results.jsonl");
  const std::size_t third = text.find('\n', text.find('\n') + 1) + 1;
  text.insert(third, "{\"task_id\": \"x\", oops\n");
  testing::write_text(run() / "results.jsonl", text);
  auto e = testing::expect_input_error([&] { load_run(run()); });
  EXPECT_EQ(e.line(), 3);
  EXPECT_TRUE(has(e.file(), "results.jsonl")) << e.what();
}

TEST_F(ReportBadRun, ALineWithoutAKnownVerdictNamesTheField) {
  copy_fixture();
  testing::write_text(run() / "results.jsonl",
                      "{\"task_id\": \"x\", \"sample\": 0, \"verdict\": \"great\"}\n");
  auto e = testing::expect_input_error([&] { load_run(run()); });
  EXPECT_EQ(e.line(), 1);
  EXPECT_EQ(e.field(), "verdict");
}

TEST_F(ReportBadRun, ATornLastLineIsLeftOutWithANote) {
  copy_fixture();
  std::string text = testing::read_text(run() / "results.jsonl");
  testing::write_text(run() / "results.jsonl", text + "{\"task_id\": \"example/sax");
  RunData r = load_run(run(), with_inputs());
  EXPECT_EQ(r.results.size(), 19u);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_TRUE(has(r.notes[0], "results.jsonl:20: a torn last line")) << r.notes[0];
}

TEST_F(ReportBadRun, ANewerSchemaVersionIsRefusedAndAnOlderRunWithoutOneIsRead) {
  copy_fixture();
  std::string text = testing::read_text(run() / "results.jsonl");
  // Runs written before schema_version existed: the same lines without it.
  for (std::size_t at = 0, i; (i = text.find("\"schema_version\": 1, ", at)) != std::string::npos;
       at = i)
    text.erase(i, 21);
  testing::write_text(run() / "results.jsonl", text);
  EXPECT_EQ(load_run(run()).results.size(), 19u);
  testing::write_text(run() / "results.jsonl",
                      "{\"schema_version\": 2, \"task_id\": \"x\", \"sample\": 0, \"verdict\": "
                      "\"pass\"}\n");
  auto e = testing::expect_input_error([&] { load_run(run()); });
  EXPECT_EQ(e.field(), "schema_version");
  EXPECT_TRUE(has(e.what(), "newer kjudge")) << e.what();
}

TEST_F(ReportBadRun, AnUnfinishedRunIsScoredFromItsJournal) {
  copy_fixture();
  fs::remove(run() / "summary.json");
  RunData r = load_run(run());
  EXPECT_TRUE(r.summary_recomputed);
  EXPECT_NEAR(r.summary["pass_at_k"]["1"].get<double>(), 0.45, 1e-12);
  EXPECT_NEAR(r.summary["pass_at_k"]["2"].get<double>(), 0.7666666666666667, 1e-12)
      << "ks from run.json";
}

}  // namespace
}  // namespace kjudge::report
