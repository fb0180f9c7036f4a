"""The per-call channel to the judge (--stream-fd): the keys of each timed call's inputs and
sample come from the judge in its turn, and what each call measured and kept is committed to it
as the call ends (CallStream); LocalKeys stands in where no judge streams.
"""

from .held import _os_read, _os_write, digest


class StreamError(RuntimeError):
    """The judge's per-call channel said no, closed, or answered what the runner did not ask."""


class CallStream:
    """The per-call channel to the judge (--stream-fd: a socket the judge serves while the run
    goes on; docs/triton.md, "The runner protocol"). Issue 31: a candidate that, during its
    untimed first call, used the runner's own input maker to compute every timed call's output
    ahead got 4.18x on the H100, because the job's secret sat in this process from the start. Now
    no secret a timed call depends on is here before its turn:

      key S N                     -> k HEX    the new content of timed call N of site S
      done S N STREAM_MS DEVICE_MS -> s HEX    after the call: the positions its sample keeps
      kept S N SHA256             -> a N      what was kept of its output (the report must match);
                                               awaited, so the next launch follows the judge's time
      call I                      -> s HEX    test mode: the positions a sampled entry call keeps
      rec I SHA256|-                          test mode: what entry call I left (CallRecorder)

    The judge answers in order only: key (S, N) only after (S, N - 1) was kept, done only for
    the call keyed, anything else (a message the operator code forged on this descriptor, a
    second ask) refuses the run. It takes the time of every message on its own clock, and with
    the CUPTI profiler a timed call's marks must lie between its key and its done: computing a
    call's output before its key came is not possible, and computing it outside its timed call
    shows as GPU work outside the call (docs/triton.md, "Timing", item 4). What the runner
    reports at the end of each timed call (its samples, its output's digest) is committed here
    as it happens, so the report written at the end cannot say otherwise."""

    LINE_CAP = 256

    def __init__(self, fd):
        self.fd = fd
        self._buf = b""

    def _send(self, text):
        view = memoryview(text.encode("ascii"))
        while view:
            n = _os_write(self.fd, view)
            view = view[n:]

    def _reply(self, tag):
        while b"\n" not in self._buf:
            if len(self._buf) > self.LINE_CAP:
                raise StreamError("the judge's answer is too long")
            chunk = _os_read(self.fd, 512)
            if not chunk:
                raise StreamError("the judge closed the per-call channel")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        words = line.decode("ascii", "replace").split()
        if len(words) != 2 or words[0] != tag:
            raise StreamError("the judge answered %r where the runner asked for %r" % (
                line[:80], tag))
        return int(words[1], 16)

    def key(self, site, rep):
        self._send("key %d %d\n" % (site, rep))
        return self._reply("k")

    def done(self, site, rep, stream_ms, device_ms):
        self._send("done %d %d %r %r\n" % (site, rep, float(stream_ms), float(device_ms)))
        return self._reply("s")

    def kept(self, site, rep, digest):
        # Answered, and awaited: the runner's next launch (the next call's new inputs) comes
        # after the judge took this message's time, never inside the read-back window.
        self._send("kept %d %d %s\n" % (site, rep, digest))
        self._reply("a")

    def recorded(self, index, digest):
        self._send("rec %d %s\n" % (index, digest or "-"))

    def call_key(self, index):
        self._send("call %d\n" % index)
        return self._reply("s")


class LocalKeys:
    """CallStream's stand-in where no judge streams (--request FILE by hand, the runner's own
    tests): every call's key is the request's check seed, as before issue 31."""

    def __init__(self, secret):
        self.secret = int(secret)

    def key(self, site, rep):
        return self.secret

    def done(self, site, rep, stream_ms, device_ms):
        return self.secret

    def kept(self, site, rep, digest):
        pass

    def recorded(self, index, digest):
        pass

    def call_key(self, index):
        return self.secret
