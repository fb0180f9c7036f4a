"""The checker: the process the judge starts, with the result channel. It holds everything a
submission would want to reach and starts the submission in a process of its own (worker.py):

- The channel and its nonce are taken first (record.py); the process makes itself
  non-dumpable, so a process of the same user (the worker) can read neither its memory nor
  its descriptors nor its environment through /proc (ptrace is refused by the sandbox's
  seccomp filter anyway).
- The task's reference.py (generate_input, check_implementation or ref_kernel) and what it
  imports are imported here, before the worker starts; the workspace (which the worker can
  write) then goes to the end of sys.path, so nothing this process imports later can be a file
  the worker planted. The cases file, with the seeds (a ranked run's combined with the
  secret), is read and deleted before the worker starts; the seeds of the timed repetitions
  are salted with a secret drawn here. The worker never sees a seed.
- Every call: fresh inputs made here by generate_input, in this process's own memory (they are
  also the untouched copy the task's check reads); buffers of the same shapes in a memory pool
  of their own (the worker can reach a whole cudaMalloc segment through an IPC handle, so that
  pool holds nothing but what the worker is handed), shared with the worker through CUDA IPC
  (torch.multiprocessing's reductions, pickled one way: checker to worker) while still empty.
- The sealed window (on this process's stream, which the worker cannot touch): the inputs
  copied into the shared buffers, the L2 flushed (persisting L2 taken back, then twice its size
  written), `staged`, then an interprocess event the worker's stream waits on. So the worker
  sees the inputs only once the window is open: work it starts on them earlier (on "prepare",
  from a wrapped unpickler) reads empty buffers. It calls custom_kernel between its own events,
  copies what it returned into buffers this process handed it for that (from the second call
  of a case on, when the output's shapes are known), and records an interprocess event this
  stream waits on; then `sealed`, the output copied at once into this process's own memory,
  and `stop`. What the check reads is that copy: work the worker does after the window (when
  it is next asked to synchronize, say) comes too late to be in it. The GPU runs one process's
  work at a time, so the worker's work on any stream of its own before `sealed` delays
  `sealed`.
- The times scored are the worker's events (what GPU MODE's eval.py measures: events on the
  calling process's stream around custom_kernel); this process's window (staged to stop, less
  the two output copies timed again alone, plus any time the copy-in took beyond the same copy
  timed alone: the worker's work racing it), minus the crossing measured on 20 empty calls,
  holds them to account (the judge's isolated_time flag, src/task/run.cpp). Every timed call is
  checked.
"""

import base64
import ctypes
import os
import sys
import time

from .cases import read_cases, repetition_seed, with_seed
from .record import Report, join_times, take_channel
from .shape import ShapeError, rebuild
from .stats import parse_rule, should_stop
from .wire import WireError, receive, send

PR_SET_DUMPABLE = 4
KEEP_CALLS = 16
KEEP_BYTES = 8 << 30


class TaskError(RuntimeError):
    """generate_input or the task's check failed on its own: the task's fault."""


class CallFailed(RuntimeError):
    """The call went wrong on the submission's side."""


def _error_text(e):
    return "%s: %s" % (type(e).__name__, e)


def _not_dumpable():
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _verdict(result):
    """check_implementation's answer as (passed, message): GPU MODE's (bool, str), or a bool,
    or a string (empty: passed)."""
    if isinstance(result, tuple) and len(result) == 2:
        return bool(result[0]), str(result[1] or "")
    if isinstance(result, bool):
        return result, ""
    if isinstance(result, str):
        return result == "", result
    if result is None:
        return True, ""
    return False, "the task's check answered %r" % (result,)


class PersistingL2:
    """Persisting L2 taken back before every flush, through the driver, on the device's primary
    context torch made current (as python/kjudge_triton/persisting_l2.py, which says why)."""

    def __init__(self):
        self.ok = False
        try:
            lib = ctypes.CDLL("libcuda.so.1")
            self._limit = lib.cuCtxSetLimit
            self._limit.argtypes = [ctypes.c_int, ctypes.c_size_t]
            self._reset = lib.cuCtxResetPersistingL2Cache
            self.ok = True
        except (OSError, AttributeError):
            pass

    def __call__(self):
        if self.ok and (self._limit(0x06, 0) != 0 or self._reset() != 0):
            self.ok = False


