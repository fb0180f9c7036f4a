"""What the runner holds before any solution code runs: the host clock, the hash, the descriptor
calls and the report's JSON encoder, taken as the package loads (the entry imports it before the
request is read). Rebinding time.perf_counter, json.dumps or os.write later does not reach what
was taken here; rebinding these names themselves is seen by the tamper check (tamper.py).
"""

import hashlib
import json
import os
import time

_clock = time.perf_counter
_sha256 = hashlib.sha256
_os_read, _os_write, _os_exit, _os_close, _os_lseek = os.read, os.write, os._exit, os.close, os.lseek


def _compact_json_dumps():
    """json.dumps(value, separators=(",", ":")) made of the C encoder as it is now (json's
    module functions are looked up at each call, so solution code could replace them)."""
    from json import encoder as je
    make = getattr(je, "c_make_encoder", None)
    ascii_ = getattr(je, "c_encode_basestring_ascii", None)
    if make is None or ascii_ is None:  # a Python without the C speedups
        enc = json.JSONEncoder(separators=(",", ":"))
        iterencode = enc.iterencode
        return lambda value: "".join(iterencode(value))

    def default(o):
        raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)

    encode = make(None, default, ascii_, None, ":", ",", False, False, True)
    join = "".join
    return lambda value: join(encode(value, 0))


_dumps = _compact_json_dumps()


def digest(raw):
    return _sha256(raw).hexdigest()
