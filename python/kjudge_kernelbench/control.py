"""The control channel to the judge (src/kernelbench/runner/control.h): one line each way, the
runner asking, the judge answering. The GPU's phases (gpu/idle: among other processes; time/end:
alone), the key of each timed pair's inputs in its turn, each pair's times committed as it ends.
LocalControl stands in where no judge is (a run by hand): every phase granted, the keys from the
request's seed.
"""

import socket

from .held import digest


class ControlError(Exception):
    """The judge refused a message, or the channel is gone: the run cannot go on."""


class Control:
    def __init__(self, fd):
        sock = socket.socket(fileno=fd)
        # Held here: rebinding socket's methods later does not reach these.
        self._send = sock.sendall
        self._recv = sock.recv
        self._sock = sock
        self._buf = b""

    def _ask(self, line):
        self._send((line + "\n").encode("ascii"))
        while b"\n" not in self._buf:
            chunk = self._recv(4096)
            if not chunk:
                raise ControlError("the judge closed the control channel (after %r)" % line)
            self._buf += chunk
            if len(self._buf) > 4096:
                raise ControlError("the judge's answer is too long")
        reply, _, self._buf = self._buf.partition(b"\n")
        reply = reply.decode("ascii", "replace")
        if reply == "refused":
            raise ControlError("the judge refused %r" % line)
        return reply

    def _expect(self, line, want):
        reply = self._ask(line)
        if reply not in want:
            raise ControlError("the judge answered %r to %r" % (reply, line))
        return reply

    def hello(self):
        self._expect("hello", ("ok",))

    def gpu(self):
        self._expect("gpu", ("go",))

    def solo(self):
        self._expect("solo", ("go",))

    def idle(self):
        self._expect("idle", ("ok",))

    def time(self):
        """True: the GPU is this process's alone until end(); False: the judge times no more."""
        return self._expect("time", ("go", "skip")) == "go"

    def pair(self, k):
        reply = self._ask("pair %d" % k)
        if not reply.startswith("k ") or len(reply) != 34:
            raise ControlError("the judge answered %r to pair %d" % (reply, k))
        return reply[2:]

    def done(self, k, times, ok):
        """times: (sol, ref, cmp, sol_dev, ref_dev, cmp_dev) in ms, cmp None without one."""
        words = ["-" if t is None else repr(float(t)) for t in times]
        self._expect("done %d %s %d" % (k, " ".join(words), 1 if ok else 0), ("a %d" % k,))

    def end(self):
        self._expect("end", ("ok",))


class LocalControl:
    """No judge: every phase granted, the keys derived from `seed` (runs by hand, tests)."""

    def __init__(self, seed=0):
        self.seed = int(seed)
        self.log = []

    def hello(self):
        self.log.append("hello")

    def gpu(self):
        self.log.append("gpu")

    def solo(self):
        self.log.append("solo")

    def idle(self):
        self.log.append("idle")

    def time(self):
        self.log.append("time")
        return True

    def pair(self, k):
        self.log.append("pair %d" % k)
        return digest(("%016x/kjudge-kernelbench/pair/%d" % (self.seed, k)).encode())[:32]

    def done(self, k, times, ok):
        self.log.append("done %d" % k)

    def end(self):
        self.log.append("end")
