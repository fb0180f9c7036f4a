// The main guard on real programs: small C programs built here with the host compiler, run with
// libkjudge_main_guard.so preloaded exactly as a test step runs them (run/main_return.h), and
// the evaluator failing a host-only problem whose solution exits before the test's checks, and
// refusing one whose program runs code of its own ahead of the guard.
#include "run/main_return.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/step_runner.h"
#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

TEST(MainReturn, TheRecordMustCarryTheNonce) {
  EXPECT_EQ(parse_main_return("", "n1"), std::nullopt);
  EXPECT_EQ(parse_main_return("kjudge-main n1 returned 0\n", "n1"), 0);
  EXPECT_EQ(parse_main_return("kjudge-main n1 returned -3\n", "n1"), -3);
  for (const char* bad :
       {"kjudge-main n2 returned 0\n", "kjudge-main n1 returned 0", "kjudge-main n1 returned x\n",
        "kjudge-main n1 returned \n", "PASS\nkjudge-main n1 returned 0\n",
        "kjudge-main n1 returned 0\nkjudge-main n1 returned 0\n"})
    EXPECT_THROW(parse_main_return(bad, "n1"), std::runtime_error) << bad;
}

TEST(MainReturn, OnlyAZeroExitIsQuestioned) {
  EXPECT_EQ(main_return_problem("kjudge-main n returned 0\n", "n", 0), std::nullopt);
  EXPECT_EQ(main_return_problem("", "n", 1), std::nullopt) << "a failing run fails anyway";
  auto early = main_return_problem("", "n", 0);
  ASSERT_TRUE(early);
  EXPECT_NE(early->find("before its main() returned"), std::string::npos) << *early;
  auto changed = main_return_problem("kjudge-main n returned 1\n", "n", 0);
  ASSERT_TRUE(changed);
  EXPECT_NE(changed->find("main() returned 1"), std::string::npos) << *changed;
  // 256 leaves an exit status of 0: what the process reports, not what main said, is compared.
  EXPECT_EQ(main_return_problem("kjudge-main n returned 256\n", "n", 0), std::nullopt);
  auto forged = main_return_problem("kjudge-main guess returned 0\n", "n", 0);
  ASSERT_TRUE(forged);
  EXPECT_NE(forged->find("wrote to the judge's channel"), std::string::npos) << *forged;
}

// Builds `source` (C) into `dir`/`name` with the host compiler.
void build_c(const fs::path& dir, const std::string& name, const std::string& source,
             const std::string& flags = "") {
  testing::write_text(dir / (name + ".c"), source);
  auto r = testing::run_capture("cc -O1 -pthread " + flags + " -o " + (dir / name).string() + " " +
                                (dir / (name + ".c")).string());
  ASSERT_EQ(r.rc, 0) << r.out;
}

class MainGuardRun : public ::testing::Test {
 protected:
  void SetUp() override {
    lib_ = locate_main_guard();
    ASSERT_FALSE(lib_.empty()) << "libkjudge_main_guard.so is built beside the test binary";
  }

  struct Outcome {
    ProcessResult r;
    std::optional<std::string> problem;
  };

  // Runs ./prog ARGS in the workspace as a guarded test step (no sandbox).
  Outcome run(const std::string& command, bool sandbox = false) {
    StepSettings settings;
    settings.sandbox = sandbox;
    MachineInfo machine;
    machine.cpu_count = 2;
    MainGuard guard(lib_);
    StepExtras extras;
    extras.argv = simple_command(command)->argv;
    extras.env = guard.env();
    extras.preload.push_back(guard.library());
    extras.inherit_fds.push_back(guard.fd());
    Outcome o;
    o.r = run_step(settings, machine, command, dir_.path(), 20, extras);
    o.problem = guard.problem(o.r.exit_code);
    return o;
  }

  testing::TempDir dir_;
  fs::path lib_;
};

const char* kProgram = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void* exit_from_thread(void* arg) { (void)arg; _exit(0); return NULL; }
static const char* how = "";
static void change_status(void) { if (!strcmp(how, "atexit")) _exit(0); }

