// The static pass over solution sources (eval/static_flags.h): every program of the cheat corpus
// (tests/cheats/manifest.tsv) gets the flags its line names; each rule fires on a snippet and
// not on the same words in a comment or a harmless string; no ComputeEval baseline (every shared
// release) and no example task submission is flagged; the flags reach results.jsonl lines, task
// stages and the report.
#include "eval/static_flags.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/datapack.h"
#include "core/input_error.h"
#include "eval/graded_json.h"
#include "report/render.h"
#include "report/run_data.h"
#include "task/run.h"
#include "test_util.h"
#include "triton/data/tritonbench.h"
#include "triton/judge/eval.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const fs::path kCheats = kSource / "tests/cheats";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in) << p;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

std::set<std::string> codes(const std::vector<StaticFlag>& flags) {
  std::set<std::string> out;
  for (const auto& f : flags) out.insert(f.code);
  return out;
}

std::string listing(const std::vector<StaticFlag>& flags) {
  std::string s;
  for (const auto& f : flags)
    s += "  " + f.file + ":" + std::to_string(f.line) + " " + f.code + " " + f.reason + "\n";
  return s.empty() ? "  (none)\n" : s;
}

// Flags of one snippet, as file `name` under `path`'s rules.
std::vector<StaticFlag> scan(const std::string& text, TimedPath path = TimedPath::task,
                             const std::string& name = "submission.cu") {
  StaticContext ctx;
  ctx.path = path;
  return static_flags({{name, text}}, ctx);
}

// ---- The corpus --------------------------------------------------------------------------------

struct CorpusLine {
  std::string file, path, target, forbidden, flags, verdict, where;
};

std::vector<CorpusLine> corpus() {
  std::vector<CorpusLine> out;
  for (const auto& line : split(read(kCheats / "manifest.tsv"), '\n')) {
    if (line.empty() || line[0] == '#') continue;
    auto c = split(line, '\t');
    EXPECT_EQ(c.size(), 7u) << "manifest line: " << line;
    if (c.size() != 7) continue;
    out.push_back({c[0], c[1], c[2], c[3], c[4], c[5], c[6]});
  }
  return out;
}

StaticContext context_of(const CorpusLine& c) {
  if (c.path == "task") return task_context(load_task(kSource / c.target));
  if (c.path == "computeeval") {
    LoadReport report;
    std::vector<Problem> ps = read_problems_any(kSource / c.target, &report);
    EXPECT_EQ(ps.size(), 1u) << c.target;
    return ps.empty() ? StaticContext{} : computeeval_context(ps[0]);
  }
  StaticContext ctx;
  ctx.path = TimedPath::triton;
  if (c.forbidden != "-") ctx.forbidden = split(c.forbidden, ',');
  return ctx;
}

TEST(CheatCorpus, HasEveryKnownPatternAndEnoughPrograms) {
  const auto lines = corpus();
  EXPECT_GE(lines.size(), 12u);
  std::set<std::string> files;
  for (const auto& c : lines) {
    EXPECT_TRUE(fs::is_regular_file(kCheats / c.file)) << c.file;
    EXPECT_TRUE(files.insert(c.file).second) << c.file << " listed twice";
    EXPECT_TRUE(c.path == "task" || c.path == "computeeval" || c.path == "triton") << c.file;
    for (const auto& part : split(c.where, '+'))
      EXPECT_TRUE(part == "cpu" || part == "device" || part == "build") << c.file;
    EXPECT_EQ(c.where.find("cpu") != std::string::npos, c.flags != "-")
        << c.file << ": a cpu claim is a flag, and a flag is a cpu claim";
  }
  // DESIGN.md's "Cheats a judge must catch", each by at least one program.
  for (const char* pattern :
       {"side_stream", "background_thread", "deferred", "patched_timer", "cache_by_pointer",
        "cache_by_content", "stale_buffer", "write_input", "nan_output", "loose_tolerance",
        "lower_precision", "forge_channel", "forge_time", "seed_regen", "persist_l2"}) {
    bool found = false;
    for (const auto& c : lines) found = found || c.file.find(pattern) != std::string::npos;
    EXPECT_TRUE(found) << "no corpus program for " << pattern;
  }
}

TEST(CheatCorpus, EveryProgramGetsTheFlagsItsLineNames) {
  for (const auto& c : corpus()) {
    const std::vector<StaticFlag> flags = static_flags(
        {{fs::path(c.file).filename().string(), read(kCheats / c.file)}}, context_of(c));
    const std::set<std::string> got = codes(flags);
    if (c.flags == "-") continue;
    for (const auto& want : split(c.flags, ','))
      EXPECT_TRUE(got.count(want)) << c.file << " lacks " << want << "; it got:\n"
                                   << listing(flags);
    for (const auto& f : flags) {
      EXPECT_GT(f.line, 0) << c.file;
      EXPECT_FALSE(f.reason.empty()) << c.file;
    }
  }
}

