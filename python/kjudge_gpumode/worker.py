"""The worker: the process the submission runs in. It imports the submission's module, and on
the checker's word opens the input buffers the checker shared (CUDA IPC; the checker fills them
only once the call's window is open), calls custom_kernel between its own CUDA events, and
copies what it returned into the checker's buffers: inside the window, before the event the
checker waits on, when the checker handed buffers for it (the output's shapes known from an
earlier call of the case), else afterwards on "fetch". It has no result channel, no nonce, no
reference, no seeds: the checker keeps all of them (checker.py). What it says back is JSON alone
(wire.py), which the checker checks against its own view: its time is held to account by the
checker's events around the same call, and the output the checker checks is the checker's own
copy, taken when the window closes."""

import base64
import importlib
import os
import pickle
import sys
import time
import traceback

from .shape import ShapeError, describe
from .wire import receive, send


def _error_text(e):
    return "%s: %s" % (type(e).__name__, e)


def _hand_over(out, given, torch):
    """Copies out's tensors into the checker's buffers on this stream; '' when done, else why
    not (the output's tensors are not the ones the checker expected)."""
    tensors = []
    try:
        describe(out, lambda x: isinstance(x, torch.Tensor), tensors)
    except ShapeError as e:
        return str(e)
    if len(tensors) != len(given):
        return "%d tensors where %d were expected" % (len(tensors), len(given))
    for i, (src, dst) in enumerate(zip(tensors, given)):
        if src.dtype != dst.dtype or tuple(src.shape) != tuple(dst.shape):
            return "tensor %d is %s %s where %s %s was expected" % (
                i, src.dtype, tuple(src.shape), dst.dtype, tuple(dst.shape))
    try:
        for src, dst in zip(tensors, given):
            dst.copy_(src)
    except RuntimeError as e:
        return "the output could not be handed over: " + _error_text(e)
    return ""


def main(argv, runner):
    opts = dict(a.split("=", 1) for a in argv if "=" in a)
    for key in [k for k in os.environ if k.startswith("KJUDGE_")]:
        del os.environ[key]
    rfd, wfd = (int(x) for x in opts["fds"].split(","))
    import torch
    import torch.multiprocessing  # noqa: F401  (the CUDA tensor reductions pickle.loads uses)

    device = torch.cuda.current_device()
    Event = torch.cuda.Event
    synchronize = torch.cuda.synchronize
    clock = time.perf_counter_ns
    # The submission's folder (the workspace) first: it imports task.py, utils.py, maybe
    # reference.py, as in GPU MODE's eval.py.
    sys.path.insert(0, os.getcwd())
    name = opts.get("submission", "submission.py")
    try:
        module = importlib.import_module(os.path.splitext(os.path.basename(name))[0])
        custom_kernel = module.custom_kernel
    except BaseException as e:  # noqa: B902 (SystemExit at import is the submission's too)
        send(wfd, {"op": "hello", "ok": False,
                   "error": "importing the submission failed: " + _error_text(e),
                   "trace": traceback.format_exc()[-4000:]})
        return 0
    queued = Event(interprocess=True)
    queued.record()
    synchronize()
    send(wfd, {"op": "hello", "ok": True,
               "event": base64.b64encode(bytes(queued.ipc_handle())).decode("ascii")})
    go = None
    data = None
    out = None
    given = None
    start, stop = Event(enable_timing=True), Event(enable_timing=True)
    while True:
        msg, payload = receive(rfd)
        op = msg.get("op")
        if op == "exit":
            return 0
        if op == "setup":
            go = Event.from_ipc_handle(device, base64.b64decode(msg["event"]))
            send(wfd, {"op": "ready"})
        elif op == "prepare":
            data, out, given = None, None, None
            try:
                data, given = pickle.loads(payload)
                synchronize()
                send(wfd, {"op": "ready"})
            except Exception as e:
                send(wfd, {"op": "ready", "error": "the inputs could not be opened: " +
                           _error_text(e)})
        elif op == "go":
            stream = torch.cuda.current_stream()
            stream.wait_event(go)
            error = ""
            start.record()
            t0 = clock()
            if not msg.get("empty"):
                if msg.get("range"):
                    torch.cuda.nvtx.range_push("custom_kernel")
                try:
                    out = custom_kernel(data)
                except Exception as e:
                    error = "custom_kernel raised " + _error_text(e)
                if msg.get("range"):
                    torch.cuda.nvtx.range_pop()
            stop.record()
            unsealed = ""
            sealing = given is not None and not msg.get("empty")
            if sealing and not error:
                unsealed = _hand_over(out, given, torch)
            queued.record()
            send(wfd, {"op": "queued"})
            try:
                synchronize()
            except Exception as e:
                error = error or "custom_kernel (or the work it launched): " + _error_text(e)
            t1 = clock()
            reply = {"op": "done", "host_ns": t1 - t0}
            if error:
                reply["error"] = error
            else:
                try:
                    reply["worker_ns"] = start.elapsed_time(stop) * 1e6
                    if not msg.get("empty"):
                        tensors = []
                        reply["output"] = describe(out, lambda x: isinstance(x, torch.Tensor),
                                                   tensors)
                    if sealing:
                        reply["sealed"] = not unsealed
                        if unsealed:
                            reply["unsealed"] = unsealed
                except (ShapeError, RuntimeError) as e:
                    reply["error"] = str(e)
            send(wfd, reply)
        elif op == "fetch":
            try:
                buffers = pickle.loads(payload)
                tensors = []
                describe(out, lambda x: isinstance(x, torch.Tensor), tensors)
                if len(tensors) != len(buffers):
                    raise ShapeError("the output changed after the call")
                for dst, src in zip(buffers, tensors):
                    dst.copy_(src)
                synchronize()
                send(wfd, {"op": "copied"})
            except Exception as e:
                send(wfd, {"op": "copied", "error": "the output could not be handed over: " +
                           _error_text(e)})
            buffers = None
        else:
            send(wfd, {"op": "error", "error": "unknown message %r" % (op,)})