/* The "solution": what a cheat does instead of the work. */
static int solve(const char* mode) {
  if (!strcmp(mode, "exit")) exit(0);
  if (!strcmp(mode, "_exit")) _exit(0);
  if (!strcmp(mode, "quick_exit")) quick_exit(0);
  if (!strcmp(mode, "syscall")) syscall(SYS_exit_group, 0);
  if (!strcmp(mode, "thread")) {
    pthread_t t;
    pthread_create(&t, NULL, exit_from_thread, NULL);
    pthread_join(t, NULL);
  }
  if (!strcmp(mode, "forge")) {
    for (int fd = 3; fd < 1024; ++fd) (void)!write(fd, "kjudge-main x returned 0\n", 25);
    exit(0);
  }
  if (!strcmp(mode, "fork")) {
    /* A child that returns from main is not the test: its line must not count. */
    pid_t pid = fork();
    if (pid == 0) return 42;
    waitpid(pid, NULL, 0);
    exit(0);
  }
  return 42;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  how = mode;
  atexit(change_status);
  if (!strcmp(mode, "env")) {
    /* The channel is not the program's to see, nor a child's. */
    if (getenv("KJUDGE_MAIN_FD") || getenv("KJUDGE_MAIN_NONCE")) return 3;
    FILE* f = fopen("/proc/self/environ", "r");
    char buf[65536];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    for (size_t i = 0; i + 11 < n; ++i)
      if (!memcmp(buf + i, "KJUDGE_MAIN", 11)) return 4;
    return system("env | grep -q KJUDGE_MAIN") == 0 ? 5 : 0;
  }
  if (!strcmp(mode, "atexit")) return 1; /* main says fail; the exit handler says 0 */
  int r = solve(mode);
  printf("solve() = %d\n", r);
  return r == 42 ? 0 : 1;
}
)";

TEST_F(MainGuardRun, AnHonestProgramPassesAndEveryEarlyExitIsCaught) {
  build_c(dir_.path(), "test.out", kProgram);
  auto honest = run("./test.out");
  EXPECT_EQ(honest.r.exit_code, 0) << honest.r.output;
  EXPECT_EQ(honest.problem, std::nullopt) << *honest.problem;

  for (const char* mode : {"exit", "_exit", "quick_exit", "syscall", "thread", "fork"}) {
    auto o = run(std::string("./test.out ") + mode);
    EXPECT_EQ(o.r.exit_code, 0) << mode << ": the cheat itself exits 0\n" << o.r.output;
    ASSERT_TRUE(o.problem) << mode;
    EXPECT_NE(o.problem->find("before its main() returned"), std::string::npos)
        << mode << ": " << *o.problem;
  }
  // A line without the nonce does not count. (Its writes may also land on descriptors the
  // process inherited and end it otherwise: any way, it does not pass.)
  auto forged = run("./test.out forge");
  EXPECT_TRUE(forged.r.exit_code != 0 || forged.r.signal != 0 || forged.problem)
      << "exit " << forged.r.exit_code << " signal " << forged.r.signal << "\n"
      << forged.r.output;
  auto changed = run("./test.out atexit");
  EXPECT_EQ(changed.r.exit_code, 0);
  ASSERT_TRUE(changed.problem);
  EXPECT_NE(changed.problem->find("main() returned 1"), std::string::npos) << *changed.problem;
  auto env = run("./test.out env");
  EXPECT_EQ(env.r.exit_code, 0) << "3: getenv, 4: /proc/self/environ, 5: a child's environment";
  EXPECT_EQ(env.problem, std::nullopt);
}

