"""The runner's main: its command line, the request read, the judge's descriptors taken over,
what the operator code could find them by removed, the run, and the report written before the
process leaves (os._exit: no handler of the operator code's runs after).
"""

import argparse
import json
import os
import sys

from .channel import channel_bytes, read_fd, write_all
from .execute import import_optional
from .held import _clock, _os_close, _os_exit
from .run import run
from .stream import CallStream

# What --help says of the runner (the first line of the single-file runner's docstring).
DESCRIPTION = ("kjudge's TritonBench runner: runs one operator's test code against one piece of "
               "operator code")


def main(argv):
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--request-fd", type=int)
    parser.add_argument("--result-fd", type=int)
    parser.add_argument("--request")
    parser.add_argument("--output-dir")
    parser.add_argument("--go-fd", type=int)
    parser.add_argument("--stream-fd", type=int)
    args = parser.parse_args(argv)
    if (args.request_fd is None) == (args.request is None):
        parser.error("give exactly one of --request-fd and --request")
    if (args.result_fd is None) == (args.output_dir is None):
        parser.error("give exactly one of --result-fd and --output-dir")

    early = {}
    if args.go_fd is not None:
        # Started ahead of its turn (the judge's timed rounds): the imports, most of a timing
        # process's time, run while the process before it is timing. Nothing here touches the
        # GPU (torch and triton start CUDA lazily); the request is written just before the go.
        t0 = _clock()
        for name in ("torch", "numpy", "triton"):
            import_optional(name)
        t1 = _clock()
        go = os.read(args.go_fd, 1)
        os.close(args.go_fd)
        if go != b"g":
            os._exit(0)  # cancelled: its turn will not come
        early = {"preload": t1 - t0, "wait": _clock() - t1}
    if args.request_fd is not None:
        raw = read_fd(args.request_fd)
        os.close(args.request_fd)
    else:
        with open(args.request, "rb") as f:
            raw = f.read()
    request = json.loads(raw.decode("utf-8"))
    result_fd = None
    if args.result_fd is not None:
        # A descriptor of our own choosing, not inheritable (os.dup's default): processes the
        # operator code starts do not get it. The number the judge chose is closed.
        result_fd = os.dup(args.result_fd)
        os.close(args.result_fd)
    stream = None
    if args.stream_fd is not None:
        # The judge's per-call channel, likewise on a number of our own, not inheritable.
        stream = CallStream(os.dup(args.stream_fd))
        os.close(args.stream_fd)
    # What the operator code could read to find the channel easily, gone (see the module doc).
    sys.argv = [request.get("candidate_path", "candidate.py")]
    for key in [k for k in os.environ if k.startswith("KJUDGE_")]:
        del os.environ[key]

    # What the end of the run calls, held here before any operator code runs: rebinding the
    # module's names later does not reach this frame (Tamper reports it).
    finish, write, lseek, close, exit_ = channel_bytes, write_all, os.lseek, _os_close, _os_exit
    record, data = run(request, stream=stream)
    record.setdefault("seconds", {}).update(early)
    payload = finish(record, data)
    if result_fd is not None:
        lseek(result_fd, 0, os.SEEK_SET)
        write(result_fd, payload)
        close(result_fd)
    else:
        os.makedirs(args.output_dir, exist_ok=True)
        line, _, blob = payload.partition(b"\n")
        with open(os.path.join(args.output_dir, "record.json"), "wb") as f:
            f.write(line + b"\n")
        with open(os.path.join(args.output_dir, "outputs.bin"), "wb") as f:
            f.write(blob)
    sys.stdout.flush()
    # Exit without running the operator code's atexit handlers or finalizers: the report is
    # written, and nothing it left behind may change the exit status now.
    exit_(0)
