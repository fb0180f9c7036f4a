// The link between an isolated run's checker and its worker (harness/kjudge/worker_link.h), with
// real processes: the worker a shell script on descriptors 3 and 4. The checker's side runs in a
// forked child, because start_worker makes its caller non-dumpable for good.
#include "kjudge/worker_link.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include "test_util.h"

namespace {

// Runs `body` in a forked child; its return value becomes the child's exit status (0: all
// held). Messages go to stderr.
int in_child(const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

std::string script(const kjudge::testing::TempDir& dir, const std::string& body) {
  const std::string path = (dir.path() / "worker.sh").string();
  std::ofstream(path) << "#!/bin/sh\n" << body;
  chmod(path.c_str(), 0755);
  return path;
}

}  // namespace

TEST(WorkerLink, HexRoundTrip) {
  unsigned char bytes[64];
  for (int i = 0; i < 64; ++i) bytes[i] = static_cast<unsigned char>(i * 37);
  const std::string hex = kj::to_hex(bytes, sizeof bytes);
  EXPECT_EQ(hex.size(), 128u);
  EXPECT_EQ(hex.substr(0, 6), "00254a");
  unsigned char back[64] = {};
  ASSERT_TRUE(kj::from_hex(hex, back, sizeof back));
  EXPECT_EQ(std::string(reinterpret_cast<char*>(back), 64),
            std::string(reinterpret_cast<char*>(bytes), 64));
  EXPECT_FALSE(kj::from_hex(hex.substr(2), back, sizeof back)) << "too short";
  EXPECT_FALSE(kj::from_hex("zz" + hex.substr(2), back, sizeof back)) << "not hex";
  EXPECT_FALSE(kj::from_hex(std::string(128, 'A'), back, sizeof back)) << "upper case is not ours";
}

TEST(WorkerLink, FieldsKeepTheRestOfTheLineInTheLast) {
  const auto f = kj::split_fields("prep 3 4096 - size: 100; seed: 7", 5);
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0], "prep");
  EXPECT_EQ(f[3], "-");
  EXPECT_EQ(f[4], "size: 100; seed: 7");
  EXPECT_EQ(kj::split_fields("done").size(), 1u);
  EXPECT_EQ(kj::split_fields("done 4 8").size(), 3u);
}