// A solution whose own .preinit_array entry runs before the guard's constructor (the loader
// runs the program's entries first), keeps the channel named in the environment and the nonce
// still in it, and later forges the guard's line and exits 0
// (tests/cheats/computeeval/…/forge_main_preinit).
const char* kPreinitForge = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int channel = -1;
static char nonce[128];
static void early(int argc, char** argv, char** envp) {
  (void)argc; (void)argv;
  const char* fd = NULL;
  for (char** e = envp; *e; ++e)
    if (!strncmp(*e, "KJUDGE_MAIN_FD=", 15)) fd = *e + 15;
  if (!fd) return;
  channel = dup(atoi(fd));
  ssize_t got = pread(channel, nonce, sizeof nonce - 1, 0);
  nonce[got > 0 ? got : 0] = 0;
  if (strchr(nonce, '\n')) *strchr(nonce, '\n') = 0;
}
__attribute__((section(".preinit_array"), used)) static void (*entry)(int, char**, char**) = early;
int solve(void) {
  if (channel >= 0) dprintf(channel, "kjudge-main %s returned 0\n", nonce);
  _exit(0);
}
)";

// An IFUNC of the solution's own: its resolver runs while the loader relocates the program.
const char* kIfuncSolution = R"(static int impl(void) { return 42; }
static void* pick(void) { return (void*)impl; }
int solve(void) __attribute__((ifunc("pick")));
)";

const char* kTestMain =
    "#include <stdio.h>\nint solve(void);\nint main(void) {\n"
    "  int r = solve();\n  printf(\"solve() = %d\\n\", r);\n"
    "  return r == 42 ? 0 : 1;\n}\n";

// The hole the evaluator's start-code check closes: run as it is, the preinit forge passes the
// guard without ever reaching the test's checks.
TEST_F(MainGuardRun, CodeTheLoaderRunsAheadOfTheGuardCanForgeItsLine) {
  testing::write_text(dir_ / "main.c", kTestMain);
  build_c(dir_.path(), "test.out", kPreinitForge, (dir_ / "main.c").string());
  auto o = run("./test.out");
  EXPECT_EQ(o.r.exit_code, 0) << o.r.output;
  EXPECT_EQ(o.r.output.find("solve() ="), std::string::npos) << "the test never checked";
  EXPECT_EQ(o.problem, std::nullopt) << "the forged line passed: " << o.problem.value_or("");
}

TEST_F(MainGuardRun, WorksInsideTheSandbox) {
  SandboxPolicy probe;
  probe.workspace = dir_.path();
  std::string why;
  if (!sandbox_available(probe, &why)) GTEST_SKIP() << "bubblewrap unusable here: " << why;
  build_c(dir_.path(), "test.out", kProgram);
  auto honest = run("./test.out", true);
  EXPECT_EQ(honest.r.exit_code, 0) << honest.r.output << honest.r.error;
  EXPECT_EQ(honest.problem, std::nullopt) << *honest.problem;
  auto early = run("./test.out exit", true);
  EXPECT_TRUE(early.problem);
}

// Issue 31: a solution that defines a name of libc's (getenv, write, snprintf, fcntl, close,
// getpid, strtol) replaces libc's for the guard too, wherever the guard calls it through the
// dynamic linker. The hostile corpus's define_* probes, built with the hostile problem's own test
// (solve() must return 42; each answers wrong and forges "returned 0" if its hook got what it
// wanted), fail with and without the sandbox: the guard calls nothing of libc's but dlsym. Its
// nonce_* probes, which look for the nonce in command lines, environments, descriptors and other
// processes' memory, fail in the sandbox and find nothing to forge with there. (Without the
// sandbox a step sees the whole host, the judge's own memory included: no secret is safe there,
// and `--sandbox none` says so in every report.)
TEST_F(MainGuardRun, ASolutionsOwnLibcNamesCannotForgeTheGuardsLine) {
  const fs::path corpus = fs::path(KJUDGE_SOURCE_DIR) / "tests/hostile";
  testing::write_text(dir_ / "main.c", kTestMain);
  SandboxPolicy probe;
  probe.workspace = dir_.path();
  const bool boxed = sandbox_available(probe);
  for (const std::string name : {"define_getenv", "define_write", "define_snprintf", "define_close",
                                 "define_getpid", "define_strtol", "define_fcntl", "nonce_cmdline",
                                 "nonce_environ", "nonce_fds", "nonce_memory"}) {
    SCOPED_TRACE(name);
    build_c(dir_.path(), "test.out", testing::read_text(corpus / name / "solution.c"),
            (dir_ / "main.c").string());
    for (bool sandbox : {false, true}) {
      if ((sandbox && !boxed) || (!sandbox && name.rfind("nonce_", 0) == 0)) continue;
      auto o = run("./test.out", sandbox);
      EXPECT_TRUE(o.r.exit_code != 0 || o.problem)
          << (sandbox ? "sandboxed" : "plain") << ": the forged line passed\n"
          << o.r.output;
      EXPECT_EQ(o.r.output.find("forged with"), std::string::npos) << o.r.output;
    }
  }
}