// ---- Stripping ---------------------------------------------------------------------------------

TEST(StripSource, CommentsGoLiteralsAreBlankedLinesStay) {
  const std::string src =
      "int a; // std::thread here\n"
      "/* cudaStreamCreate\n spans */ int b;\n"
      "const char* s = \"dlsym(\\\"x\\\")\";\n"
      "char q = '\"'; int c = 1'000'000;\n"
      "auto r = R\"x(/proc/self/maps\n\"still\")x\";\n"
      "int d;\n";
  StrippedSource s = strip_c_like(src);
  EXPECT_EQ(std::count(s.code.begin(), s.code.end(), '\n'),
            std::count(src.begin(), src.end(), '\n'));
  EXPECT_EQ(s.code.find("thread"), std::string::npos);
  EXPECT_EQ(s.code.find("cudaStreamCreate"), std::string::npos);
  EXPECT_EQ(s.code.find("dlsym"), std::string::npos);
  EXPECT_NE(s.code.find("1'000'000"), std::string::npos) << "a digit separator is not a quote";
  EXPECT_NE(s.code.find("int d;"), std::string::npos) << s.code;
  ASSERT_EQ(s.literals.size(), 2u);
  EXPECT_EQ(s.literals[0].line, 4);
  EXPECT_EQ(s.literals[0].text, "dlsym(\\\"x\\\")");
  EXPECT_EQ(s.literals[1].line, 6);
  EXPECT_EQ(s.literals[1].text, "/proc/self/maps\n\"still\"");
}

TEST(StripSource, PythonCommentsAndEveryStringForm) {
  const std::string src =
      "x = 1  # threading.Thread\n"
      "'''docstring: torch.manual_seed(0)\n"
      "still'''\n"
      "p = r\"/proc/self/maps\"; q = 'it\\'s'\n"
      "y = 2\n";
  StrippedSource s = strip_python(src);
  EXPECT_EQ(s.code.find("Thread"), std::string::npos);
  EXPECT_EQ(s.code.find("manual_seed"), std::string::npos);
  EXPECT_NE(s.code.find("y = 2"), std::string::npos);
  ASSERT_EQ(s.literals.size(), 3u);
  EXPECT_EQ(s.literals[1].text, "/proc/self/maps");
  EXPECT_EQ(s.literals[1].line, 4);
}

// An f-string's replacement fields are code (python_escape and the rules read them); its literal
// text, format spec, conversion and `{x=}`'s `=` are not.
TEST(StripSource, PythonFStringFieldsStayCode) {
  StrippedSource s =
      strip_python("x = f\"a {b!r:>{w}} {{c}} \\N{BULLET} {d=}\" + rf'{e}' + 'f{g}'\n");
  EXPECT_EQ(s.code, "x = f\"  {b r  {w}}" + std::string(18, ' ') + "{d }\" + rf'{e}' + '    '\n");
  ASSERT_EQ(s.literals.size(), 3u);
  EXPECT_EQ(s.literals[0].text, "a {b!r:>{w}} {{c}} \\N{BULLET} {d=}");
  // Python 3.12: a field may reuse its f-string's quote, and hold a nested f-string.
  s = strip_python("y = f\"{d[\"k\"] + f'{h}'}\" # {i}\n");
  EXPECT_EQ(s.code, "y = f\"{d[\" \"] + f'{h}'}\"  \n");
  // Fields nested past what Python compiles (150) are kept as code, not read by a recursion
  // as deep as they go.
  std::string deep = "x = ";
  for (int i = 0; i < 100000; ++i) deep += "f'{";
  EXPECT_NE(strip_python(deep + "os._exit(0)\n").code.find("os._exit(0)"), std::string::npos);
}

// ---- Each rule: fires on the construct, not on its name in a comment or a plain string ------

struct RuleCase {
  const char* code;
  TimedPath path;
  const char* file;
  const char* snippet;
};

