"""One whole run: the request's modes (test, time) in order, each stage's failure tagged, the
record and data blob the judge reads, and the tamper check's findings.
"""

import sys

from .errors import StageError, describe_exception
from .execute import execute, import_optional
from .held import _clock
from .recorder import CallRecorder, entry_args_request
from .results import encode_results, torch_tensor_parts
from .tamper import Tamper
from .timing import CudaTimer
from .torchops import TorchOps
from .watch import RuntimeWatch
from .zerofill import zero_fill


PROTOCOL = 1


def environment(torch):
    env = {"python": sys.version.split()[0]}
    if torch is not None and hasattr(torch, "__version__"):
        env["torch"] = torch.__version__
        env["cuda"] = str(torch.version.cuda)
        if torch.cuda.is_available():
            env["gpu"] = torch.cuda.get_device_name(torch.cuda.current_device())
    triton = sys.modules.get("triton") or (import_optional("triton") if torch else None)
    if triton is not None:
        env["triton"] = getattr(triton, "__version__", "?")
    return env


def run(request, modules=None, stream=None):
    """The whole run: (record, data). `modules` (torch, np), or (torch, np, ops) with the
    timed-call check's tensor operations (TorchOps), lets tests pass fakes. `stream` is the
    judge's per-call channel (CallStream); None: keys from the request (LocalKeys)."""
    record = {"protocol": PROTOCOL, "nonce": request.get("nonce", ""), "status": "ok"}
    seconds = {}
    data = b""
    tamper = Tamper()  # before any operator code runs
    tamper.watch("stream", stream)
    try:
        t0 = _clock()
        if modules is None:
            try:
                torch = __import__("torch")
            except BaseException as e:  # noqa: BLE001
                # Only the judge's own CPU tests ask to go on without torch (pure-Python
                # operators returning Python numbers): a real run needs it.
                if request.get("require_torch", True):
                    raise StageError("setup", e)
                torch = None
            np = import_optional("numpy")
            ops = None
        else:
            torch, np, ops = (tuple(modules) + (None,))[:3]
        seconds["setup"] = _clock() - t0
        modes = request.get("modes", ["test"])
        record["env"] = environment(torch)
        # Before any operator code runs (environment() has imported triton): the baseline of
        # what may run beside the timed calls.
        watch = RuntimeWatch(torch) if torch is not None else None
        if ops is None and torch is not None:
            ops = TorchOps(torch, np)
        tamper.watch("check's tensor operations", ops)
        tamper.watch("watch", watch)
        # The zero fill, for test and timed runs alike: in timed ones memory the test never set
        # would otherwise differ from one process to the next, and so would the timed outputs
        # the judge compares. The fill's time counts on both sides alike.
        fill = zero_fill(torch) if request.get("zero_fill", False) else None
        if fill is not None:
            record["zero_fill"] = fill.report
        if "test" in modes:
            t0 = _clock()
            try:
                keep = entry_args_request(request.get("entry_args"))
            except ValueError as e:
                raise StageError("setup", e)
            if keep is not None and ops is None:
                raise StageError("setup", RuntimeError("keeping entry arguments needs torch"))
            recorder = CallRecorder(ops, keep=keep, stream=stream) if ops is not None else None
            tamper.watch("recorder", recorder)
            if keep is not None:
                record["entry_args"] = recorder.kept
            results, source, entries, shadowed = execute(request, torch, np, None, recorder,
                                                         fill)
            seconds["test"] = _clock() - t0
            record["result_source"] = source
            record["entries"] = entries.wrapped
            record["calls"] = entries.counts
            if shadowed:
                record["shadowed"] = shadowed
            try:
                out, data = encode_results(results, torch_tensor_parts(torch, np))
            except BaseException as e:  # noqa: BLE001
                raise StageError("result", e)
            record["outputs"] = {"entries": out, "data_bytes": len(data)}
            if recorder is not None:
                # What the calls gave follows the test's outputs in the blob.
                for call in recorder.calls:
                    if call["outputs"] is not None:
                        call["outputs"]["offset"] += len(data)
                data = data + bytes(recorder.blob)
                record["call_outputs"] = recorder.calls
        if "time" in modes:
            t0 = _clock()
            try:
                timer = CudaTimer(torch, request.get("timing", {}), ops=ops, np=np,
                                  watch=watch, stream=stream)
            except BaseException as e:  # noqa: BLE001
                raise StageError("setup", e)
            for name, obj in (("timer", timer), ("check", timer.check),
                              ("marks", timer.marks), ("persisting L2", timer.persisting_l2)):
                tamper.watch(name, obj)
            timer.tamper = tamper
            record["env"]["persisting_l2"] = timer.persisting_l2.describe()
            try:
                _, source, entries, _ = execute(request, torch, np, timer, None, fill)
            except StageError as e:
                if e.stage == "call":
                    e.stage = "time"
                raise
            # The timed calls' outputs follow the test's in the blob; offsets count from its start.
            for site in timer.sites:
                for rep in site["check"]["outputs"]:
                    rep["offset"] += len(data)
            data = data + bytes(timer.check.blob)
            record["timing"] = {
                "flush_bytes": timer.flush_bytes, "l2_bytes": timer.l2_bytes,
                "persisting_l2_resets": timer.persisting_l2.resets,
                "warmup": timer.warmup, "reps": timer.reps, "sites": timer.sites,
                "calls": entries.counts,
            }
            if timer.marks is not None:
                # After the last timed call's synchronize: the record holds all of its work.
                record["cupti"] = timer.marks.report()
            seconds["time"] = _clock() - t0
    except StageError as e:
        record["status"] = "error"
        record["error"] = describe_exception(e.stage, e.exc)
        data = b""
        record.pop("outputs", None)
        record.pop("call_outputs", None)
    except BaseException as e:  # noqa: BLE001 - the runner's own fault
        record["status"] = "error"
        record["error"] = describe_exception("runner", e)
        data = b""
        record.pop("outputs", None)
        record.pop("call_outputs", None)
    record["seconds"] = seconds
    changed = tamper.changes()
    if changed:
        record["tampered"] = changed
    return record, data