// A solution cannot rewrite the guard's line after main returned either: the guard seals its
// channel once written, and a program that sealed or mapped it first makes the guard end the
// process with status 111 instead. (A thread that rewrites the line in the microseconds between
// the guard's write and its seal, then exits, is not tried here: it is as strong as reading the
// nonce out of the guard's memory, the in-process limit docs/notes-i31-secrets.md records.)
const char* kRewriteAtExit = R"(#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
static int channel = -1;
static const char* how = "";
static void rewrite(void) {
  char text[256] = {0};
  if (channel < 0 || pread(channel, text, sizeof text - 1, 0) <= 0) return;
  char* code = strstr(text, " returned ");
  if (!code) return;
  strcpy(code, " returned 0\n");
  if (ftruncate(channel, 0) == 0 && pwrite(channel, text, strlen(text), 0) > 0) _exit(0);
}
__attribute__((constructor)) static void find(void) {
  for (int fd = 3; fd < 1024 && channel < 0; ++fd) {
    char path[64], link[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n > 0 && (link[n] = 0, strstr(link, "kjudge-main"))) {
      snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
      channel = open(path, O_RDWR);
    }
  }
}
int solve(void) {
  how = getenv("HOW") ? getenv("HOW") : "";
  if (!strcmp(how, "atexit")) atexit(rewrite);
  if (!strcmp(how, "seal")) fcntl(channel, F_ADD_SEALS, F_SEAL_SEAL);
  if (!strcmp(how, "map")) mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, channel, 0);
  return 0;
}
)";

TEST_F(MainGuardRun, TheLineCannotBeRewrittenAfterMainReturns) {
  testing::write_text(dir_ / "main.c", kTestMain);
  build_c(dir_.path(), "test.out", kRewriteAtExit, (dir_ / "main.c").string());
  for (const char* how : {"atexit", "seal", "map"}) {
    SCOPED_TRACE(how);
    setenv("HOW", how, 1);
    auto o = run("./test.out");
    unsetenv("HOW");
    EXPECT_TRUE(o.r.exit_code != 0 || o.problem) << "a rewritten line passed\n" << o.r.output;
  }
}

TEST_F(MainGuardRun, OnlyTheWorkspacesOwnDynamicProgramCarriesIt) {
  build_c(dir_.path(), "test.out", "int main(void) { return 0; }\n");
  EXPECT_EQ(main_guard_unfit(dir_.path(), "./test.out"), "");
  EXPECT_NE(main_guard_unfit(dir_.path(), "test.out"), "") << "looked up on PATH";
  EXPECT_NE(main_guard_unfit(dir_.path(), "/bin/sh"), "");
  EXPECT_NE(main_guard_unfit(dir_.path(), "../test.out"), "");
  EXPECT_NE(main_guard_unfit(dir_.path(), "./missing.out"), "");
  testing::write_text(dir_ / "run.sh", "#!/bin/sh\nexit 0\n");
  EXPECT_EQ(main_guard_unfit(dir_.path(), "./run.sh"), "not an ELF program");
  // A static program takes no preload: it could never report, so it runs without the guard.
  auto r = testing::run_capture("cc -static -o " + (dir_ / "static.out").string() + " " +
                                (dir_ / "test.out.c").string());
  if (r.rc == 0) {
    EXPECT_EQ(main_guard_unfit(dir_.path(), "./static.out"), "statically linked");
  }
}