TEST(StaticRules, EachRuleFiresOnItsConstruct) {
  const RuleCase cases[] = {
      {"stream_creation", TimedPath::task, "s.cu", "cudaStream_t s; cudaStreamCreate(&s);"},
      {"stream_creation", TimedPath::task, "s.cu", "k<<<1, 1, 0, cudaStreamPerThread>>>();"},
      {"stream_creation", TimedPath::triton, "s.py", "s = torch.cuda.Stream()"},
      {"thread", TimedPath::computeeval, "s.cu", "std::thread t([] {}); t.join();"},
      {"thread", TimedPath::computeeval, "s.cu", "pthread_create(&t, nullptr, f, nullptr);"},
      {"thread", TimedPath::computeeval, "s.cu", "auto f = std::async(std::launch::async, g);"},
      {"thread", TimedPath::triton, "s.py", "threading.Thread(target=f).start()"},
      {"thread", TimedPath::triton, "s.py", "import multiprocessing"},
      {"timer", TimedPath::task, "s.cu", "cudaEventElapsedTime(&ms, a, b);"},
      {"timer", TimedPath::task, "s.cu", "clock_gettime(CLOCK_MONOTONIC, &ts);"},
      {"timer", TimedPath::task, "s.cu", "auto t = std::chrono::steady_clock::now();"},
      {"timer", TimedPath::triton, "s.py", "t0 = time.perf_counter()"},
      {"timer_patch", TimedPath::task, "s.cu",
       "extern \"C\" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) "
       "{ *ms = 0; return cudaSuccess; }"},
      {"timer_patch", TimedPath::task, "s.cu", "#define cudaEventElapsedTime fake_elapsed"},
      {"timer_patch", TimedPath::triton, "s.py", "time.perf_counter = lambda: 0.0"},
      {"dlsym", TimedPath::task, "s.cu", "void* f = dlsym(RTLD_NEXT, name);"},
      {"dlsym", TimedPath::task, "s.cu", "void* h = dlopen(path, RTLD_NOW);"},
      {"dlsym", TimedPath::triton, "s.py", "lib = ctypes.CDLL(path)"},
      {"preload", TimedPath::task, "s.cu", "setenv(\"LD_PRELOAD\", \"/tmp/x.so\", 1);"},
      {"constructor", TimedPath::task, "s.cu", "__attribute__((constructor)) void early() {}"},
      {"constructor", TimedPath::task, "s.cu",
       "__attribute__((section(\".init_array\"))) void (*p)() = early;"},
      {"code_patch", TimedPath::task, "s.cu", "mprotect(page, 4096, PROT_READ | PROT_WRITE);"},
      {"code_patch", TimedPath::triton, "s.py", "for o in gc.get_objects(): pass"},
      {"code_patch", TimedPath::triton, "s.py", "threading._active.pop(worker.ident)"},
      {"code_patch", TimedPath::triton, "s.py", "runner = sys.modules['__main__']"},
      {"code_patch", TimedPath::triton, "s.py", "import __main__ as runner"},
      {"code_patch", TimedPath::triton, "s.py", "from __main__ import CudaTimer"},
      {"code_patch", TimedPath::triton, "s.py", "from kjudge_triton import timing"},
      {"early_exit", TimedPath::computeeval, "s.cu", "void fill(int*, int) { std::exit(0); }"},
      {"early_exit", TimedPath::computeeval, "s.cu", "exit(EXIT_SUCCESS);"},
      {"early_exit", TimedPath::computeeval, "s.cu", "_exit(1);"},
      {"early_exit", TimedPath::computeeval, "s.cu", "syscall(SYS_exit_group, 0);"},
      {"early_exit", TimedPath::triton, "s.py", "os._exit(0)"},
      {"early_exit", TimedPath::triton, "s.py", "sys.exit()"},
      {"proc_read", TimedPath::computeeval, "s.cu", "FILE* f = fopen(\"/proc/self/maps\", \"r\");"},
      {"proc_read", TimedPath::computeeval, "s.cu", "open(\"/sys/class/drm\", O_RDONLY);"},
      {"shm", TimedPath::task, "s.cu", "int fd = open(\"/dev/shm/cache\", O_RDWR);"},
      {"shm", TimedPath::triton, "s.py", "from multiprocessing import shared_memory"},
      {"environment", TimedPath::task, "s.cu", "const char* v = getenv(\"KJ\");"},
      {"environment", TimedPath::triton, "s.py", "v = os.environ['X']"},
      {"subprocess", TimedPath::task, "s.cu", "system(\"nvidia-smi -lgc 1980\");"},
      {"subprocess", TimedPath::triton, "s.py", "subprocess.run(['ls'])"},
      {"seed", TimedPath::computeeval, "s.cu", "srand(42);"},
      {"seed", TimedPath::computeeval, "s.cu", "std::mt19937 gen(1234);"},
      {"seed", TimedPath::computeeval, "s.cu", "curandSetPseudoRandomGeneratorSeed(g, 1234ULL);"},
      {"seed", TimedPath::triton, "s.py", "torch.manual_seed(seed)"},
      {"seed", TimedPath::triton, "s.py", "np.random.seed(0)"},
      {"input_regeneration", TimedPath::task, "s.cu", "kj::fill_uniform(t, 10, -1.0, 1.0);"},
      {"input_regeneration", TimedPath::task, "s.cu", "output_t want = ref_kernel(in);"},
      {"l2_persist", TimedPath::task, "s.cu",
       "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, n);"},
      {"l2_persist", TimedPath::task, "s.cu", "w.hitProp = cudaAccessPropertyPersisting;"},
      {"result_forge", TimedPath::computeeval, "s.cu",
       "printf(\"COMPUTE_EVAL_TIME_MS: %f\\n\", 0.001);"},
      {"result_forge", TimedPath::task, "s.cu", "const char* k = \"KJUDGE_RESULT_FD\";"},
      {"result_forge", TimedPath::task, "s.cu", "FILE* f = fdopen(3, \"w\");"},
      {"timing_region", TimedPath::computeeval, "s.cu", "nvtxRangePop();"},
      {"host_callback", TimedPath::task, "s.cu", "cudaLaunchHostFunc(0, cb, nullptr);"},
      {"result_cache", TimedPath::task, "s.cu",
       "static std::unordered_map<const float*, output_t> seen;"},
      {"result_cache", TimedPath::task, "s.cu", "std::map<void*, int> by_address;"},
      {"result_cache", TimedPath::triton, "s.py", "key = id(x)"},
      {"result_cache", TimedPath::triton, "s.py", "if x.data_ptr() in cache: pass"},
      {"result_cache", TimedPath::triton, "s.py", "@functools.lru_cache(None)"},
      {"host_readback", TimedPath::task, "s.cu", "cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost);"},
      {"host_readback", TimedPath::task, "s.cu", "auto v = in.a.to_host();"},
  };
  for (const auto& c : cases) {
    auto flags = scan(c.snippet, c.path, c.file);
    EXPECT_TRUE(codes(flags).count(c.code)) << c.code << " on: " << c.snippet << "\n"
                                            << listing(flags);
  }
}

