#include "eval/source_refs.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace kjudge {
namespace {

bool cu(std::string_view content, std::string_view ref) {
  return contains_reference("solution.cu", content, ref);
}
bool py(std::string_view content, std::string_view ref) {
  return contains_reference("solution.py", content, ref);
}

TEST(ContainsReference, PlainCode) {
  EXPECT_TRUE(cu("void f() { cudaMalloc(&p, n); }", "cudaMalloc"));
  EXPECT_TRUE(cu("cudaMalloc", "cudaMalloc"));
  EXPECT_FALSE(cu("void f() { cudaFree(p); }", "cudaMalloc"));
}

TEST(ContainsReference, PartialTokensDoNotCount) {
  EXPECT_FALSE(cu("cudaMallocAsync(&p, n, s);", "cudaMalloc"));
  EXPECT_FALSE(cu("my_cudaMalloc(&p, n);", "cudaMalloc"));
  EXPECT_FALSE(cu("cub::DeviceReduce::SumX(a);", "cub::DeviceReduce::Sum"));
  EXPECT_FALSE(cu("thrust::copy_n(a, n, b);", "thrust::copy"));
  EXPECT_FALSE(cu("thrust::find_if(a, b, p);", "thrust::find"));
  EXPECT_FALSE(cu("xthrust::sort(a, b);", "thrust::sort"));
  // One real occurrence is enough, even after partial ones.
  EXPECT_TRUE(cu("thrust::copy_n(a, n, b); thrust::copy(a, b, c);", "thrust::copy"));
}

TEST(ContainsReference, CommentsDoNotCount) {
  EXPECT_FALSE(cu("// cudaMalloc here\nint x;", "cudaMalloc"));
  EXPECT_FALSE(cu("/* cudaMalloc */ int x;", "cudaMalloc"));
  EXPECT_FALSE(cu("/* multi\n line cudaMalloc\n */", "cudaMalloc"));
  EXPECT_FALSE(cu("int x; // continued \\\n cudaMalloc(&p, n);", "cudaMalloc"));
  EXPECT_TRUE(cu("/* note */ cudaMalloc(&p, n); // cudaMalloc", "cudaMalloc"));
  EXPECT_TRUE(cu("int x; // comment\ncudaMalloc(&p, n);", "cudaMalloc"));
  EXPECT_FALSE(cu("/* unterminated cudaMalloc", "cudaMalloc"));
  // A ref may not straddle a comment either.
  EXPECT_FALSE(cu("int x = 1; /* n */ f();", "1; /* n */ f"));
}

TEST(ContainsReference, StringAndCharLiteralsDoNotCount) {
  EXPECT_FALSE(cu("printf(\"use cudaMalloc\\n\");", "cudaMalloc"));
  EXPECT_FALSE(cu("const char* s = \"cudaMalloc\";", "cudaMalloc"));
  EXPECT_FALSE(cu("auto s = L\"cudaMalloc\"; auto t = u8\"thrust::sort\";", "cudaMalloc"));
  EXPECT_FALSE(cu("char c = 'x';", "x"));
  EXPECT_FALSE(cu("puts(\"quote \\\" cudaMalloc\");", "cudaMalloc"));
  EXPECT_TRUE(cu("puts(\"cudaMalloc\"); cudaMalloc(&p, n);", "cudaMalloc"));
  // A ref that holds a whole literal still matches.
  EXPECT_TRUE(cu("printf(\"x\");", "printf(\"x\")"));
  // An unterminated literal stops at the end of its line.
  EXPECT_TRUE(cu("puts(\"oops);\ncudaMalloc(&p, n);", "cudaMalloc"));
  // Digit separators are not char literals.
  EXPECT_TRUE(cu("int n = 1'000'000; cudaMalloc(&p, n);", "cudaMalloc"));
}

TEST(ContainsReference, RawStrings) {
  EXPECT_FALSE(cu("auto s = R\"(cudaMalloc \" still inside)\";", "cudaMalloc"));
  EXPECT_FALSE(cu("auto s = R\"xy(a )\" cudaMalloc )xy\";", "cudaMalloc"));
  EXPECT_TRUE(cu("auto s = R\"xy(a )xy\"; cudaMalloc(&p, n);", "cudaMalloc"));
  EXPECT_FALSE(cu("auto s = u8R\"(\ncudaMalloc\n)\";", "cudaMalloc"));
  // `R` alone is an identifier.
  EXPECT_TRUE(cu("int R = 1; cudaMalloc(&p, R);", "cudaMalloc"));
}

TEST(ContainsReference, QualifiedNames) {
  EXPECT_TRUE(cu("cub::DeviceReduce::Sum(tmp, bytes, in, out, n);", "cub::DeviceReduce::Sum"));
  EXPECT_TRUE(cu("thrust::device_vector<int> v(n);", "thrust::device_vector"));
  EXPECT_TRUE(cu("auto t = ct.load(a, index);", "ct.load"));
  EXPECT_TRUE(cu("counter.fetch_add(1, cuda::memory_order_relaxed);", "fetch_add"));
  EXPECT_TRUE(cu("::thrust::sort(a, b);", "thrust::sort"));
  // Whitespace is not normalised, as in tree-sitter's byte comparison.
  EXPECT_FALSE(cu("cub :: DeviceReduce::Sum(a);", "cub::DeviceReduce::Sum"));
  // Token-aligned parts of a longer name count (tree-sitter would refuse the prefix).
  EXPECT_TRUE(cu("cub::DeviceReduce::Sum(a);", "cub::DeviceReduce"));
  EXPECT_TRUE(cu("cub::DeviceReduce::Sum(a);", "DeviceReduce::Sum"));
  EXPECT_TRUE(cu("thrust::copy<int>(a, b, c);", "thrust::copy"));
}

TEST(ContainsReference, Preprocessor) {
  // Include paths are one node to tree-sitter: nothing inside them matches.
  EXPECT_FALSE(cu("#include <cub/cub.cuh>\n", "cub"));
  EXPECT_FALSE(cu("#include <cub/cub.cuh>\n", "cub/cub.cuh"));
  EXPECT_FALSE(cu("  #  include \"thrust/sort.h\"\n", "thrust"));
  EXPECT_FALSE(cu("#include <thrust/sort.h>\n", "include"));
  EXPECT_TRUE(cu("#include <cub/cub.cuh>\nusing namespace cub;\n", "cub"));
  // Macro bodies and conditions are code.
  EXPECT_TRUE(cu("#define SORT(v) thrust::sort(v.begin(), v.end())\n", "thrust::sort"));
  EXPECT_TRUE(cu("#define CHECK(x) \\\n  do { cudaMalloc(x); } while (0)\n", "cudaMalloc"));
  EXPECT_TRUE(cu("#if defined(USE_CUB)\n#endif\n", "USE_CUB"));
  EXPECT_FALSE(cu("#define X 1 // cudaMalloc\n", "cudaMalloc"));
  // `#` mid-line is not a directive.
  EXPECT_TRUE(cu("#define S(x) #x\nint include = 0;\n", "include"));
}

TEST(ContainsReference, FileTypes) {
  const std::string code = "void f() { cudaMalloc(&p, n); }";
  for (const char* path : {"a.cu", "a.cuh", "a.cpp", "a.cc", "a.cxx", "a.c", "a.h", "a.hpp", "a.hh",
                           "dir.d/a.cu", "src/x.y.cu"})
    EXPECT_TRUE(contains_reference(path, code, "cudaMalloc")) << path;
  for (const char* path : {"a.txt", "Makefile", "a.sh", "a", "a.cu.txt", "cu"})
    EXPECT_FALSE(contains_reference(path, code, "cudaMalloc")) << path;
}

TEST(ContainsReference, EmptyRefIsNeverFound) { EXPECT_FALSE(cu("int x;", "")); }

TEST(ContainsReference, Python) {
  EXPECT_TRUE(py("x = ct.load(a, index=(0,))", "ct.load"));
  EXPECT_FALSE(py("# ct.load in a comment\nx = 1", "ct.load"));
  EXPECT_FALSE(py("s = 'ct.load'", "ct.load"));
  EXPECT_FALSE(py("s = \"ct.load\"", "ct.load"));
  EXPECT_FALSE(py("s = '''\nct.load\n'''", "ct.load"));
  EXPECT_FALSE(py("def f():\n    \"\"\"Calls ct.load.\"\"\"\n", "ct.load"));
  EXPECT_FALSE(py("s = rb'raw \\' ct.load'", "ct.load"));
  EXPECT_FALSE(py("s = 'it''s' # ct.load", "ct.load"));
  EXPECT_FALSE(py("x = ct.loader(a)", "ct.load"));
  EXPECT_TRUE(py("s = '#'; x = ct.load(a)", "ct.load"));
  EXPECT_TRUE(py("s = '''a''' + \"\"\"b\"\"\"; x = ct.load(a)", "ct.load"));
  // Prefix-looking identifiers are not prefixes when no quote follows.
  EXPECT_TRUE(py("rb = 1; f = ct.load(a)", "ct.load"));
  // f-string expressions are code; the literal parts and {{escapes}} are not.
  EXPECT_TRUE(py("s = f\"{cp.sum(x)} total\"", "cp.sum"));
  EXPECT_TRUE(py("s = f'{n:>{width}}'", "width"));
  EXPECT_TRUE(py("s = f\"{d['k']}\"", "d"));
  EXPECT_FALSE(py("s = f\"{d['cp.sum']}\"", "cp.sum"));
  EXPECT_FALSE(py("s = f\"{{cp.sum}} and cp.sum\"", "cp.sum"));
  EXPECT_TRUE(py("s = F'''\n{ct.cdiv(n,\n 2)}\n'''", "ct.cdiv"));
}

TEST(CheckSourceReferences, AllAndAny) {
  std::vector<SourceFile> files{{"solution.cu", "void f() { thrust::sort(a, b); }"},
                                {"helper.cuh", "// thrust::reduce\nint g() { return 0; }"},
                                {"notes.txt", "thrust::reduce"}};
  SourceReferences refs;
  EXPECT_TRUE(check_source_references(refs, files).passed);

  refs.all = {"thrust::sort"};
  EXPECT_TRUE(check_source_references(refs, files).passed);

  refs.all = {"thrust::sort", "thrust::reduce", "g"};
  SourceRefCheck r = check_source_references(refs, files);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.missing_all, std::vector<std::string>{"thrust::reduce"});
  EXPECT_FALSE(r.any_missing);