// A host-only problem built with cc, whose test checks that solve() returns 42, graded by the
// evaluator with the guard as `guard` says (nullopt: found beside the test binary; an empty
// path: off, as KJUDGE_MAIN_GUARD=none). Each source is a solution.c, its index the sample.
std::map<int, GradedSolution> grade_host(const fs::path& dir, const std::string& id,
                                         const std::vector<std::string>& sources,
                                         std::optional<fs::path> guard = std::nullopt) {
  Problem p;
  p.task_id = id;
  p.group = "guard";
  p.host_only = true;
  p.build_command = "cc -O1 -o test.out solution.c test/main.c";
  p.test_command = "./test.out";
  p.test_files = {{"test/main.c", kTestMain}};
  p.timeout_seconds = 20;
  MachineInfo m;
  m.nvcc_path = "/usr/bin/true";
  m.cuda_version = "13.0";
  m.nvcc_version_line = "Cuda compilation tools, release 13.0";
  m.cpu_count = 2;
  EvalOptions opt;
  opt.cache_dir = dir / "cache";
  opt.work_root = dir / "work";
  opt.main_guard = guard;
  std::vector<EvalJob> jobs;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    Solution s;
    s.task_id = id;
    s.sample = static_cast<int>(i);
    s.files = {{"solution.c", sources[i]}};
    jobs.push_back({&p, std::move(s)});
  }
  std::map<int, GradedSolution> out;
  Evaluator ev(opt, m);
  ev.run(std::move(jobs), [&](const GradedSolution& g) { out[g.sample] = g; });
  return out;
}

// The honest solution passes, the one that calls exit(0) in place of its work fails with the
// guard's reason, and with no guard it would have passed.
TEST(MainGuardEvaluator, ASolutionThatExitsBeforeTheChecksFails) {
  testing::TempDir dir;
  const std::vector<std::string> sources = {"int solve(void) { return 42; }\n",
                                            "#include <stdlib.h>\nint solve(void) { exit(0); }\n"};
  auto guarded = grade_host(dir.path(), "g/early", sources);
  EXPECT_EQ(guarded[0].verdict, Verdict::pass) << guarded[0].detail << guarded[0].test.log;
  EXPECT_EQ(guarded[1].verdict, Verdict::test_fail);
  EXPECT_NE(guarded[1].detail.find("before its main() returned"), std::string::npos)
      << guarded[1].detail;
  auto open = grade_host(dir.path(), "g/early", sources, fs::path());
  EXPECT_EQ(open[1].verdict, Verdict::pass) << "what ComputeEval's own harness would say";
}

// The evaluator reads the built test program's ELF tables: a program with an extra
// .preinit_array entry or an IFUNC of its own is refused as a build error, before any run, and
// an honest one is not. With the guard off the check still stands (it guards the profiler's
// channel in a benchmark too); the second round's builds come from the cache, and are read too.
TEST(MainGuardEvaluator, AProgramThatRunsCodeAheadOfTheGuardIsRefused) {
  testing::TempDir dir;
  for (std::optional<fs::path> guard : {std::optional<fs::path>(), std::optional(fs::path())}) {
    auto out =
        grade_host(dir.path(), "g/preinit",
                   {"int solve(void) { return 42; }\n", kPreinitForge, kIfuncSolution}, guard);
    EXPECT_EQ(out[0].verdict, Verdict::pass) << out[0].detail << out[0].test.log;
    EXPECT_EQ(out[1].verdict, Verdict::build_error) << out[1].detail;
    EXPECT_NE(out[1].detail.find("refused: .preinit_array holds 1 entry"), std::string::npos)
        << out[1].detail;
    EXPECT_NE(out[1].detail.find("main guard"), std::string::npos) << out[1].detail;
    EXPECT_FALSE(out[1].test.ran) << "refused before any run";
    EXPECT_EQ(out[2].verdict, Verdict::build_error) << out[2].detail;
    EXPECT_NE(out[2].detail.find("IFUNC symbols (solve)"), std::string::npos) << out[2].detail;
  }
}

}  // namespace
}  // namespace kjudge
