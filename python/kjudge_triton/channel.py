"""The result channel to the judge: the report as one line of JSON followed by the data blob,
written whole to a descriptor; and reading the request from one.
"""

import os

from .held import _dumps, _os_write


def channel_bytes(record, data):
    """The channel's content: one line of JSON (no raw newline: json.dumps escapes them), then
    the data the entries' offsets point into."""
    record = dict(record)
    record["data_bytes"] = len(data)
    return _dumps(record).encode("utf-8") + b"\n" + data


def read_fd(fd):
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def write_all(fd, payload):
    view = memoryview(payload)
    while view:
        n = _os_write(fd, view)
        view = view[n:]