TEST(WorkerLink, TheWorkerTalksOnThreeAndFourWithoutTheJudgesVariables) {
  kjudge::testing::TempDir dir;
  // Answers each line with what it saw: its arguments, then whether any KJUDGE_ variable or
  // LD_PRELOAD reached it, then an echo of every line until the checker closes the link.
  const std::string w =
      script(dir,
             "read line <&3\n"
             "echo \"args $1 $2 $3 $line\" >&4\n"
             "if env | grep -q -e '^KJUDGE_' -e '^LD_PRELOAD='; then echo leak >&4;"
             " else echo clean >&4; fi\n"
             "while read line <&3; do echo \"echo $line\" >&4; done\n"
             "echo bye >&4\n");
  const int rc = in_child([&] {
    setenv("KJUDGE_RESULT_FD", "9", 1);
    setenv("LD_PRELOAD", "/nonexistent.so", 1);
    setenv("KEEP_ME", "1", 1);
    kj::WorkerProcess p = kj::start_worker(w, {"placement=arena"});
    unsetenv("LD_PRELOAD");
    if (p.pid < 0) return fprintf(stderr, "%s\n", p.error.c_str()), 1;
    if (prctl(PR_GET_DUMPABLE) != 0) return fprintf(stderr, "still dumpable\n"), 2;
    p.link.send("hello 00ff");
    auto a = p.link.receive(10000);
    if (!a || *a != "args 3 4 placement=arena hello 00ff")
      return fprintf(stderr, "args: %s\n", a ? a->c_str() : "(none)"), 3;
    auto env = p.link.receive(10000);
    if (!env || *env != "clean") return fprintf(stderr, "env: %s\n", env ? env->c_str() : "-"), 4;
    p.link.send("go timed 0 1");
    auto e = p.link.receive(10000);
    if (!e || *e != "echo go timed 0 1") return 5;
    bool timed_out = false;
    if (p.link.receive(200, &timed_out) || !timed_out) return 6;  // nothing more was sent
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

// The judge's profiler for the worker: taken out of the checker's environment (the variables
// gone), handed to the worker alone as the profiler reads it (LD_PRELOAD, its record channel on
// descriptor 5 with the nonce inside, never in a variable, the early header), the checker
// keeping no copy of the descriptor and never reading it. Ending the link lets the worker exit
// on its own; one that will not is killed.
TEST(WorkerLink, TheProfilerGoesToTheWorkerAloneAndTheWorkerMayFinish) {
  kjudge::testing::TempDir dir;
  const std::string out = (dir.path() / "record.txt").string();
  const std::string w =
      script(dir,
             "read line <&3\n"
             "echo \"$LD_PRELOAD|$NVTX_INJECTION64_PATH|$KJUDGE_PROFILE_FD|$KJUDGE_PROFILE_NONCE|"
             "$KJUDGE_PROFILE_EARLY_HEADER|${KJUDGE_WORKER_PROFILER:-none}\" >&4\n"
             "n=$(head -n 1 /proc/self/fd/5)\n"
             "echo \"KJPROF 1 $n\" >&5\n"
             "while read line <&3; do :; done\n"
             "echo finished >&5\n");
  const int rc = in_child([&] {
    const int fd = open(out.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);  // inheritable, as
    if (fd < 0) return 1;                                                // the judge's is
    if (pwrite(fd, "n0nce\n", 6, 0) != 6) return 1;                      // the judge's write_nonce
    setenv("KJUDGE_WORKER_PROFILER", "/lib/libkjudge_profiler.so", 1);
    setenv("KJUDGE_WORKER_PROFILE_FD", std::to_string(fd).c_str(), 1);
    std::optional<kj::WorkerProfiler> prof = kj::take_worker_profiler();
    if (!prof || prof->fd != fd) return 2;
    if (getenv("KJUDGE_WORKER_PROFILER") || getenv("KJUDGE_WORKER_PROFILE_FD")) return 3;
    kj::WorkerProcess p = kj::start_worker(w, {}, &*prof);
    if (p.pid < 0) return fprintf(stderr, "%s\n", p.error.c_str()), 4;
    if (fcntl(fd, F_GETFD) >= 0) return fprintf(stderr, "the checker kept the descriptor\n"), 5;
    p.link.send("hello");
    auto env = p.link.receive(10000);
    const std::string want = "/lib/libkjudge_profiler.so|/lib/libkjudge_profiler.so|5||1|none";
    if (!env || *env != want) return fprintf(stderr, "env: %s\n", env ? env->c_str() : "-"), 6;
    const std::string ending = kj::end_worker(p, 10000);
    if (ending != "exit 0") return fprintf(stderr, "ending: %s\n", ending.c_str()), 7;
    return 0;
  });
  ASSERT_EQ(rc, 0);
  std::ifstream in(out);
  std::string all((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(all, "KJPROF 1 n0nce\nfinished\n") << "the worker wrote after the link ended";

  // Without the two variables, nothing is handed on.
  EXPECT_EQ(in_child([] { return kj::take_worker_profiler() ? 1 : 0; }), 0);
  // A worker that ignores the end of its link is killed when the wait is over.
  const std::string stubborn = script(dir, "trap '' TERM\nwhile :; do sleep 1; done\n");
  const int rc2 = in_child([&] {
    kj::WorkerProcess p = kj::start_worker(stubborn, {});
    if (p.pid < 0) return 1;
    const std::string ending = kj::end_worker(p, 300);
    return ending == "killed after 300 ms" ? 0 : (fprintf(stderr, "%s\n", ending.c_str()), 2);
  });
  EXPECT_EQ(rc2, 0);
}

TEST(WorkerLink, AWorkerThatDiesIsAnEndOfFileAndItsEndingIsNamed) {
  kjudge::testing::TempDir dir;
  const std::string w = script(dir, "read line <&3\nkill -SEGV $$\n");
  const int rc = in_child([&] {
    kj::WorkerProcess p = kj::start_worker(w, {});
    if (p.pid < 0) return 1;
    p.link.send("hello");
    bool timed_out = true;
    if (p.link.receive(10000, &timed_out) || timed_out) return 2;  // end of file, not a timeout
    const std::string how = kj::worker_ending(p.pid);
    if (how.rfind("signal 11", 0) != 0) return fprintf(stderr, "%s\n", how.c_str()), 3;
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(WorkerLink, TheWorkerCannotReadTheCheckersProcessFiles) {
  if (geteuid() == 0)
    GTEST_SKIP() << "root reads any process's files (the sandbox drops the "
                    "capability; here the test runs as root)";
  kjudge::testing::TempDir dir;
  // The checker is the worker's parent: its environment and descriptors are what a worker
  // would want (the channel's number, the channel itself).
  const std::string w = script(dir,
                               "if cat /proc/$PPID/environ >/dev/null 2>&1; then echo read >&4;"
                               " else echo denied >&4; fi\n"
                               "if ls /proc/$PPID/fd >/dev/null 2>&1; then echo read >&4;"
                               " else echo denied >&4; fi\n");
  const int rc = in_child([&] {
    kj::WorkerProcess p = kj::start_worker(w, {});
    if (p.pid < 0) return 1;
    auto a = p.link.receive(10000), b = p.link.receive(10000);
    if (!a || !b) return 2;
    if (*a != "denied" || *b != "denied")
      return fprintf(stderr, "environ %s, fd %s\n", a->c_str(), b->c_str()), 3;
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

// The worker gets descriptors 0-4 (and 5, the profiler's) and nothing else of the checker's,
// close-on-exec or not: here 77 on a host file and 78 on a secret, left open and inheritable as
// a careless parent would leave them.
TEST(WorkerLink, TheWorkerInheritsOnlyItsOwnDescriptors) {
  kjudge::testing::TempDir dir;
  kjudge::testing::write_text(dir.path() / "host.txt", "host\n");
  kjudge::testing::write_text(dir.path() / "secret.txt", "worker-fd-secret\n");
  const std::string w = script(dir,
                               "for n in 3 4 5 6 77 78; do\n"
                               "  if [ -e /proc/$$/fd/$n ]; then printf '%s ' $n >&4; fi\n"
                               "done\n"
                               "echo >&4\n"
                               "cat /proc/$$/fd/78 >&4 2>/dev/null; echo gone >&4\n"
                               "echo planted 2>/dev/null >> /proc/$$/fd/77\n"
                               "exit 0\n");
  const std::string host = (dir.path() / "host.txt").string();
  const std::string secret = (dir.path() / "secret.txt").string();
  const int rc = in_child([&] {
    const int a = open(host.c_str(), O_WRONLY | O_APPEND), b = open(secret.c_str(), O_RDONLY);
    if (a < 0 || b < 0 || dup2(a, 77) != 77 || dup2(b, 78) != 78) return 1;
    kj::WorkerProcess p = kj::start_worker(w, {});
    if (p.pid < 0) return fprintf(stderr, "%s\n", p.error.c_str()), 2;
    auto fds = p.link.receive(10000), after = p.link.receive(10000);
    if (!fds || *fds != "3 4 ") return fprintf(stderr, "fds: %s\n", fds ? fds->c_str() : "-"), 3;
    if (!after || *after != "gone") return fprintf(stderr, "read: %s\n", after->c_str()), 4;
    return kj::end_worker(p, 10000) == "exit 0" ? 0 : 5;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(kjudge::testing::read_text(host), "host\n") << "the worker wrote the host's file";
}

TEST(WorkerLink, AProgramThatCannotStartSaysWhy) {
  const int rc = in_child([] {
    kj::WorkerProcess p = kj::start_worker("/nonexistent/kjudge_worker", {});
    if (p.pid >= 0) return 1;
    return p.error.find("/nonexistent/kjudge_worker") != std::string::npos ? 0 : 2;
  });
  EXPECT_EQ(rc, 0);
}
