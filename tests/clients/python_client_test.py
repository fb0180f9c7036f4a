#!/usr/bin/python3
"""The Python client (clients/python, module kjudge_client) against a real `kjudge serve`.

A fresh virtual environment gets `pip install clients/python` (from a copy, so the build leaves
nothing in the repository); a service on SQLite and a free loopback port loads the example
pack (host-only problems: no GPU) and a host-only problem with a custom-timed benchmark. Then,
run by the environment's python with the installed package (never the source tree):
- a batch of passing and failing example solutions (examples/expected-verdicts.tsv) plus two
  items the service refuses: each refusal alone, every verdict and reward as expected;
- the idempotency key, a benchmark-mode reward with its speedup interval, a pack board's ranked
  score and its ranking, leaderboards listed and shown;
- the async client: a batch and many long polls at once;
- errors: a bad token (401), no such submission (404), a bad field (400 naming it), a wait past
  its deadline (WaitTimeout with the submission's state).

    python_client_test.py PATH/TO/kjudge

Exit 77 (skipped) only where PyPI cannot be reached for the package's build backend.
"""
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77
WAIT_S = 90  # the longest any one wait may take
# Solutions of the batch: quick to build, every kind of verdict the example pack gives
# without a timeout (which would cost its limit twice).
BATCH = ["pass-saxpy-functor", "fail-saxpy-wrong-sign", "crash-saxpy-null-write",
         "pass-float4-math-helpers", "build-error-float4-math-missing-semicolon",
         "fail-float4-math-lerp-reversed", "pass-half-convert-rn",
         "fail-half-convert-round-toward-zero", "pass-prefix-sum-running-total",
         "fail-prefix-sum-inclusive", "crash-prefix-sum-abort"]

# A host-only problem: solve() must return 42; its benchmark times work() (custom timing mode),
# as tests/web/board_page_test.py's. The baseline's work() sleeps 20 ms.
SPEC = """type: cuda_cpp
schema_version: 2
task_id: timed/answer
date: "2026-11-22"
prompt: Return 42 from solve(), and make work() fast.
metadata: {difficulty: easy, host_only: true}
group: client-tests
source_references: null
build_command: cc -O1 -o test.out solution.c test/main.c
test_command: ./test.out
benchmark_command: ./test.out --perf
timing_mode: {type: custom}
min_cuda_toolkit: null
compute_capability: null
requires_datacenter_gpu: false
timeout_seconds: 20.0
"""
MAIN = r"""#include <stdio.h>
#include <string.h>
#include <time.h>
int solve(void);
void work(void);
int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--perf") == 0) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    work();
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("COMPUTE_EVAL_TIME_MS: %.3f\n",
           (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
    return 0;
  }
  return solve() == 42 ? 0 : 1;
}
"""


