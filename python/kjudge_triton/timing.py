"""Timing: CUDA events around each call the test makes, L2 flushed before each repetition, the
stream held where the host queues slower than the GPU runs, each timed call's output kept for
the check (check.py) and committed to the judge (stream.py).
"""

from .callinfo import call_values, tensor_bytes
from .check import CallCheck, observation
from .held import _clock, digest
from .marks import CallMarks
from .persisting_l2 import PersistingL2
from .stream import LocalKeys
from .torchops import TorchOps
from .watch import RuntimeWatch


class CudaTimer:
    """Per call site (the n-th outermost entry call of the test): the call the test makes (its
    result goes back to the test), `warmup` untimed calls on plain copies, then up to `reps`
    timed calls on fresh copies (new content where the site's plan says), each timed one after
    writing a buffer larger than L2, each one's output kept for the judge (CallCheck: whole, or
    a sample of each large tensor where the whole would not fit its byte budgets). The time
    of one repetition runs from an event recorded after the flush was queued to an event recorded
    on the same stream right after the call returned. A third event, recorded once
    torch.cuda.synchronize() (every stream of the device) has returned, gives the call's tail:
    when the site's median tail is over `side_work_ms`, work went on outside the call's stream
    and the site is timed to that third event instead (`end: "device"`). Every call starts from
    the random state the test's own call had, so an operator that draws random numbers gives the
    same answer in every process.

    A call the host takes longer to queue than the GPU takes to run (a small operator behind a
    Python wrapper) would be timed by how fast this process's thread queued it, which differs
    from one process to the next by more than the kernel's own time. Where the start event has
    already passed when the call returns (the GPU waited on the host), the stream is held
    instead: a spin kernel (torch.cuda._sleep) queued before the start event, long enough for
    the whole call to be queued behind it, so the events see the GPU's work alone. Such a
    repetition is not counted and the hold grows (`hold_ms`); a call that still finds its start
    passed with the longest hold waits on the GPU itself (a .item(), a copy to the host): it is
    timed without a hold and reported `host_bound`."""

    def __init__(self, torch, params, ops=None, np=None, watch=None, marks=None,
                 persisting_l2=None, stream=None):
        self.torch = torch
        self._watch = watch if watch is not None else RuntimeWatch(torch)
        # Taken before the operator code runs: patching torch.cuda.Event.elapsed_time or
        # torch.cuda.synchronize later does not reach these references.
        self._event = torch.cuda.Event
        self._record = torch.cuda.Event.record
        self._elapsed = torch.cuda.Event.elapsed_time
        self._sync = torch.cuda.synchronize
        self._zero = torch.Tensor.zero_
        self._tensor = torch.Tensor
        self._query = getattr(torch.cuda.Event, "query", None)
        self._spin = getattr(torch.cuda, "_sleep", None)
        # The longest hold: what a call may take the host to queue and still be timed as GPU
        # work alone. Longer, and a candidate's work on a stream of its own would get that much
        # GPU time before the start event unseen.
        self.max_hold_ms = float(params.get("max_hold_ms", 2.0))
        self._cycles_per_ms = None
        self.warmup = int(params.get("warmup", 3))
        self.reps = int(params.get("reps", 30))
        self.min_reps = max(1, min(self.reps, int(params.get("min_reps", 5))))
        self.budget_s = float(params.get("max_ms_per_site", 2000)) / 1000.0
        # A tail above this is more than a thread waking from a synchronize (tens of µs).
        self.side_work_ms = float(params.get("side_work_ms", 0.2))
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = int(getattr(props, "L2_cache_size", 0) or 0)
        flush = int(params.get("flush_bytes", 0) or 0) or max(2 * l2, 256 << 20)
        self.flush_bytes = flush
        self.l2_bytes = l2
        self.flush_buffer = torch.empty(flush // 4, dtype=torch.int32, device="cuda")
        # After the buffer: torch's context is current on this thread by now.
        self.persisting_l2 = persisting_l2 if persisting_l2 is not None else PersistingL2()
        self.check = CallCheck(ops if ops is not None else TorchOps(torch, np),
                               params.get("check") or {})
        # Where each timed call's key comes from, and where what it gave is committed: the
        # judge (CallStream), or the request's seed (LocalKeys, runs by hand and tests).
        self.stream = stream if stream is not None else LocalKeys(self.check.secret)
        self.tamper = None  # run() hands it its Tamper, looked at after every timed call
        self.sites = []
        # Resolved here, before the operator code runs, like the references above.
        self.marks = (marks if marks is not None else CallMarks()) if params.get("cupti") \
            else None

    def measure(self, name, fn, args, kwargs, reset=None):
        reset = reset or (lambda: None)
        check = self.check
        index = len(self.sites)
        marks = self.marks if self.marks is not None and self.marks.active else None
        timed_fn = fn
        if marks is not None:
            fn = marks.untimed(index, fn)  # every call but the timed ones below
        result = fn(*args, **kwargs)
        self._sync()
        moved = tensor_bytes(list(args) + list(kwargs.values()) + [result], self._tensor)
        values = call_values(fn, args, kwargs, result, self._tensor)
        for _ in range(self.warmup):  # on copies too: the test's own tensors stay as it left them
            a, k, _ = check.inputs(args, kwargs, (), index, "warmup")
            reset()
            fn(*a, **k)
        self._sync()
        plan = check.site_plan(index, fn, args, kwargs, reset)
        reps = self.reps if plan["reps"] is None else max(1, min(self.reps, plan["reps"]))
        min_reps = min(self.min_reps, reps)
        samples, device, tails, outputs, changed = [], [], [], [], []
        watched = set()
        kept = 0  # bytes of this site's timed outputs in the blob
        hold, host_bound, held_once, not_counted, strikes = 0.0, False, False, 0, 0
        stream = self.stream
        keyed, key = -1, None  # the repetition whose key is in hand (a retry keeps it)
        started = _clock()
        while len(samples) < reps:
            if keyed != len(samples):
                keyed, key = len(samples), stream.key(index, len(samples))
            a, k, changed = check.inputs(args, kwargs, plan["perturb"], index, len(samples),
                                         key)
            start = self._event(enable_timing=True)
            end = self._event(enable_timing=True)
            after = self._event(enable_timing=True)
            reset()
            self._sync()
            self.persisting_l2()
            self._zero(self.flush_buffer)
            if hold > 0:
                self._spin(self._cycles(hold))
            # The call's window (--cupti) brackets the events, so that reading the profiler's
            # clock never sits between an event and the call it times.
            t0 = marks.now() if marks is not None else 0
            self._record(start)
            queued = _clock()
            out = timed_fn(*a, **k)
            # Queued right behind the call's work. An end recorded only after the synchronize
            # timed how fast this process's thread woke up and queued it: tens of µs that differ
            # from one process to the next, which made an operator's self-speedup 0.5 or 1.2.
            self._record(end)
            host_ms = (_clock() - queued) * 1000.0
            t1 = marks.now() if marks is not None else 0
            waited = self._query is not None and bool(self._query(start))
            self._sync()
            self._record(after)
            self._sync()
            if waited and not host_bound and self._spin is not None:
                # The GPU reached the start before the call was queued: this repetition is done
                # again (same inputs) with the stream held longer.
                if hold < self.max_hold_ms:
                    hold = min(self.max_hold_ms, max(2 * hold, 1.5 * host_ms + 0.02))
                elif not held_once:
                    # The longest hold has not covered a call yet. Three times in a row: the
                    # call waits on the GPU itself (a hold is only waited out inside it). Fewer
                    # can be the host being slow once (the H100 showed single calls of 1-2 ms).
                    strikes += 1
                    if strikes >= 3:
                        hold, host_bound = 0.0, True
                if not host_bound and not_counted < 2 * reps:
                    not_counted += 1
                    if marks is not None:
                        marks.calls.append([index, -1, t0, t1])
                    del out, a, k
                    continue
            held_once = held_once or (hold > 0 and not waited)
            strikes = 0
            rep = len(samples)
            if marks is not None:
                marks.calls.append([index, rep, t0, t1])
            samples.append(float(self._elapsed(start, end)))
            device.append(float(self._elapsed(start, after)))
            tails.append(float(self._elapsed(end, after)))
            # Committed now: the report's samples must say the same at the end.
            sample_key = stream.done(index, rep, samples[-1], device[-1])
            watched.update(self._watch.seen())
            if self.tamper is not None:
                self.tamper.note()
            value = observation(out, a, k, plan["observe"], check.ops.is_tensor)
            del out, a, k
            if check.plan is None and rep == 0:
                # What this process and the judge hold stays bounded: which calls keep their
                # whole output and how much of it the others keep, decided here from the shapes
                # and handed on in the plan to every later process.
                reps = check.split(plan, value, reps, min_reps)
            outputs.append(check.keep(value, index, rep, plan, kept, sample_key))
            start_at = outputs[-1]["offset"]
            stream.kept(index, rep,
                        digest(bytes(check.blob[start_at:start_at + outputs[-1]["data_bytes"]])))
            kept += outputs[-1]["data_bytes"]
            del value
            if len(samples) >= min_reps and _clock() - started > self.budget_s:
                break
        tail = sorted(tails)[len(tails) // 2] if tails else 0.0
        side_work = tail > self.side_work_ms
        self.sites.append({"entry": name, "index": index,
                           "samples_ms": device if side_work else samples,
                           "end": "device" if side_work else "stream", "tail_ms": tail,
                           "hold_ms": hold, "host_bound": host_bound, "not_counted": not_counted,
                           "bytes": moved, "values": values,
                           "check": {"mode": plan["mode"], "reason": plan["reason"],
                                     "perturbed": changed, "observed": plan["observe"],
                                     "probe": plan["probe"],
                                     "whole": len(outputs) if plan["whole"] is None
                                     else min(len(outputs), plan["whole"]),
                                     "sample": plan["sample"], "outputs": outputs}})
        if watched:
            self.sites[-1]["watch"] = sorted(watched)
        return result

    def _cycles(self, ms):
        """GPU clock cycles of a spin of `ms`, from one timed spin (the clock as it runs now)."""
        if self._cycles_per_ms is None:
            probe = 1 << 20
            a, b = self._event(enable_timing=True), self._event(enable_timing=True)
            self._sync()
            self._record(a)
            self._spin(probe)
            self._record(b)
            self._sync()
            self._cycles_per_ms = probe / max(float(self._elapsed(a, b)), 1e-3)
        return max(1, int(ms * self._cycles_per_ms))