TEST(StaticRules, CommentsAndHarmlessStringsNeverFlag) {
  // The same words as above, where they do nothing.
  const std::string cu =
      "// cudaStreamCreate(&s); std::thread t; cudaEventElapsedTime(&ms, a, b);\n"
      "/* dlsym(RTLD_NEXT, \"x\"); srand(42); __attribute__((constructor)) */\n"
      "const char* help = \"call cudaStreamCreate, std::thread, dlsym, getenv, srand(42), "
      "std::chrono, nvtxRangePop, cudaLimitPersistingL2CacheSize\";\n"
      "#include <thread>\n#include <chrono>\n#include <sys/mman.h>\n"
      "#include \"sys/proc_helpers.h\"\n"
      "const char* sub = \"solve_linear_system\"; char c = '\"';\n"
      "void solve_linear_system(int n);\n"
      "int asynchronously_named = 1; int timeout_ms = 0; float seed_scale = 2.0f;\n"
      "int values[] = {1'000, 2'000};\n"
      "if (err != cudaSuccess) exit(EXIT_FAILURE); else if (bad) std::exit(1);\n"
      "int on_exit_code = 0; void exit_region(int); exit_region(0);\n"
      "static kj::Tensor<float> scratch;  // scratch kept between calls, as fast.cu does\n"
      "curandSetPseudoRandomGeneratorSeed(gen, seed);\n"
      "thrust::default_random_engine rng;\n";
  auto flags = scan(cu, TimedPath::task, "ok.cu");
  EXPECT_TRUE(flags.empty()) << listing(flags);
  const std::string py =
      "# torch.cuda.Stream(); threading.Thread(); time.perf_counter()\n"
      "\"\"\"A docstring naming torch.manual_seed(0), gc.get_objects and os.environ.\"\"\"\n"
      "msg = 'time.perf_counter and subprocess are not used here'\n"
      "def custom_kernel(data):\n"
      "    a, b = data\n"
      "    return a + b  # id(a) would be a cache key\n"
      "if __name__ == \"__main__\":\n"
      "    print(custom_kernel((1, 2)))  # run as a script: not the runner\n";
  flags = scan(py, TimedPath::triton, "ok.py");
  EXPECT_TRUE(flags.empty()) << listing(flags);
}

TEST(StaticRules, StringsFlagOnlyWhereTheStringIsTheAttack) {
  // A /proc path, an injection variable and a channel marker are the attack even as strings;
  // an API's name in a message is not.
  EXPECT_TRUE(codes(scan("auto p = \"/proc/self/mem\";")).count("proc_read"));
  EXPECT_TRUE(codes(scan("auto p = \"CUDA_INJECTION64_PATH\";")).count("preload"));
  EXPECT_TRUE(codes(scan("auto p = \"KJ1 abc check pass\";")).count("result_forge"));
  EXPECT_TRUE(scan("auto p = \"use /process/ and /system/ here; KJ12\";").empty());
  EXPECT_TRUE(scan("auto p = \"cudaStreamCreate failed\";").empty());
}

