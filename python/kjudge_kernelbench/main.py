"""The runner's main: its command line, the judge's descriptors taken over (on numbers of its own,
not inheritable, the judge's numbers closed), the first message on the control channel sent
before any other code runs, the run, and the report written before the process leaves
(os._exit: no handler of the solution's runs after).
"""

import argparse
import json
import os
import sys

from .channel import read_fd, report_bytes, write_all
from .control import Control, LocalControl
from .held import _os_close, _os_exit, _os_lseek
from .run import run
from .tamper import Tamper

DESCRIPTION = ("kjudge's KernelBench runner: judges one solution's ModelNew against its "
               "problem's reference Model")


def main(argv):
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--request-fd", type=int)
    parser.add_argument("--result-fd", type=int)
    parser.add_argument("--control-fd", type=int)
    parser.add_argument("--request", help="a request file (a run by hand)")
    parser.add_argument("--output-dir", help="where a run by hand writes report.json")
    args = parser.parse_args(argv)
    if (args.request_fd is None) == (args.request is None):
        parser.error("give exactly one of --request-fd and --request")
    if (args.result_fd is None) == (args.output_dir is None):
        parser.error("give exactly one of --result-fd and --output-dir")
    tamper = Tamper()
    control = None
    if args.control_fd is not None:
        # Its number closed once ours is made: processes the solution starts do not get it.
        fd = os.dup(args.control_fd)
        os.close(args.control_fd)
        control = Control(fd)
        control.hello()
    if args.request_fd is not None:
        raw = read_fd(args.request_fd)
        os.close(args.request_fd)
    else:
        with open(args.request, "rb") as f:
            raw = f.read()
    request = json.loads(raw.decode("utf-8"))
    if control is None:
        control = LocalControl(request.get("seed", 0))
    result_fd = None
    if args.result_fd is not None:
        result_fd = os.dup(args.result_fd)
        os.close(args.result_fd)
    sys.argv = [request.get("solution_path", "solution.py")]
    for key in [k for k in os.environ if k.startswith("KJUDGE_")]:
        del os.environ[key]
    # What the end of the run calls, held in this frame before any solution code runs.
    finish, write, lseek, close, exit_ = report_bytes, write_all, _os_lseek, _os_close, _os_exit
    record = run(request, control, tamper)
    payload = finish(record)
    if result_fd is not None:
        lseek(result_fd, 0, os.SEEK_SET)
        write(result_fd, payload)
        close(result_fd)
    else:
        os.makedirs(args.output_dir, exist_ok=True)
        with open(os.path.join(args.output_dir, "report.json"), "wb") as f:
            f.write(payload)
    sys.stdout.flush()
    exit_(0)
