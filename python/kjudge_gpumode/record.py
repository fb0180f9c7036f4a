"""The report to the judge, over the same channel and in the same records as kjudge's CUDA
harness (src/perf/harness_record.h): the judge opens a memfd, writes a random nonce into it and
names it in KJUDGE_RESULT_FD; the checker takes the number, drops the variable, reads the nonce,
empties the file and keeps the descriptor from its children. Every record is one line,
`KJ1 <nonce> <key> <value>`, the last one `end <count of those before it>`. The records are held
in memory and written at the very end, in one piece, and the file is then sealed (no more
writes by anyone) and read back. The worker never has the descriptor or the nonce: it is started
without either (checker.py), and this process is not dumpable (no /proc/<pid>/fd or mem for it).
"""

import fcntl
import os

ENV = "KJUDGE_RESULT_FD"
_SEALS = getattr(fcntl, "F_SEAL_WRITE", 8) | getattr(fcntl, "F_SEAL_SHRINK", 2) | \
    getattr(fcntl, "F_SEAL_GROW", 4) | getattr(fcntl, "F_SEAL_SEAL", 1)
_ADD_SEALS = getattr(fcntl, "F_ADD_SEALS", 1033)


class ChannelError(RuntimeError):
    pass


def take_channel(environ):
    """(fd, nonce) from `environ` (os.environ), the variable removed; (-1, "-") when the
    harness runs by hand (records then go to stdout)."""
    raw = environ.pop(ENV, None)
    if raw is None:
        return -1, "-"
    try:
        fd = int(raw)
    except ValueError:
        raise ChannelError("%s is not a descriptor: %r" % (ENV, raw))
    data = os.pread(fd, 128, 0)
    nonce = data.split(b"\n", 1)[0].decode("ascii", "replace")
    if not nonce:
        raise ChannelError("the result channel holds no nonce")
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, False)
    return fd, nonce


class Report:
    def __init__(self, fd, nonce, out=None):
        self.fd = fd
        self.nonce = nonce
        self.lines = []
        self.out = out  # run by hand: where the records are shown

    def put(self, key, value):
        v = str(value).replace("\n", " ").replace("\r", " ")
        self.lines.append("KJ1 %s %s %s\n" % (self.nonce, key, v))

    def text(self):
        return "".join(self.lines) + "KJ1 %s end %d\n" % (self.nonce, len(self.lines))

    def write(self):
        """Writes the records and the end record, seals the channel and reads it back."""
        payload = self.text().encode("utf-8")
        if self.fd < 0:
            if self.out is not None:
                self.out.write(payload.decode("utf-8"))
            return
        view = memoryview(payload)
        while view:
            n = os.write(self.fd, view)
            if n <= 0:
                raise ChannelError("the result channel took no more bytes")
            view = view[n:]
        try:
            fcntl.fcntl(self.fd, _ADD_SEALS, _SEALS)
        except OSError as e:
            raise ChannelError("the result channel could not be sealed: %s" % e)
        back = os.pread(self.fd, len(payload) + 1, 0)
        if back != payload:
            raise ChannelError("the result channel changed before it was sealed")


def join_times(xs):
    return ",".join("%.1f" % x for x in xs)
