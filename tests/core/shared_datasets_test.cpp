// The real ComputeEval packs, read from the shared datasets folder (never copied into the repo).
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/datapack.h"
#include "core/problem_dir.h"
#include "core/problem_json.h"
#include "test_util.h"

namespace kjudge {
namespace {

using kjudge::testing::canon;

namespace fs = std::filesystem;
using nlohmann::ordered_json;

const fs::path kDatasets = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/compute-eval");

struct Release {
  const char* name;
  size_t count;
};
constexpr Release kReleases[] = {{"2025-1", 127}, {"2025-2", 231}, {"2025-3", 405}};

fs::path pack_path(const char* release) {
  return kDatasets / (std::string(release) + "-problems.tar.gz");
}

#define SKIP_WITHOUT_DATASETS()                                                   \
  do {                                                                            \
    for (const Release& r : kReleases) {                                          \
      if (!fs::exists(pack_path(r.name))) {                                       \
        GTEST_SKIP() << "shared dataset missing: " << pack_path(r.name).string(); \
      }                                                                           \
    }                                                                             \
  } while (0)

using kjudge::testing::TempDir;

std::string read_member(const fs::path& pack, const std::string& name) {
  std::string out;
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_all(a);
  EXPECT_EQ(archive_read_open_filename(a, pack.c_str(), 1 << 16), ARCHIVE_OK);
  archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    if (name != archive_entry_pathname(e)) continue;
    char buf[1 << 16];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  }
  archive_read_free(a);
  return out;
}

// What ComputeEval's exclude_none writer makes of a line: nulls dropped, except the two places
// where our writer keeps them on purpose (see problem_json.h).
void strip_nulls(ordered_json& j, const std::string& path = "") {
  if (!j.is_object() || path == "source_references") return;
  for (auto it = j.begin(); it != j.end();) {
    if (it->is_null() && !(path.empty() && it.key() == "compute_capability")) {
      it = j.erase(it);
    } else {
      strip_nulls(*it, path.empty() ? it.key() : path + "." + it.key());
      ++it;
    }
  }
}

TEST(SharedDatasets, RealPacksLoadAndVerify) {
  SKIP_WITHOUT_DATASETS();
  std::vector<std::set<std::string>> task_ids;
  for (const Release& r : kReleases) {
    SCOPED_TRACE(r.name);
    LoadReport report;
    const ProblemPack pack = read_problem_pack(pack_path(r.name), &report);
    for (const InputError& e : report.errors) ADD_FAILURE() << e.what();
    EXPECT_EQ(pack.problems.size(), r.count);
    EXPECT_EQ(pack.metadata.total_count, static_cast<int>(r.count));
    EXPECT_EQ(pack.metadata.release, r.name);
    EXPECT_EQ(pack.metadata.task_id_hashes.size(), r.count);
    for (const IntegrityIssue& issue : verify_pack(pack)) ADD_FAILURE() << issue.message;
    std::set<std::string> ids;
    for (const Problem& p : pack.problems) {
      EXPECT_TRUE(p.baseline_solution && !p.baseline_solution->files.empty()) << p.task_id;
      EXPECT_FALSE(p.test_command.empty()) << p.task_id;
      for (const SourceFile& f : p.test_files) {
        EXPECT_TRUE(f.path.starts_with("test/")) << p.task_id << " " << f.path;
      }
      ids.insert(p.task_id);
    }
    EXPECT_EQ(ids.size(), r.count);
    task_ids.push_back(std::move(ids));
  }
  ASSERT_EQ(task_ids.size(), 3u);
  EXPECT_TRUE(std::includes(task_ids[1].begin(), task_ids[1].end(), task_ids[0].begin(),
                            task_ids[0].end()));
  EXPECT_TRUE(std::includes(task_ids[2].begin(), task_ids[2].end(), task_ids[1].begin(),
                            task_ids[1].end()));
}

TEST(SharedDatasets, LinesReserializeAsComputeEvalWouldWriteThem) {
  SKIP_WITHOUT_DATASETS();
  for (const Release& r : kReleases) {
    SCOPED_TRACE(r.name);
    const std::string data = read_member(pack_path(r.name), "problems.jsonl");
    size_t start = 0;
    int line = 0;
    while (start < data.size()) {
      ++line;
      size_t end = data.find('\n', start);
      if (end == std::string::npos) end = data.size();
      const std::string text = data.substr(start, end - start);
      start = end + 1;
      ordered_json expected = ordered_json::parse(text);
      strip_nulls(expected);
      const Problem p = problem_from_json(nlohmann::json::parse(text), r.name, line);
      ASSERT_EQ(problem_to_json_line(p), expected.dump()) << "line " << line;
    }
  }
}

TEST(SharedDatasets, PackWrittenByUsKeepsEveryProblem) {
  SKIP_WITHOUT_DATASETS();
  TempDir tmp;
  const ProblemPack original = read_problem_pack(pack_path("2025-3"), nullptr);
  const fs::path copy = tmp / "copy-problems.tar.gz";
  write_problem_pack(copy, "2025-3", "copy", original.problems);
  LoadReport report;
  const ProblemPack pack = read_problem_pack(copy, &report);
  EXPECT_TRUE(report.ok());
  EXPECT_TRUE(verify_pack(pack).empty());
  ASSERT_EQ(pack.problems.size(), original.problems.size());
  for (size_t i = 0; i < pack.problems.size(); ++i) {
    ASSERT_EQ(problem_to_json_line(pack.problems[i]), problem_to_json_line(original.problems[i]));
  }
}

TEST(SharedDatasets, ProblemDirectoriesRoundTrip) {
  SKIP_WITHOUT_DATASETS();
  TempDir tmp;
  const ProblemPack original = read_problem_pack(pack_path("2025-3"), nullptr);
  for (const Problem& p : original.problems) {
    std::string name = p.task_id;
    std::replace(name.begin(), name.end(), '/', '_');
    write_problem_dir(p, tmp / "dirs" / p.group / name);
  }
  LoadReport report;
  const auto loaded = load_problem_dirs(tmp / "dirs", &report);
  for (const InputError& e : report.errors) ADD_FAILURE() << e.what();
  ASSERT_EQ(loaded.size(), original.problems.size());
  std::map<std::string, std::string> by_task;
  for (const Problem& p : loaded) by_task[p.task_id] = canon(p);
  for (const Problem& p : original.problems) {
    ASSERT_EQ(by_task[p.task_id], canon(p)) << p.task_id;
  }
}

}  // namespace
}  // namespace kjudge