  refs.all.clear();
  refs.any = {"thrust::reduce", "thrust::sort"};
  EXPECT_TRUE(check_source_references(refs, files).passed);
  refs.any = {"thrust::reduce", "cub::DeviceReduce::Sum"};
  r = check_source_references(refs, files);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.any_missing);
  EXPECT_TRUE(r.missing_all.empty());

  refs.all = {"g"};
  refs.any = {"thrust::sort"};
  EXPECT_TRUE(check_source_references(refs, files).passed);
  EXPECT_FALSE(check_source_references(refs, {}).passed);
}

// --- The real packs -------------------------------------------------------------------------

struct PackProblem {
  std::string task_id;
  SourceReferences refs;
  bool has_refs = false;
  std::vector<SourceFile> baseline;
};

std::string read_problems_jsonl(const std::string& tarball) {
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_all(a);
  std::string out;
  if (archive_read_open_filename(a, tarball.c_str(), 1 << 16) == ARCHIVE_OK) {
    archive_entry* entry = nullptr;
    while (archive_read_next_header(a, &entry) == ARCHIVE_OK) {
      std::string name = archive_entry_pathname(entry);
      if (name.size() < 14 || name.compare(name.size() - 14, 14, "problems.jsonl") != 0) continue;
      char buf[1 << 16];
      for (la_ssize_t n; (n = archive_read_data(a, buf, sizeof buf)) > 0;) out.append(buf, n);
      break;
    }
  }
  archive_read_free(a);
  return out;
}

