"""Test mode's entry-call recorder: what each outermost call of the operator returned and left
in its tensor arguments (whole, a sample, or only the arguments the request's entry_args names),
each call's record committed to the judge as it is made.
"""

from .check import SAMPLE_ELEMENTS, arg_paths, observation, sample_seed
from .held import digest
from .results import encode_results, flatten
from .stream import LocalKeys, StreamError


CALL_OUTPUT_BYTES = 16 << 20  # test mode: what the calls gave, kept up to this much in all
ENTRY_ARGS_BYTES = 256 << 20  # entry_args: the kept arguments of all the entry's calls
# Test mode: calls too large to keep whole beyond CALL_OUTPUT_BYTES keep a sample of each large
# tensor (SAMPLE_ELEMENTS elements, as the timed calls do), while the samples hold up to this.
CALL_SAMPLE_BYTES = 64 << 20


def encoded_sizes(ops, value):
    """[(elements, bytes each)] of what encoding `value` keeps whole, from shapes alone: a pair
    per tensor leaf (ops.encoded_size) and per Python number."""
    out = []
    for _, leaf in flatten(value):
        size = ops.encoded_size(leaf)
        if size is not None:
            out.append(size)
        elif isinstance(leaf, bool):
            out.append((1, 1))
        elif isinstance(leaf, (int, float)):
            out.append((1, 8))
    return out


def entry_args_request(value):
    """The request's "entry_args" checked: None, or {"entry": name, "args": [positions],
    "max_bytes": n}."""
    if value is None:
        return None
    ok = (isinstance(value, dict) and isinstance(value.get("entry"), str)
          and isinstance(value.get("args"), list) and value["args"]
          and all(type(i) is int and 0 <= i <= 1024 for i in value["args"]))
    max_bytes = value.get("max_bytes", ENTRY_ARGS_BYTES) if isinstance(value, dict) else None
    if not ok or type(max_bytes) is not int or max_bytes <= 0:
        raise ValueError("entry_args %r is not {entry, args, max_bytes}" % (value,))
    return {"entry": value["entry"], "args": list(value["args"]), "max_bytes": max_bytes}


class CallRecorder:
    """Test mode: what each outermost call returned and left in its tensor arguments. The judge
    compares a candidate's with the reference's: where they differ although the test passed
    (an auxiliary output, a scratch buffer the test never looks at), the timed calls' outputs
    are not compared either. The test's own run is the one whose results are checked, so a
    candidate cannot widen that set by behaving otherwise once timed. Calls are kept whole or
    not at all (outputs None): while the blob stays within `max_bytes`.

    With `keep` (the request's entry_args: an operator whose output is an argument and whose
    calls are too large to be kept whole), the calls of the entry `keep["entry"]` keep only the
    arguments at the positions `keep["args"]` ("args[3]"; a list or tuple there as
    "args[3][0]", ...; a position the call does not have is left out), as they are after the
    call, without the result, while the blob stays within `keep["max_bytes"]`; other entries'
    calls are kept as above. `kept` is the report: the entry's calls, those recorded, and
    their bytes.

    A call too large to keep whole (issue 31: destindex_copy_kv's call holds 150 MB, and its
    test returns only `torch.allclose(src, dest)`, which a candidate can patch) keeps a sample of
    each tensor larger than SAMPLE_ELEMENTS instead, at positions drawn from a key the judge
    sends once the call has returned (CallStream.call_key), the same for the reference's runs and
    every candidate's: the operator cannot know them while it runs. Samples hold up to
    `sample_bytes` in all; a call beyond that is not recorded."""

    def __init__(self, ops, max_bytes=CALL_OUTPUT_BYTES, keep=None, stream=None,
                 sample_bytes=CALL_SAMPLE_BYTES, sample_elements=SAMPLE_ELEMENTS):
        self.ops = ops
        self.max_bytes = max_bytes
        self.sample_bytes = sample_bytes
        self.sample_elements = sample_elements
        self.sampled = 0  # bytes the samples hold
        self.keep = keep
        # Each call's record is committed to the judge as it is made (CallStream: "rec"): the
        # judge compares the candidate's calls with the reference's, and a record edited
        # afterwards (through gc, once the test has what it wants) no longer matches.
        self.stream = stream if stream is not None else LocalKeys(0)
        self.blob = bytearray()
        self.calls = []
        self.kept = None
        if keep is not None:
            self.kept = {"entry": keep["entry"], "args": list(keep["args"]), "calls": 0,
                         "recorded": 0, "bytes": 0}

    def record(self, name, result, args, kwargs):
        ops = self.ops
        kept = None
        keep = self.keep is not None and name == self.keep["entry"]
        try:
            if keep:
                self.kept["calls"] += 1
                value = {"args[%d]" % i: args[i] for i in self.keep["args"] if i < len(args)}
                cap = self.keep["max_bytes"]
            else:
                paths = [path for path, _ in arg_paths(args, kwargs, ops.is_tensor)]
                value = observation(result, args, kwargs, paths, ops.is_tensor)
                cap = self.max_bytes
            need = sum(n * b for n, b in encoded_sizes(ops, value))
            if keep or len(self.blob) + need <= cap:
                entries, raw = encode_results(value, ops.parts)
                if len(self.blob) + len(raw) <= cap:
                    kept = {"entries": entries, "offset": len(self.blob),
                            "data_bytes": len(raw)}
                    if keep:
                        self.kept["recorded"] += 1
                        self.kept["bytes"] += len(raw)
            else:
                count = self.sample_elements
                per = sum(min(n, count) * b for n, b in encoded_sizes(ops, value))
                if self.sampled + per <= self.sample_bytes:
                    index = len(self.calls)
                    key = self.stream.call_key(index)

                    def sampled_parts(leaf_name, leaf):
                        return ops.sampled_parts(leaf, count,
                                                 sample_seed(key, 0, index, leaf_name))

                    entries, raw = encode_results(value, ops.parts, sampled_parts)
                    self.sampled += len(raw)
                    kept = {"entries": entries, "offset": len(self.blob), "data_bytes": len(raw)}
            if kept is not None:
                self.blob += raw
        except StreamError:
            raise
        except Exception:  # noqa: BLE001 - not recorded: its timed calls are compared whole
            kept = None
        self.calls.append({"entry": name, "outputs": kept})
        self.stream.recorded(len(self.calls) - 1, None if kept is None else digest(
            bytes(self.blob[kept["offset"]:kept["offset"] + kept["data_bytes"]])))