TEST(StaticRules, PathsDecideWhatAStreamOrATimerMeans) {
  const std::string stream = "cudaStream_t s; cudaStreamCreate(&s);";
  EXPECT_TRUE(codes(scan(stream, TimedPath::task)).count("stream_creation"));
  // ComputeEval: the profiler times every stream, and problems ask for streams.
  EXPECT_TRUE(scan(stream, TimedPath::computeeval).empty());
  // A ComputeEval prompt about performance asks the solution to time itself.
  StaticContext ce;
  ce.path = TimedPath::computeeval;
  const std::vector<SourceFile> timer = {{"s.cu", "cudaEventElapsedTime(&ms, a, b);"}};
  EXPECT_TRUE(codes(static_flags(timer, ce)).count("timer"));
  ce.problem_text = "Compare the performance of standard calls versus graph execution.";
  EXPECT_TRUE(static_flags(timer, ce).empty());
}

TEST(StaticRules, EveryHeaderASolutionCanIncludeIsRead) {
  // The rules on what a solution may bring take these as C-like code; the flags read them too,
  // whatever the extension's case (a `.tcc` or `.HPP` file included by the solution).
  const std::string l2 = "attrs[0].id = cudaLaunchAttributeAccessPolicyWindow;\n";
  for (const char* name : {"detail.tcc", "impl.HPP", "k.Cu", "x.tpp", "y.cuinc", "z.h++"})
    EXPECT_EQ(codes(scan(l2, TimedPath::task, name)), std::set<std::string>{"l2_persist"}) << name;
  EXPECT_TRUE(scan(l2, TimedPath::task, "notes.txt").empty());
}

TEST(StaticRules, WhatTheProblemAsksForIsNotFlagged) {
  // ComputeEval CUDA/186 asks for access-policy windows by name.
  const std::vector<SourceFile> src = {
      {"s.cu",
       "attrs[0].id = cudaLaunchAttributeAccessPolicyWindow;\n"
       "attrs[0].val.accessPolicyWindow.hitProp = cudaAccessPropertyStreaming;\n"}};
  StaticContext ctx;
  EXPECT_EQ(codes(static_flags(src, ctx)), std::set<std::string>{"l2_persist"});
  ctx.problem_text =
      "Set attribute id to cudaLaunchAttributeAccessPolicyWindow; configure "
      "the fields of accessPolicyWindow.";
  EXPECT_TRUE(static_flags(src, ctx).empty());
}

TEST(StaticRules, SeedsOfThePublicTestsAreNamed) {
  StaticContext ctx;
  ctx.public_seeds = {"4242"};
  auto flags = static_flags({{"s.cu", "std::mt19937 gen(4242);\nsrand(7);\n"}}, ctx);
  ASSERT_EQ(flags.size(), 2u) << listing(flags);
  EXPECT_NE(flags[0].reason.find("the public tests use seed 4242"), std::string::npos);
  EXPECT_EQ(flags[1].reason.find("public tests"), std::string::npos);
  EXPECT_EQ(flags[1].line, 2);
}

TEST(StaticRules, ForbiddenNamesMatchAsDocumented) {
  StaticContext ctx;
  ctx.path = TimedPath::triton;
  ctx.forbidden = {"torch.matmul", "cublas"};
  auto flags = static_flags({{"s.py",
                              "import torch\n"
                              "c = torch.matmul(a, b)\n"
                              "d = torch.matmul_like(a)\n"  // another name: not forbidden
                              "# torch.matmul in a comment\n"
                              "h = ctypes.CDLL('libcublasLt.so')\n"},
                             {"k.cu", "#include <cublas_v2.h>\ncublasSgemm(h, CUBLAS_OP_N);\n"}},
                            ctx);
  std::vector<std::pair<std::string, int>> where;
  for (const auto& f : flags)
    if (f.code == "forbidden") where.emplace_back(f.file, f.line);
  EXPECT_EQ(where, (std::vector<std::pair<std::string, int>>{
                       {"s.py", 2}, {"s.py", 5}, {"k.cu", 1}, {"k.cu", 2}}))
      << listing(flags);
}

// ---- No false positives --------------------------------------------------------------------

const fs::path kDatasets = kSource / "../shared/datasets/compute-eval";