std::vector<std::string> string_list(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (j.is_string()) out.push_back(j.get<std::string>());
  if (j.is_array())
    for (const auto& s : j) out.push_back(s.get<std::string>());
  return out;
}

std::vector<PackProblem> load_pack(const std::string& tarball) {
  std::vector<PackProblem> problems;
  std::istringstream lines(read_problems_jsonl(tarball));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line);
    PackProblem p;
    p.task_id = j.at("task_id").get<std::string>();
    const nlohmann::json& sr = j.value("source_references", nlohmann::json());
    if (sr.is_object()) {
      if (sr.contains("all")) p.refs.all = string_list(sr["all"]);
      if (sr.contains("any")) p.refs.any = string_list(sr["any"]);
    } else {
      p.refs.all = string_list(sr);
    }
    p.has_refs = !p.refs.empty();
    if (j.contains("baseline_solution") && j["baseline_solution"].is_object())
      for (const auto& f : j["baseline_solution"].value("files", nlohmann::json::array()))
        p.baseline.push_back({f.at("path").get<std::string>(), f.at("content").get<std::string>()});
    problems.push_back(std::move(p));
  }
  return problems;
}

const std::string kPackDir = KJUDGE_SOURCE_DIR "/../shared/datasets/compute-eval";

std::map<std::string, std::vector<PackProblem>> load_packs() {
  std::map<std::string, std::vector<PackProblem>> packs;
  for (const char* release : {"2025-1", "2025-2", "2025-3"}) {
    std::string path = kPackDir + "/" + release + "-problems.tar.gz";
    if (std::filesystem::exists(path)) packs[release] = load_pack(path);
  }
  return packs;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Replaces every token-aligned occurrence of `ref` with `replacement(ref)`.
std::string hide(const std::string& content, const std::string& ref, const std::string& before,
                 const std::string& after) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t pos = content.find(ref); pos != std::string::npos;
       pos = content.find(ref, pos + ref.size())) {
    std::size_t end = pos + ref.size();
    if (pos > 0 && is_ident(content[pos - 1])) continue;
    if (end < content.size() && is_ident(content[end])) continue;
    out.append(content, from, pos - from).append(before).append(ref).append(after);
    from = end;
  }
  return out.append(content, from);
}

