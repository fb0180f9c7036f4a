"""Messages between the checker and the worker, on a pipe each way: a message is an 8-byte
length and that much JSON, then an 8-byte length and that much payload (often none).

The direction matters. Checker to worker, the payload may be a pickle (the inputs and the
receive buffers as torch's CUDA IPC handles: torch.multiprocessing's reductions): the worker
trusts the checker. Worker to checker, only JSON, never a payload: unpickling what the
submission's process wrote would run its code in the checker, and the checker refuses any
message over MAX_JSON bytes, so a worker cannot make it hold more than that."""

import json
import os
import struct

MAX_JSON = 1 << 20
_LEN = struct.Struct("<Q")


class WireError(RuntimeError):
    pass


def _read_exact(fd, n):
    chunks = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise WireError("the other process closed its end")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def send(fd, message, payload=b""):
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    _write_all(fd, _LEN.pack(len(body)) + body + _LEN.pack(len(payload)))
    if payload:
        _write_all(fd, payload)


def receive(fd, max_json=MAX_JSON, allow_payload=True):
    """(message, payload). With allow_payload=False (the checker reading the worker) a message
    that carries one is refused, as is one over max_json bytes or one that is not a JSON
    object."""
    (n,) = _LEN.unpack(_read_exact(fd, _LEN.size))
    if n > max_json:
        raise WireError("a message of %d bytes (at most %d)" % (n, max_json))
    try:
        message = json.loads(_read_exact(fd, n).decode("utf-8"))
    except ValueError as e:
        raise WireError("a message that is not JSON: %s" % e)
    if not isinstance(message, dict):
        raise WireError("a message that is not a JSON object")
    (m,) = _LEN.unpack(_read_exact(fd, _LEN.size))
    if m and not allow_payload:
        raise WireError("a message with a payload, which the checker never takes")
    payload = _read_exact(fd, m) if m else b""
    return message, payload