TEST(StaticFalsePositives, NoComputeEvalBaselineIsFlagged) {
  int packs = 0;
  for (const char* release : {"2025-1", "2025-2", "2025-3"}) {
    const fs::path pack = kDatasets / (std::string(release) + "-problems.tar.gz");
    if (!fs::exists(pack)) continue;
    ++packs;
    LoadReport report;
    ProblemPack p = read_problem_pack(pack, &report);
    int baselines = 0;
    std::map<std::string, int> by_rule;
    std::string where;
    for (const Problem& prob : p.problems) {
      if (!prob.baseline_solution) continue;
      ++baselines;
      for (const auto& f : static_flags(prob.baseline_solution->files, computeeval_context(prob))) {
        by_rule[f.code]++;
        where += "  " + prob.task_id + " " + f.file + ":" + std::to_string(f.line) + " " + f.code +
                 " " + f.reason + "\n";
      }
    }
    EXPECT_GT(baselines, 100) << release;
    EXPECT_TRUE(where.empty()) << release << " baselines flagged:\n" << where;
    std::printf("[ static  ] %s: %d baselines, %zu rules fired\n", release, baselines,
                by_rule.size());
  }
  if (packs == 0) GTEST_SKIP() << "shared datasets missing: " << kDatasets;
}

// The references of TritonBench are real repositories' operators, not solutions: what the pass
// flags there is what a candidate that copies them would carry. Pinned: 4 references seed torch
// themselves at import (line 7 of rms_rbe_matmul, rbe_triton_transform, rmsnorm_triton,
// rms_matmul_rbe: torch.manual_seed(1234) above the operator), and nothing else fires.
TEST(StaticFalsePositives, TritonReferencesAsCandidates) {
  const fs::path data = kSource / "../shared/datasets/tritonbench";
  if (!fs::exists(data)) GTEST_SKIP() << "shared datasets missing: " << data;
  const triton::TritonBench bench = triton::load_tritonbench(data);
  std::map<std::string, int> by_rule;
  int flagged = 0, total = 0;
  std::string where;
  for (const triton::TritonOperator& op : bench.operators) {
    if (op.channel != triton::TritonChannel::G) continue;
    ++total;
    const std::vector<StaticFlag> flags =
        triton::triton_static_flags({&op, op.reference_code, 0, "self"});
    if (!flags.empty()) ++flagged;
    for (const StaticFlag& f : flags) {
      by_rule[f.code]++;
      where += "  " + f.file + ":" + std::to_string(f.line) + " " + f.code + " " + f.reason + "\n";
    }
  }
  std::string rules;
  for (const auto& [code, n] : by_rule) rules += " " + code + "=" + std::to_string(n);
  std::printf("[ static  ] TritonBench G: %d of %d references flagged:%s\n%s", flagged, total,
              rules.c_str(), where.c_str());
  EXPECT_EQ(total, 184);
  EXPECT_EQ(flagged, 4) << where;
  EXPECT_EQ(by_rule, (std::map<std::string, int>{{"seed", 4}})) << where;
}

TEST(StaticFalsePositives, NoExampleTaskSubmissionIsFlagged) {
  int n = 0;
  for (const auto& task : fs::directory_iterator(kSource / "examples/tasks")) {
    const StaticContext ctx = task_context(load_task(task.path()));
    for (const auto& sub : fs::directory_iterator(task.path() / "submissions")) {
      // cheat-*.cu are cheats that must fail by their verdict (loose tolerance), not honest code.
      if (sub.path().filename().string().rfind("cheat-", 0) == 0) continue;
      auto flags = static_flags({{sub.path().filename().string(), read(sub.path())}}, ctx);
      EXPECT_TRUE(flags.empty()) << sub.path() << "\n" << listing(flags);
      ++n;
    }
  }
  EXPECT_GE(n, 10);
}

TEST(StaticFalsePositives, TheExamplePackBaselinesAreClean) {
  LoadReport report;
  int n = 0;
  for (const Problem& p : read_problems_any(kSource / "examples/pack", &report)) {
    if (!p.baseline_solution) continue;
    auto flags = static_flags(p.baseline_solution->files, computeeval_context(p));
    EXPECT_TRUE(flags.empty()) << p.task_id << "\n" << listing(flags);
    ++n;
  }
  EXPECT_GE(n, 5);
}

// ---- Task spec: forbidden -----------------------------------------------------------------------

TEST(TaskSpecForbidden, ReadsNamesAndRefusesOthers) {
  const TaskSpec t = load_task(kCheats / "tasks/vectoradd-forbidden");
  EXPECT_EQ(t.forbidden, (std::vector<std::string>{"cublas", "cublasLt"}));
  TempDir dir;
  testing::write_text(dir / "task.h", "#pragma once\n");
  testing::write_text(dir / "task.yml",
                      "lang: cu\nfiles:\n  - {name: task.h, source: task.h}\n"
                      "  - {name: s.cu, source: \"@SUBMISSION@\"}\n"
                      "tests:\n  - {size: 1, seed: 1}\nforbidden: [torch.matmul, \"rm -rf\"]\n");
  try {
    load_task(dir.path());
    ADD_FAILURE() << "a forbidden entry that is not a name was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("forbidden"), std::string::npos) << e.what();
  }
}