std::vector<SourceFile> hide_all(const std::vector<SourceFile>& files,
                                 const std::vector<std::string>& refs, const std::string& before,
                                 const std::string& after) {
  std::vector<SourceFile> out = files;
  for (SourceFile& f : out)
    for (const std::string& ref : refs) f.content = hide(f.content, ref, before, after);
  return out;
}

TEST(RealPacks, EveryBaselinePassesItsSourceReferences) {
  auto packs = load_packs();
  if (packs.empty()) GTEST_SKIP() << "no packs under " << kPackDir;
  const std::map<std::string, int> expected_with_refs{
      {"2025-1", 52}, {"2025-2", 62}, {"2025-3", 66}};
  for (const auto& [release, problems] : packs) {
    int with_refs = 0;
    for (const PackProblem& p : problems) {
      if (!p.has_refs) continue;
      ++with_refs;
      ASSERT_FALSE(p.baseline.empty()) << release << " " << p.task_id;
      SourceRefCheck r = check_source_references(p.refs, p.baseline);
      EXPECT_TRUE(r.passed) << release << " " << p.task_id << ": missing "
                            << (r.missing_all.empty() ? "" : r.missing_all.front())
                            << (r.any_missing ? " (any)" : "");
    }
    EXPECT_EQ(with_refs, expected_with_refs.at(release)) << release;
  }
}

TEST(RealPacks, HidingEachRefInACommentFailsTheCheck) {
  auto packs = load_packs();
  if (packs.empty()) GTEST_SKIP() << "no packs under " << kPackDir;
  int checked = 0;
  for (const auto& [release, problems] : packs) {
    for (const PackProblem& p : problems) {
      if (!p.has_refs) continue;
      const std::string where = release + " " + p.task_id;
      for (const std::string& ref : p.refs.all) {
        for (auto [before, after] :
             {std::pair<std::string, std::string>{"/* ", " */"}, {"// ", "\n"}}) {
          SourceRefCheck r =
              check_source_references(p.refs, hide_all(p.baseline, {ref}, before, after));
          EXPECT_FALSE(r.passed) << where << " " << ref;
          EXPECT_EQ(r.missing_all, std::vector<std::string>{ref}) << where;
          ++checked;
        }
      }
      if (!p.refs.any.empty()) {
        SourceRefCheck r =
            check_source_references(p.refs, hide_all(p.baseline, p.refs.any, "/* ", " */"));
        EXPECT_FALSE(r.passed) << where;
        EXPECT_TRUE(r.any_missing) << where;
        EXPECT_TRUE(r.missing_all.empty()) << where;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 180);
}

}  // namespace
}  // namespace kjudge
