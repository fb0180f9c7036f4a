"""What the runner holds before any operator code runs: the host clock, the hash, the
descriptor calls and the report's JSON encoder, taken as the package loads (the entry imports it
before the request is read). Operator code runs in this very process and can rebind the
modules' names (perf_counter, json.dumps, os.write); what was taken here is not reached by that,
and rebinding these names themselves is seen by the tamper check (tamper.py).
"""

import hashlib
import hmac
import json
import os
import time


# The host clock, taken as this module loads, before any operator code runs: code that
# replaces time.perf_counter (tests/cheats/triton/patched_timer.py) changes what it calls, not
# what the runner's budgets, host times and stage times read.
_clock = time.perf_counter
# Likewise what the runner reports and hashes with, and how it leaves (issue 31: a candidate that
# replaced json.dumps halved every sample the report carried). Rebinding these names later is
# seen by the tamper check (Tamper), and what the report says of the timed calls was already
# committed to the judge call by call (CallStream), so a report rewritten at the end is refused.
_sha256 = hashlib.sha256
_hmac_new = hmac.new
_os_read, _os_write, _os_exit, _os_close = os.read, os.write, os._exit, os.close


def _compact_json_dumps():
    """json.dumps(value, separators=(",", ":")) made of the C encoder as it is now: json's module
    functions and JSONEncoder's methods are looked up at each call, so operator code could
    replace them; this encoder object is built once, here."""
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