// ---- Into the records ----------------------------------------------------------------------

TEST(StaticFlagsInRecords, ResultLinesCarryAndKeepThem) {
  GradedSolution g;
  g.task_id = "CUDA/1";
  g.verdict = Verdict::pass;
  g.flags = scan("std::thread t(f);\n", TimedPath::computeeval, "solution.cu");
  ASSERT_EQ(g.flags.size(), 1u);
  nlohmann::json j = graded_to_json(g);
  ASSERT_TRUE(j.contains("cheat_flags"));
  EXPECT_EQ(j["cheat_flags"][0]["check"], "thread");
  EXPECT_EQ(j["cheat_flags"][0]["file"], "solution.cu");
  EXPECT_EQ(j["cheat_flags"][0]["line"], 1);
  EXPECT_EQ(j["cheat_flags"][0]["source"], "static");
  GradedSolution back = graded_from_json(j);  // a resumed run keeps them
  ASSERT_EQ(back.flags.size(), 1u);
  EXPECT_EQ(back.flags[0].code, "thread");
  EXPECT_EQ(back.flags[0].line, 1);
  GradedSolution clean;
  clean.task_id = "CUDA/2";
  EXPECT_FALSE(graded_to_json(clean).contains("cheat_flags")) << "absent when there are none";
}

// A stand-in harness (as in task_run_test.cpp) that reports one passing benchmark with the
// given event and host times, beside a submission file in the workspace.
task::TaskBuild fake_build(const fs::path& dir, const std::string& submission, double event_ns,
                           double host_ns) {
  testing::write_text(dir / "submission.cu", submission);
  const std::string script =
      "#!/bin/sh\nch=/proc/self/fd/$KJUDGE_RESULT_FD\nnonce=$(head -n1 $ch)\n: > $ch\n"
      "w() { echo \"KJ1 $nonce $*\" >> $ch; }\n"
      "w mode $1\nw benchmark-count 1\nw warmup-calls 3\nw benchmark.0.spec 'size: 100; seed: 7'\n"
      "w benchmark.0.times_ns " +
      std::to_string(event_ns) + "," + std::to_string(event_ns) + "," + std::to_string(event_ns) +
      "\nw benchmark.0.host_ns " + std::to_string(host_ns) + "," + std::to_string(host_ns) + "," +
      std::to_string(host_ns) +
      "\nw benchmark.0.checked 1\nw benchmark.0.stop precise\nw benchmark.0.status pass\n"
      "w check pass\nw end 10\n";
  testing::write_text(dir / "kjudge_task", script);
  fs::permissions(dir / "kjudge_task", fs::perms::owner_all);
  task::TaskBuild b;
  b.ok = true;
  b.workspace = dir;
  b.binary = dir / "kjudge_task";
  return b;
}

TaskSpec fake_task() {
  TaskSpec t;
  t.name = "fake";
  t.lang = "cu";
  t.files = {{"submission.cu", {}, true}};
  t.tests = {{{{"size", "3"}, {"seed", "5"}}, 1}};
  t.benchmarks = {{{{"size", "100"}, {"seed", "7"}}, 2}};
  t.benchmark_timeout_s = 10;
  t.forbidden = {"cublas"};
  return t;
}

task::TaskRunOptions plain() {
  task::TaskRunOptions o;
  o.step.sandbox = false;
  o.step.log_cap = 16 * 1024;
  o.profiler = fs::path();  // the stand-in harness is a shell script: no CUPTI profiler
  return o;
}