def timed_solution(answer, sleep_us, salt=""):
    return f"""#include <unistd.h>
/* {salt} */
int solve(void) {{ return {answer}; }}
void work(void) {{ usleep({sleep_us}); }}
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def expected_verdicts():
    out = {}
    with open(os.path.join(SOURCE, "examples", "expected-verdicts.tsv")) as f:
        for line in f:
            if line.strip():
                task_id, _sample, name, verdict = line.rstrip("\n").split("\t")
                out[name] = (task_id, verdict)
    return out


# --- Outside: the environment, the service, then the checks inside the environment -----------
def pypi_reachable(python, where):
    """Whether pip can fetch from its index at all (PyPI, or the index pip is configured for)."""
    r = run([python, "-m", "pip", "download", "--disable-pip-version-check", "--no-deps",
             "--dest", where, "setuptools"], timeout=120)
    return r.returncode == 0


def make_env(tmp):
    """A fresh virtual environment with clients/python pip-installed; its python."""
    venv = os.path.join(tmp, "venv")
    r = run([sys.executable, "-m", "venv", venv], timeout=120)
    if r.returncode != 0:
        sys.exit("python3 -m venv failed (scripts/install-deps installs python3-venv):\n"
                 + r.stderr)
    python = os.path.join(venv, "bin", "python")
    package = os.path.join(tmp, "client-src")
    shutil.copytree(os.path.join(SOURCE, "clients", "python"), package,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    r = run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", package],
            timeout=300)
    if r.returncode != 0:
        if not pypi_reachable(python, os.path.join(tmp, "probe")):
            print("skipped: PyPI cannot be reached for the build backend:\n" + r.stderr[-2000:])
            sys.exit(SKIP)
        sys.exit("pip install clients/python failed:\n" + r.stdout + r.stderr)
    return python


def add_user(kjudge, db, name, admin=False):
    r = run([kjudge, "users", "add", name, "--db", db] + (["--admin"] if admin else []),
            timeout=60)
    if r.returncode != 0:
        sys.exit(f"kjudge users add {name} failed: {r.stderr}")
    return r.stdout.splitlines()[0]


def outside(kjudge):
    with tempfile.TemporaryDirectory(prefix="kjudge-client-test-") as tmp:
        t0 = time.monotonic()
        python = make_env(tmp)
        print(f"venv with kjudge_client in {time.monotonic() - t0:.1f} s", flush=True)
        problem = os.path.join(tmp, "timed", "answer")
        write(os.path.join(problem, "problem-spec.yaml"), SPEC)
        write(os.path.join(problem, "test", "main.c"), MAIN)
        write(os.path.join(problem, "solution", "solution.c"), timed_solution(42, 20000))
        db = os.path.join(tmp, "board.db")
        tokens = {"alice": add_user(kjudge, db, "alice"), "root": add_user(kjudge, db, "root",
                                                                            admin=True)}
        log_path = os.path.join(tmp, "serve.log")
        with open(log_path, "w+") as log:
            server = subprocess.Popen(
                [kjudge, "serve", "--port", "0", "--db", db,
                 "--pack", "example=" + os.path.join(SOURCE, "examples", "pack"),
                 "--pack", "timed=" + os.path.join(tmp, "timed"), "--gpu-type", "cpu",
                 "--bench-runs", "10", "--cache-dir", os.path.join(tmp, "cache")],
                stdout=subprocess.PIPE, stderr=log, text=True)
            try:
                ready, _, _ = select.select([server.stdout], [], [], WAIT_S)
                line = server.stdout.readline() if ready else ""
                if not line.startswith("listening on http://"):
                    log.seek(0)
                    sys.exit(f"no port line from kjudge serve: {line!r}\n{log.read()}")
                env = dict(os.environ, KJUDGE_TEST_SERVER=line.split()[-1],
                           KJUDGE_TOKEN=tokens["alice"], KJUDGE_TEST_ADMIN=tokens["root"],
                           PYTHONDONTWRITEBYTECODE="1")
                # -I: the installed package, never one beside this file or on PYTHONPATH.
                rc = subprocess.call([python, "-I", os.path.abspath(__file__), "--inside"],
                                     env=env, timeout=600)
            finally:
                server.terminate()
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
                server.stdout.close()
            if rc != 0:
                log.seek(0)
                print("--- kjudge serve's log:\n" + log.read()[-4000:])
        print(f"whole test {time.monotonic() - t0:.1f} s")
        return rc


# --- Inside the environment: the client's checks -----------------------------------------------
def inside():
    import asyncio

    import kjudge_client as kc

    server = os.environ["KJUDGE_TEST_SERVER"]
    admin_token = os.environ["KJUDGE_TEST_ADMIN"]
    solutions = os.path.join(SOURCE, "examples", "solutions")
    verdicts = expected_verdicts()

    class ClientAgainstService(unittest.TestCase):
        maxDiff = None

        def setUp(self):
            self.client = kc.Client(server)  # the token from $KJUDGE_TOKEN

        def test_0_installed_package(self):
            self.assertNotIn(SOURCE + os.sep + "clients", kc.__file__)
            self.assertIn("site-packages", kc.__file__)
            here = os.path.dirname(kc.__file__)
            self.assertTrue(os.path.isfile(os.path.join(here, "py.typed")))
            h = self.client.health()
            self.assertTrue(h.ok)
            self.assertEqual(h.database, "sqlite")

        def test_batch_verdicts_and_rewards(self):
            reqs = []
            for name in BATCH:
                task_id, _ = verdicts[name]
                reqs.append(kc.SubmissionRequest.pack(
                    "example", task_id, kc.read_solution_dir(os.path.join(solutions, name)),
                    idempotency_key="batch-" + name, priority="bulk"))
            # Two the service refuses, each alone, in the middle of the batch.
            reqs.insert(3, kc.SubmissionRequest.pack("example", "example/no_such_problem",
                                                     {"solution.cu": "int x;\n"}))
            reqs.insert(6, kc.SubmissionRequest(target="pack:example#example/saxpy",
                                                files={"solution.cu": "int x;\n"},
                                                mode="leaderboard"))
            t0 = time.monotonic()
            items = self.client.submit_batch(reqs)
            self.assertEqual(len(items), len(BATCH) + 2)
            bad_mode, bad_target = items.pop(6), items.pop(3)
            self.assertIsInstance(bad_mode, kc.Refused)
            self.assertEqual((bad_mode.status, bad_mode.field), (400, "mode"))
            self.assertIsInstance(bad_target, kc.Refused)
            self.assertEqual((bad_target.status, bad_target.field), (400, "target"))
            self.assertIn("no_such_problem", bad_target.error)
            for it in items:
                self.assertIsInstance(it, kc.Accepted)
                self.assertTrue(it.created)
            ids = [it.id for it in items]
            self.assertEqual(len(set(ids)), len(ids))

            rewards = self.client.rewards(ids, timeout=WAIT_S)
            print(f"\n  batch of {len(ids)} judged in {time.monotonic() - t0:.1f} s")
            for name, r in zip(BATCH, rewards):
                task_id, verdict = verdicts[name]
                with self.subTest(solution=name):
                    self.assertIsInstance(r, kc.Reward)
                    self.assertEqual(r.target, "pack:example#" + task_id)
                    self.assertEqual(r.mode, "judge")
                    self.assertEqual(r.verdict, verdict)
                    self.assertEqual(r.passed, verdict == "pass")
                    if verdict != "pass":
                        self.assertTrue(r.detail, "a failure says why")
                    self.assertFalse(r.timed)
                    self.assertIsNone(r.speedup)
            # The submission objects behind the rewards.
            subs = self.client.wait_all(ids, timeout=WAIT_S)
            for name, s in zip(BATCH, subs):
                self.assertEqual(s.status, "done")
                self.assertEqual(s.idempotency_key, "batch-" + name)
                self.assertEqual(len(s.runs), 1)
                self.assertEqual(s.runs[0].mode, "judge")
                self.assertEqual(s.runs[0].verdict, verdicts[name][1])
                self.assertIn("build", s.runs[0].result)

            # The same key again: the earlier submission, not a new one.
            again = self.client.submit(reqs[0])
            self.assertEqual(again, kc.Accepted(id=ids[0], created=False, status=200))

        def test_benchmark_reward_has_a_speedup_interval(self):
            fast = self.client.submit("pack:timed#timed/answer",
                                      code=timed_solution(42, 2000, "fast"), mode="benchmark")
            wrong = self.client.submit("pack:timed#timed/answer",
                                       code=timed_solution(41, 2000, "wrong"), mode="benchmark")
            fast_r, wrong_r = self.client.rewards([fast.id, wrong.id], timeout=WAIT_S)
            self.assertTrue(fast_r.passed, fast_r)
            self.assertEqual(fast_r.verdict, "pass")
            self.assertTrue(fast_r.timed, fast_r)
            s = fast_r.speedup
            self.assertIsInstance(s, kc.Speedup)
            # 20 ms of baseline work against 2 ms, 10 runs a side: well above 1, inside its own
            # interval, and the interval above 1 too.
            self.assertLessEqual(s.low, s.estimate)
            self.assertLessEqual(s.estimate, s.high)
            self.assertGreater(s.estimate, 1.5, s)
            self.assertGreater(s.low, 1.0, s)
            self.assertTrue(s.surely_faster)
            self.assertGreater(s.confidence, 0.5)
            self.assertIsNotNone(fast_r.score_us)
            self.assertGreater(fast_r.score_us, 1000.0)  # the solution's median, in µs
            sub = self.client.submission(fast.id, code=True)
            self.assertEqual([r.mode for r in sub.runs], ["judge", "benchmark"])
            self.assertIn("usleep(2000)", sub.code)
            # Wrong: a verdict, no timing.
            self.assertFalse(wrong_r.passed)
            self.assertEqual(wrong_r.verdict, "test_fail")
            self.assertFalse(wrong_r.timed)
            self.assertIsNone(wrong_r.speedup)

        def test_leaderboard_score_and_ranking(self):
            admin = kc.Client(server, admin_token)
            made = admin.create_leaderboard("answer-board", problem="pack:timed#timed/answer")
            self.assertEqual(made["name"], "answer-board")
            with self.assertRaises(kc.Forbidden) as e:
                self.client.create_leaderboard("mine", problem="pack:timed#timed/answer")
            self.assertEqual(e.exception.status, 403)
            names = [b.name for b in self.client.leaderboards()]
            self.assertIn("answer-board", names)
            acc = self.client.submit_to_leaderboard("answer-board",
                                                    code=timed_solution(42, 3000, "board"))
            r = self.client.rewards([acc.id], timeout=WAIT_S)[0]
            self.assertTrue(r.passed, r)
            self.assertEqual(r.mode, "leaderboard")
            self.assertTrue(r.timed)
            self.assertEqual(r.review, "none")
            self.assertGreater(r.score_us, 1000.0)
            board = self.client.leaderboard("answer-board")
            self.assertEqual(board.problem, "pack:timed#timed/answer")
            self.assertIsNone(board.task)
            self.assertEqual(board.gpu_types, ("cpu",))
            rows = board.rankings["cpu"]
            self.assertEqual([(e.rank, e.user, e.submission) for e in rows], [(1, "alice", acc.id)])
            self.assertAlmostEqual(rows[0].score, r.score_us)
            self.assertEqual(self.client.leaderboard("answer-board", gpu="none").rankings, {})
            with self.assertRaises(kc.NotFound):
                self.client.leaderboard("no-such-board")

        def test_async_client(self):
            names = ["pass-saxpy-functor", "fail-half-convert-round-toward-zero",
                     "crash-prefix-sum-abort"]

            async def go():
                async with kc.AsyncClient(server, concurrency=8) as a:
                    h = await a.health()
                    self.assertTrue(h.ok)
                    items = await a.submit_batch([
                        kc.SubmissionRequest.pack(
                            "example", verdicts[n][0],
                            kc.read_solution_dir(os.path.join(solutions, n)),
                            idempotency_key="async-" + n) for n in names])
                    ids = [it.id for it in items]
                    # One more, alone, and many long polls at once (each id several times).
                    one = await a.submit("pack:example#example/saxpy", files=kc.read_solution_dir(
                        os.path.join(solutions, "fail-saxpy-wrong-sign")))
                    subs = await a.wait_all(ids * 4 + [one.id], timeout=WAIT_S)
                    rewards = [await a.reward(s) for s in subs]
                    with self.assertRaises(kc.Unauthorized) as e:
                        await kc.AsyncClient(server, "kj_not_a_token").submissions()
                    return ids, one, rewards, e.exception

            ids, one, rewards, err = asyncio.run(go())
            for i, n in enumerate(names):
                for k in range(4):
                    r = rewards[i + k * len(names)]
                    self.assertEqual(r.submission_id, ids[i])
                    self.assertEqual(r.verdict, verdicts[n][1], n)
            self.assertEqual(rewards[-1].submission_id, one.id)
            self.assertEqual(rewards[-1].verdict, "test_fail")
            self.assertEqual(err.status, 401)
            self.assertIn("token", err.error)

        def test_errors_carry_status_and_field(self):
            with self.assertRaises(kc.Unauthorized) as e:
                kc.Client(server, "kj_not_a_token").submit(
                    "pack:example#example/saxpy", files={"solution.cu": ""})
            self.assertEqual(e.exception.status, 401)
            self.assertIsInstance(e.exception, kc.ApiError)
            with self.assertRaises(kc.NotFound) as e:
                self.client.submission(987654)
            self.assertEqual(e.exception.status, 404)
            with self.assertRaises(kc.BadRequest) as e:
                self.client.submit("pack:example#example/saxpy", files={"solution.cu": ""},
                                   mode="profile")
            self.assertEqual((e.exception.status, e.exception.field), (400, "mode"))
            with self.assertRaises(kc.BadRequest) as e:
                self.client.submit("pack:nope#x", files={"solution.cu": ""})
            self.assertEqual(e.exception.field, "target")
            with self.assertRaises(ValueError):
                kc.SubmissionRequest(target="pack:example#example/saxpy").to_json()
            # A wait past its deadline: the submission's state comes with the error.
            acc = self.client.submit("pack:example#example/saxpy", files={
                "solution.cu": open(os.path.join(solutions, "pass-saxpy-functor",
                                                 "solution.cu")).read()
                + f"\n// {time.time_ns()}\n"})  # not in the build cache
            with self.assertRaises(kc.WaitTimeout) as e:
                self.client.wait(acc.id, timeout=0.2)
            self.assertEqual(e.exception.unfinished, (acc.id,))
            self.assertIn(e.exception.submissions[0].status, ("queued", "running"))
            with self.assertRaises(kc.NotFinished):
                e.exception.submissions[0].reward()
            self.assertTrue(self.client.wait(acc.id, timeout=WAIT_S).reward().passed)

        def test_task_and_untimed_rewards_from_the_services_json(self):
            """Shapes CI's service cannot make without a GPU (src/board/judge_service.cpp's
            task stages; a pack run that passed but was not timed), read by the client."""
            def sub(target, mode, runs):
                return kc.Submission.from_json({"id": 7, "target": target, "mode": mode,
                                                "status": "done", "runs": runs})
            stage = lambda mode, passed, **kw: dict(
                {"mode": mode, "completed": True, "passed": passed, "failure": ""}, **kw)
            ranked = sub("task:vectoradd", "leaderboard", [
                {"id": 1, "mode": "test", "passed": True, "review": "none",
                 "result": stage("test", True)},
                {"id": 2, "mode": "leaderboard", "passed": True, "score": 12.5,
                 "review": "pending", "result": stage("leaderboard", True, score_us=12.5,
                                                      cheat_flags=[{"check": "proc_read",
                                                                    "detail": "/proc"}])},
                {"id": 3, "mode": "leaderboard", "secret": True, "passed": True, "score": 11.0,
                 "review": "none"}]).reward()
            self.assertEqual((ranked.passed, ranked.verdict, ranked.score_us, ranked.timed),
                             (True, None, 12.5, True))
            self.assertEqual(ranked.review, "pending")
            self.assertEqual([f.check for f in ranked.flags], ["proc_read"])
            failed = sub("task:vectoradd", "leaderboard", [
                {"id": 1, "mode": "test", "passed": False,
                 "result": stage("test", False, failure="output mismatch at 3")}]).reward()
            self.assertEqual((failed.passed, failed.detail, failed.timed),
                             (False, "output mismatch at 3", False))
            self.assertEqual(failed.not_timed, "output mismatch at 3")
            untimed = sub("pack:p#x", "benchmark", [
                {"id": 1, "mode": "judge", "passed": True,
                 "result": {"verdict": "pass", "detail": ""}},
                {"id": 2, "mode": "benchmark", "passed": False,
                 "result": {"verdict": "pass", "failure": "not timed: the baseline failed",
                            "performance": {"timed": False, "speedup": None}}}]).reward()
            self.assertEqual((untimed.passed, untimed.timed, untimed.speedup),
                             (True, False, None))
            self.assertEqual(untimed.not_timed, "not timed: the baseline failed")
            with self.assertRaises(kc.NotFinished):
                kc.Submission.from_json({"id": 8, "target": "pack:p#x", "status": "queued"}
                                        ).reward()

        def test_connection_failure(self):
            with self.assertRaises(kc.ConnectionFailed):
                kc.Client("http://127.0.0.1:9", retries=0).health()

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(ClientAgainstService)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if result.wasSuccessful() else 1


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--inside":
        sys.exit(inside())
    if len(sys.argv) < 2:
        sys.exit("usage: python_client_test.py PATH/TO/kjudge")
    sys.exit(outside(os.path.abspath(sys.argv[1])))


if __name__ == "__main__":
    main()