class Checker:
    def __init__(self, torch, reference, report, rule, warmup_ms, salt):
        self.torch = torch
        self.report = report
        self.rule = rule
        self.warmup_ms = warmup_ms
        self.salt = salt
        self.generate_input = reference.generate_input
        self.check = getattr(reference, "check_implementation", None)
        self.ref_kernel = getattr(reference, "ref_kernel", None)
        if self.check is None and self.ref_kernel is None:
            raise TaskError("reference.py defines neither check_implementation nor ref_kernel")
        self.event = torch.cuda.Event
        self.synchronize = torch.cuda.synchronize
        self.clock = time.perf_counter_ns
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        self.l2_bytes = int(getattr(props, "L2_cache_size", 0) or 0)
        self.flush_buffer = torch.empty(max(2 * self.l2_bytes, 8 << 20), dtype=torch.uint8,
                                        device="cuda")
        self.flush_round = 0
        self.persisting = PersistingL2()
        if not hasattr(torch.cuda, "MemPool") or not hasattr(torch.cuda, "use_mem_pool"):
            raise RuntimeError("torch %s has no torch.cuda.MemPool / use_mem_pool (torch 2.6 "
                               "or later): the worker's inputs cannot be kept apart from the "
                               "checker's memory" % torch.__version__)
        self.pool = torch.cuda.MemPool()
        self.dtypes = {}
        for name in dir(torch):
            value = getattr(torch, name, None)
            if isinstance(value, torch.dtype):
                try:
                    self.dtypes[name] = (value, torch.empty(0, dtype=value).element_size())
                except (RuntimeError, TypeError):
                    pass
        import pickle
        from multiprocessing.reduction import ForkingPickler
        import torch.multiprocessing  # noqa: F401  (registers the CUDA tensor reductions)
        self.dumps = lambda obj: bytes(ForkingPickler.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
        self.kept = []
        self.outputs = {}  # a case's arguments less the seed -> the output's description
        self.worker = None
        self.dead = ""
        self.crossing_ns = -1.0

    # --- the worker -------------------------------------------------------------------------
    def start_worker(self, runner, submission, environ):
        import subprocess
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        env = {k: v for k, v in environ.items()
               if not k.startswith("KJUDGE_") and k not in ("LD_PRELOAD", "POPCORN_FD",
                                                            "POPCORN_SEED")}
        self.worker = subprocess.Popen(
            [sys.executable, "-I", "-B", runner, "worker", "submission=" + submission,
             "fds=%d,%d" % (to_worker_r, from_worker_w)],
            pass_fds=(to_worker_r, from_worker_w), close_fds=True, env=env,
            stdin=subprocess.DEVNULL)
        os.close(to_worker_r)
        os.close(from_worker_w)
        self.wfd, self.rfd = to_worker_w, from_worker_r
        hello = self.receive("hello")
        if not hello.get("ok"):
            self.dead = hello.get("error", "the submission did not load")
            trace = hello.get("trace")
            if trace:
                sys.stderr.write(str(trace)[-4000:] + "\n")
            return False
        self.queued = self.event.from_ipc_handle(self.torch.cuda.current_device(),
                                                 base64.b64decode(hello["event"]))
        self.go = self.event(interprocess=True)
        self.go.record()
        self.synchronize()
        self.send({"op": "setup",
                        "event": base64.b64encode(bytes(self.go.ipc_handle())).decode("ascii")})
        self.receive("ready")
        return True

    def send(self, message, payload=b""):
        try:
            send(self.wfd, message, payload)
        except OSError as e:
            code = self.worker.poll() if self.worker else None
            self.dead = "the submission's process is gone (%s; status %s)" % (e, code)
            raise CallFailed(self.dead)

    def receive(self, op):
        try:
            msg, _ = receive(self.rfd, allow_payload=False)
        except WireError as e:
            code = self.worker.poll() if self.worker else None
            self.dead = "the submission's process %s (%s)" % (
                "ended with status %s" % code if code is not None else "broke the protocol", e)
            raise CallFailed(self.dead)
        if msg.get("op") != op:
            self.dead = "the submission's process answered %r where %r was due" % (
                msg.get("op"), op)
            raise CallFailed(self.dead)
        return msg

    def end_worker(self):
        if self.worker is None:
            return "never started"
        try:
            send(self.wfd, {"op": "exit"})
        except OSError:
            pass
        try:
            code = self.worker.wait(timeout=20)
            return "exit %d" % code if code >= 0 else "signal %d" % -code
        except Exception:
            self.worker.kill()
            self.worker.wait()
            return "killed after 20000 ms"

    # --- one call ---------------------------------------------------------------------------
    def flush_l2(self):
        self.persisting()
        self.flush_round += 1
        self.flush_buffer.fill_(self.flush_round & 0xFF)

    def _clone(self, data):
        torch = self.torch
        if isinstance(data, tuple):
            return tuple(self._clone(x) for x in data)
        if isinstance(data, list):
            return [self._clone(x) for x in data]
        if isinstance(data, dict):
            return {k: self._clone(v) for k, v in data.items()}
        if isinstance(data, torch.Tensor):
            return data.clone()
        return data

    def _bytes(self, data):
        torch = self.torch
        if isinstance(data, (tuple, list)):
            return sum(self._bytes(x) for x in data)
        if isinstance(data, dict):
            return sum(self._bytes(x) for x in data.values())
        if isinstance(data, torch.Tensor):
            return data.numel() * data.element_size()
        return 0

    def _allocate(self, dtype, shape):
        t = self.torch.empty(shape, dtype=dtype, device="cuda")
        if t.numel():
            if t.is_floating_point() or t.is_complex():
                t.fill_(float("nan"))
            else:
                t.view(self.torch.uint8).fill_(0x80)
        return t

    def _check(self, copy, output):
        if self.check is not None:
            return _verdict(self.check(copy, output))
        torch = self.torch
        want = self.ref_kernel(copy)
        if not isinstance(output, torch.Tensor) or output.shape != want.shape:
            return False, "the output's shape differs from the reference's"
        got, ref = output.double(), want.double()
        bad = (~torch.isfinite(got)) | ((got - ref).abs() > 1e-8 + 1e-5 * ref.abs())
        n = int(bad.sum().item())
        return n == 0, "" if n == 0 else "%d values differ from the reference" % n

    def _shared_like(self, data, pairs):
        """Empty buffers shaped as data's tensors, in the worker's pool; (source, buffer) pairs
        appended to `pairs`, for the copy that opens the window."""
        torch = self.torch
        if isinstance(data, (tuple, list)):
            out = [self._shared_like(x, pairs) for x in data]
            return tuple(out) if isinstance(data, tuple) else out
        if isinstance(data, dict):
            return {k: self._shared_like(v, pairs) for k, v in data.items()}
        if isinstance(data, torch.Tensor):
            with torch.cuda.use_mem_pool(self.pool):
                buf = torch.empty_like(data)
            pairs.append((data, buf))
            return buf
        return data

    @staticmethod
    def _case_key(args):
        return tuple(sorted((k, str(v)) for k, v in args.items() if k != "seed"))

    def _copies(self, pairs):
        for src, dst in pairs:
            dst.copy_(src)

    def _timed_copies(self, pairs, flush=False):
        """The same copies (and flush) alone, between events: what they cost without the
        worker's work beside them."""
        a, b = self.event(enable_timing=True), self.event(enable_timing=True)
        a.record()
        self._copies(pairs)
        if flush:
            self.flush_l2()
        b.record()
        b.synchronize()
        return a.elapsed_time(b) * 1e6

    def call(self, args, seed, check, timed_range=False, empty=False):
        """One call; returns {worker_ns, checker_ns, host_ns, passed, message}."""
        torch = self.torch
        if self.dead:
            raise CallFailed(self.dead)
        data, inputs, sealing = None, [], False
        output_pairs = []  # (the buffer the worker fills, this process's copy of it)
        key = self._case_key(args)
        if not empty:
            try:
                data = self.generate_input(**with_seed(args, seed))
                self.synchronize()
            except Exception as e:
                raise TaskError("generate_input raised " + _error_text(e))
            shared = self._shared_like(data, inputs)
            known = self.outputs.get(key)
            if known is not None:
                sealing = True
                limit = max(4 * self._bytes(data), 256 << 20)
                try:
                    _, given_bufs = rebuild(known, self.dtypes, self._allocate_shared, limit)
                    _, snap_bufs = rebuild(known, self.dtypes, self._allocate, limit)
                except ShapeError as e:
                    raise CallFailed(str(e))
                output_pairs = list(zip(given_bufs, snap_bufs))
            self.send({"op": "prepare", "sealed": sealing},
                      self.dumps((shared, [g for g, _ in output_pairs] if sealing else None)))
            ready = self.receive("ready")
            if ready.get("error"):
                raise CallFailed(ready["error"])
            self.synchronize()
        start, staged = self.event(enable_timing=True), self.event(enable_timing=True)
        sealed, stop = self.event(enable_timing=True), self.event(enable_timing=True)
        t0 = self.clock()
        start.record()
        if not empty:
            self._copies(inputs)
            self.flush_l2()
        staged.record()
        self.go.record()
        self.send({"op": "go", "empty": bool(empty), "range": bool(timed_range)})
        self.receive("queued")
        torch.cuda.current_stream().wait_event(self.queued)
        sealed.record()
        for given_buf, snap_buf in output_pairs:
            snap_buf.copy_(given_buf)
        stop.record()
        self.synchronize()
        done = self.receive("done")
        host_ns = self.clock() - t0
        if done.get("error"):
            raise CallFailed(done["error"])
        window_ns = staged.elapsed_time(stop) * 1e6
        result = {"worker_ns": float(done.get("worker_ns", 0.0)), "checker_ns": window_ns,
                  "host_ns": float(host_ns), "passed": True, "message": "", "sealed": sealing}
        if empty:
            return result
        if not sealing and done.get("output") is not None:
            self.outputs[key] = done.get("output")
        buffers = []
        output = None
        if sealing:
            if not done.get("sealed"):
                raise CallFailed("custom_kernel's output changed between calls of one case "
                                 "(the same arguments, another seed): " +
                                 str(done.get("unsealed", "")))
            output, buffers = self._sealed_output(done.get("output"), output_pairs)
        elif check:
            try:
                output, buffers = rebuild(done.get("output"), self.dtypes,
                                          self._allocate_shared,
                                          max(4 * self._bytes(data), 256 << 20))
            except ShapeError as e:
                raise CallFailed(str(e))
            self.send({"op": "fetch"}, self.dumps(list(buffers)))
            copied = self.receive("copied")
            if copied.get("error"):
                raise CallFailed(copied["error"])
        if check:
            try:
                passed, message = self._check(data, output)
            except Exception as e:
                passed, message = False, "the task's check raised " + _error_text(e)
            result["passed"], result["message"] = passed, message
        if sealing:
            # A timed call: what the copy-in (with the flush) and the output copies cost alone,
            # done again now that the output is checked (they write the shared buffers, so not
            # before). The window keeps only what is neither, and the copy-in's excess (the
            # worker's work racing it) is added back.
            early_ns = start.elapsed_time(staged) * 1e6 - self._timed_copies(inputs, flush=True)
            out_ns = self._timed_copies([(s, g) for g, s in output_pairs]) if output_pairs else 0
            result["checker_ns"] = window_ns + max(early_ns, 0.0) - 2 * out_ns
        self.keep((data, shared), [g for g, _ in output_pairs] + list(buffers))
        return result

    def _sealed_output(self, desc, output_pairs):
        """The output as the task's check sees it: this call's description (its plain values
        are this call's) around this process's copies of the tensors, taken when the window
        closed, in order; a description whose tensors are not those copies is refused."""
        copies = iter([b for _, b in output_pairs])

        def take(dtype, shape):
            t = next(copies, None)
            if t is None or t.dtype != dtype or list(t.shape) != list(shape):
                raise ShapeError("the worker described an output other than the one it handed "
                                 "over")
            return t
        try:
            output, buffers = rebuild(desc, self.dtypes, take, 1 << 62)
        except ShapeError as e:
            raise CallFailed(str(e))
        if len(buffers) != len(output_pairs):
            raise CallFailed("the worker described an output other than the one it handed over")
        return output, buffers

    def _allocate_shared(self, dtype, shape):
        with self.torch.cuda.use_mem_pool(self.pool):
            return self._allocate(dtype, shape)

    def keep(self, data, buffers):
        # The last calls' inputs stay alive, so every call's inputs are at new addresses.
        self.kept.append((self._bytes(data) + self._bytes(list(buffers)), data, buffers))
        while len(self.kept) > KEEP_CALLS or (
                len(self.kept) > 2 and sum(k[0] for k in self.kept) > KEEP_BYTES):
            self.kept.pop(0)

    def measure_crossing(self):
        least = None
        for _ in range(20):
            ns = self.call({}, 0, False, empty=True)["checker_ns"]
            least = ns if least is None else min(least, ns)
        self.crossing_ns = min(least, 10e6)
        return self.crossing_ns

    # --- the modes --------------------------------------------------------------------------
    def run_tests(self, cases):
        put = self.report.put
        put("test-count", len(cases))
        ok = True
        for i, (line, args) in enumerate(cases):
            p = "test.%d." % i
            put(p + "spec", line)
            try:
                r = self.call(args, args.get("seed", 0), True)
            except CallFailed as e:
                put(p + "status", "fail")
                put(p + "error", str(e))
                ok = False
                continue
            put(p + "status", "pass" if r["passed"] else "fail")
            if not r["passed"]:
                put(p + "error", r["message"] or "the task's check failed")
                ok = False
        return ok

    def _seed(self, args, rep):
        return repetition_seed(int(args.get("seed", 0)), rep, self.salt)

    def warm_up(self, args):
        t0 = self.clock()
        calls = 0
        while True:
            try:
                self.call(args, self._seed(args, (1 << 30) + calls + 1), False)
            except CallFailed:
                break
            calls += 1
            ms = (self.clock() - t0) / 1e6
            if (ms >= self.warmup_ms and calls >= 3) or calls >= 1000:
                break
        self.report.put("warmup-calls", calls)

    def run_benchmarks(self, cases):
        put = self.report.put
        put("benchmark-count", len(cases))
        if cases:
            self.warm_up(cases[0][1])
        for i, (line, args) in enumerate(cases):
            p = "benchmark.%d." % i
            put(p + "spec", line)
            ev, host, checker = [], [], []
            timed_s, checked, failure, why = 0.0, 0, "", ""
            t0 = self.clock()
            try:
                if i > 0:  # scratch a submission sizes to its input is made untimed
                    self.call(args, self._seed(args, (1 << 30) + 7919 + i), False)
                rep = 0
                while not why:
                    rep += 1
                    r = self.call(args, self._seed(args, rep), True)
                    checked += 1
                    if not r["passed"]:
                        failure = "repetition %d: %s" % (rep - 1,
                                                         r["message"] or "the check failed")
                        break
                    ev.append(r["worker_ns"])
                    host.append(r["host_ns"])
                    checker.append(r["checker_ns"])
                    timed_s += r["worker_ns"] * 1e-9
                    why = should_stop(self.rule, ev, timed_s, (self.clock() - t0) / 1e9)
            except CallFailed as e:
                failure = str(e)
            put(p + "times_ns", join_times(ev))
            put(p + "host_ns", join_times(host))
            put(p + "checker_ns", join_times(checker))
            put(p + "checked", checked)
            if failure:
                put(p + "status", "fail")
                put(p + "error", failure)
                return False
            put(p + "stop", why)
            put(p + "status", "pass")
        return True

    def run_profile(self, cases):
        if not cases:
            return False
        line, args = cases[0]
        self.report.put("profile.spec", line)
        try:
            self.call(args, self._seed(args, 1), False)
            r = self.call(args, args.get("seed", 0), True, timed_range=True)
        except CallFailed as e:
            self.report.put("profile.error", str(e))
            return False
        if not r["passed"]:
            self.report.put("profile.error", r["message"] or "the check failed")
        return r["passed"]


def main(argv, runner):
    fd, nonce = take_channel(os.environ)
    _not_dumpable()
    report = Report(fd, nonce, out=sys.stdout)
    if len(argv) < 2:
        sys.stderr.write("usage: kjudge_gpumode_runner.py MODE CASES_FILE submission=NAME\n")
        return 2
    mode, cases_file = argv[0], argv[1]
    options = dict(a.split("=", 1) for a in argv[2:] if "=" in a)
    rule, warmup_ms = parse_rule(options)
    with open(cases_file) as f:
        text = f.read()
    try:
        cases = read_cases(text)
    except ValueError as e:
        sys.stderr.write("kjudge harness: %s\n" % e)
        return 113  # GPU MODE's EXIT_TEST_SPEC
    # The seeds leave with the file: the worker, started below, finds neither.
    os.unlink(cases_file)
    salt = int.from_bytes(os.urandom(8), "little")
    workspace = os.getcwd()
    report.put("mode", mode)
    report.put("profiler", "absent")
    try:
        import torch
        torch.cuda.init()
    except Exception as e:
        sys.stderr.write("kjudge harness: torch with a CUDA GPU is needed: %s\n" % _error_text(e))
        sys.stderr.flush()
        os._exit(4)
    report.put("device", torch.cuda.get_device_name())
    report.put("process", "isolated")
    report.put("worker_profiler", "absent")
    sys.path.insert(0, workspace)
    ok = False
    checker = None
    try:
        try:
            import reference
        except Exception as e:
            raise TaskError("importing reference.py failed: " + _error_text(e))
        # Anything imported from here on is looked for in read-only places first.
        sys.path.remove(workspace)
        sys.path.append(workspace)
        checker = Checker(torch, reference, report, rule, warmup_ms, salt)
        report.put("l2_bytes", checker.l2_bytes)
        if not checker.start_worker(runner, options.get("submission", "submission.py"),
                                    os.environ):
            raise CallFailed(checker.dead)
        report.put("crossing_ns", "%.6g" % checker.measure_crossing())
        if mode == "test":
            ok = checker.run_tests(cases)
        elif mode in ("benchmark", "leaderboard"):
            ok = checker.run_benchmarks(cases)
        elif mode == "profile":
            ok = checker.run_profile(cases)
        else:
            sys.stderr.write("kjudge harness: unknown mode %s\n" % mode)
            return 2
    except TaskError as e:
        report.put("task-error", str(e))
    except CallFailed as e:
        # The submission never got to run (its import failed, or its process died first).
        key = "test" if mode == "test" else "benchmark"
        if not any(l.split(" ", 3)[2] == key + "-count" for l in report.lines):
            report.put(key + "-count", max(len(cases), 1))
            report.put(key + ".0.spec", cases[0][0] if cases else "")
        report.put(key + ".0.status", "fail")
        report.put(key + ".0.error", str(e))
    except Exception as e:
        # The judge's side failed (torch without what the harness needs, CUDA IPC refused):
        # no report, and the reason where the judge looks for it.
        sys.stderr.write("kjudge harness: %s\n" % _error_text(e))
        if checker is not None:
            checker.end_worker()
        sys.stderr.flush()
        os._exit(4)
    report.put("check", "pass" if ok else "fail")
    report.put("worker_end", checker.end_worker() if checker else "never started")
    try:
        report.write()
    except Exception as e:
        sys.stderr.write("kjudge harness: %s\n" % _error_text(e))
        os._exit(111)
    sys.stdout.flush()
    os._exit(0)
