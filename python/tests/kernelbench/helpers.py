"""What the KernelBench runner's tests share: python/ on sys.path (the runner's package is
imported as the entry imports it), a fake judge on a socket pair, and whether torch with a GPU
is here (the torch tests run only there: tests/gpu/run-kernelbench-checks.sh)."""

import os
import socket
import sys
import threading

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

import kjudge_kernelbench  # noqa: E402

for _name in kjudge_kernelbench.MODULES:
    __import__("kjudge_kernelbench." + _name)

ENTRY = os.path.join(PYTHON_DIR, "kjudge_kernelbench_runner.py")


def torch_cuda():
    try:
        import torch
        if getattr(torch, "__version__", "").endswith("-fake"):
            return None  # test_run_fake.py's stand-in, not torch
        return torch if torch.cuda.is_available() else None
    except Exception:  # noqa: BLE001
        return None


class FakeJudge:
    """The judge's end of the control channel, answering each line with `answer(line)`
    (default: the protocol's normal answers) and keeping what it read."""

    def __init__(self, answer=None):
        self.judge, self.child = socket.socketpair()
        self.lines = []
        self.answer = answer or self.normal
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    @staticmethod
    def normal(line):
        w = line.split()
        if w[0] in ("hello", "idle", "end"):
            return "ok"
        if w[0] in ("gpu", "time"):
            return "go"
        if w[0] == "pair":
            return "k " + ("%032x" % (int(w[1]) + 0xabc))
        if w[0] == "done":
            return "a " + w[1]
        return "refused"

    def serve(self):
        buf = b""
        while True:
            try:
                chunk = self.judge.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, _, buf = buf.partition(b"\n")
                text = line.decode()
                self.lines.append(text)
                try:
                    self.judge.sendall((self.answer(text) + "\n").encode())
                except OSError:
                    return

    def close(self):
        for s in (self.judge, self.child):
            try:
                s.close()
            except OSError:
                pass
