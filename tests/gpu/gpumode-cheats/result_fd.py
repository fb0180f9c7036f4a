# A cheat (issue 36): a wrong sum, and "check: pass" written to every descriptor it can reach,
# its own and its parent's (through /proc/PPID/fd), as GPU MODE's result channel expects it.
import atexit
import os

from task import input_t, output_t

LINE = b"check: pass\n"


def _forge():
    for pid in ("self", str(os.getppid())):
        base = "/proc/%s/fd" % pid
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            if name in ("0", "1", "2"):
                continue
            try:
                fd = os.open(os.path.join(base, name), os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                os.write(fd, LINE)
            except OSError:
                pass
            os.close(fd)


_forge()
atexit.register(_forge)


def custom_kernel(data: input_t) -> output_t:
    A, B, output = data
    output[...] = A - B
    _forge()
    return output
