"""Messages between checker and worker: whole across partial reads, and the checker's side
refuses a payload (a pickle would run the worker's code in the checker), an oversized message
and anything that is not a JSON object."""

import os
import struct
import threading
import unittest

import helpers  # noqa: F401
from kjudge_gpumode.wire import WireError, receive, send


class WireTest(unittest.TestCase):
    def pipe(self):
        r, w = os.pipe()
        self.addCleanup(os.close, r)
        self.addCleanup(lambda: os.close(w) if w_open[0] else None)
        w_open = [True]
        return r, w, w_open

    def test_round_trip_with_payload(self):
        r, w, _ = self.pipe()
        big = os.urandom(3 << 20)  # more than a pipe holds: written while read
        t = threading.Thread(target=send, args=(w, {"op": "prepare", "n": 1}, big))
        t.start()
        msg, payload = receive(r)
        t.join()
        self.assertEqual(msg, {"op": "prepare", "n": 1})
        self.assertEqual(payload, big)

    def test_checker_refuses_payloads(self):
        r, w, _ = self.pipe()
        send(w, {"op": "done"}, b"cos\nsystem\n")
        with self.assertRaises(WireError):
            receive(r, allow_payload=False)

    def test_refuses_oversized_and_non_objects(self):
        r, w, _ = self.pipe()
        os.write(w, struct.pack("<Q", 1 << 40))
        with self.assertRaises(WireError):
            receive(r)
        r, w, _ = self.pipe()
        send(w, [1, 2])
        with self.assertRaises(WireError):
            receive(r)

    def test_closed_end(self):
        r, w, w_open = self.pipe()
        os.write(w, struct.pack("<Q", 10) + b"{}")
        os.close(w)
        w_open[0] = False
        with self.assertRaises(WireError):
            receive(r)


if __name__ == "__main__":
    unittest.main()
