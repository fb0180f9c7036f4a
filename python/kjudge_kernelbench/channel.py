"""The result channel to the judge: the report as one line of JSON, written whole to a
descriptor; and reading the request from one.
"""

from .held import _dumps, _os_lseek, _os_read, _os_write


def report_bytes(record):
    """The channel's content: one line of JSON (json escapes every newline inside it)."""
    return _dumps(record).encode("utf-8") + b"\n"


def read_fd(fd):
    _os_lseek(fd, 0, 0)
    chunks = []
    while True:
        chunk = _os_read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def write_all(fd, payload):
    view = memoryview(payload)
    while view:
        n = _os_write(fd, view)
        view = view[n:]