// A Triton candidate's line and the run's summary carry the pass's flags; what the operator's
// instruction asks for is not one.
TEST(StaticFlagsInRecords, TritonResultLinesAndSummaryCarryThem) {
  triton::TritonOperator op;
  op.name = "add_example";
  op.file = "add_example.py";
  op.difficulty = 1;
  op.simple_instruction = "Write an add kernel.";
  op.test_code = "torch.manual_seed(1234)\nresult_gold = test_add()\n";
  const std::string code =
      "import torch, time\n"
      "side = torch.cuda.Stream()\n"
      "def add(x, y):\n"
      "    t0 = time.perf_counter()\n"
      "    torch.manual_seed(1234)\n"
      "    return x + y\n";
  triton::TritonEvalResult res;
  triton::TritonJobResult& r = res.results.emplace_back();
  r.job = {&op, code, 0, "self"};
  r.flags = triton::triton_static_flags(r.job);
  std::set<std::string> codes;
  for (const StaticFlag& f : r.flags) {
    codes.insert(f.code);
    EXPECT_EQ(f.file, "add_example.py");
  }
  EXPECT_EQ(codes, (std::set<std::string>{"stream_creation", "timer", "seed"}));
  const nlohmann::ordered_json line = triton::triton_result_json(r);
  ASSERT_TRUE(line.contains("cheat_flags"));
  EXPECT_EQ(line["cheat_flags"].size(), r.flags.size());
  EXPECT_EQ(line["cheat_flags"][0]["source"], "static");
  const nlohmann::ordered_json summary =
      triton::triton_summary_json(res, nlohmann::ordered_json::object());
  ASSERT_EQ(summary["flagged"].size(), 1u);
  EXPECT_EQ(summary["flagged"][0]["operator"], "G/add_example");
  EXPECT_EQ(summary["flagged"][0]["checks"],
            nlohmann::ordered_json({"seed", "stream_creation", "timer"}));
  // The public seed is named as one; a stream the instruction asks for is no flag.
  bool named = false;
  for (const StaticFlag& f : r.flags)
    if (f.code == "seed") named = f.reason.find("public") != std::string::npos;
  EXPECT_TRUE(named);
  op.simple_instruction += " Run it on a side stream made with torch.cuda.Stream().";
  codes.clear();
  for (const StaticFlag& f : triton::triton_static_flags(r.job)) codes.insert(f.code);
  EXPECT_EQ(codes.count("stream_creation"), 0u);
  // A clean candidate has no `cheat_flags` at all.
  r.job.code = "def add(x, y):\n    return x + y\n";
  r.flags = triton::triton_static_flags(r.job);
  EXPECT_FALSE(triton::triton_result_json(r).contains("cheat_flags"));
}

TEST(StaticFlagsInRecords, TaskStagesCarryStaticAndTimingFlags) {
  TempDir dir;
  task::TaskBuild b =
      fake_build(dir.path(), "cudaStream_t s;\ncudaStreamCreate(&s);\ncublasSaxpy();\n", 10e3,
                 2e6);  // 10 µs on the events, 2 ms on the host clock
  task::ModeRun r = task::run_task_mode(fake_task(), b, "benchmark", plain());
  ASSERT_TRUE(r.completed) << r.failure << r.log;
  EXPECT_EQ(codes(r.flags), (std::set<std::string>{"stream_creation", "forbidden"}));
  nlohmann::json j = to_json(r, fake_task());
  ASSERT_TRUE(j.contains("cheat_flags")) << j.dump(2);
  std::set<std::string> checks;
  for (const auto& f : j["cheat_flags"]) checks.insert(f["check"].get<std::string>());
  EXPECT_EQ(checks, (std::set<std::string>{"stream_creation", "forbidden", "timing_gap"}));
  EXPECT_NE(j["cheat_flags"].back()["detail"].get<std::string>().find("size: 100; seed: 7"),
            std::string::npos);

  TempDir honest;
  task::TaskBuild h = fake_build(honest.path(), "__global__ void k() {}\n", 900e3, 950e3);
  task::ModeRun hr = task::run_task_mode(fake_task(), h, "benchmark", plain());
  ASSERT_TRUE(hr.completed) << hr.failure;
  EXPECT_FALSE(to_json(hr, fake_task()).contains("cheat_flags"));
}

TEST(TimingGap, OnlyAGapNoLaunchOverheadExplains) {
  EXPECT_FALSE(task::timing_gap(1e6, 1.05e6)) << "1 ms of GPU work, a 50 µs synchronize";
  EXPECT_FALSE(task::timing_gap(3e3, 40e3)) << "a 3 µs kernel, launch and synchronize costs";
  EXPECT_FALSE(task::timing_gap(200e3, 700e3)) << "3.5×: a launch-heavy call";
  EXPECT_TRUE(task::timing_gap(5e3, 2e6)) << "2 ms somewhere the events did not see";
  EXPECT_TRUE(task::timing_gap(0, 600e3));
}

TEST(StaticFlagsInRecords, TheReportShowsWhereEachFlagIs) {
  TempDir run;
  GradedSolution g;
  g.task_id = "CUDA/1";
  g.group = "cuda-kernels";
  g.verdict = Verdict::pass;
  g.flags = scan("x;\ny;\nsrand(42);\n", TimedPath::computeeval, "solution.cu");
  testing::write_text(run / "results.jsonl", graded_to_json(g).dump() + "\n");
  testing::write_text(run / "run.json", "{}\n");
  report::RunData data = report::load_run(run.path(), {});
  const std::string html = report::html_report(data);
  const std::string md = report::markdown_report(data);
  for (const std::string& text : {html, md}) {
    EXPECT_NE(text.find("seed: seeds a random generator"), std::string::npos) << text;
    EXPECT_NE(text.find("(solution.cu:3)"), std::string::npos);
  }
}

}  // namespace
}  // namespace kjudge
