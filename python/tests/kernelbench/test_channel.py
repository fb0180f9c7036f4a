"""The report's bytes: one line of JSON whatever the strings hold; read and written whole."""

import json
import os
import tempfile
import unittest

import helpers  # noqa: F401
from kjudge_kernelbench.channel import read_fd, report_bytes, write_all


class ChannelTest(unittest.TestCase):
    def test_one_line_of_json(self):
        raw = report_bytes({"nonce": "n", "message": "two\nlines", "x": [1, 2.5]})
        self.assertEqual(raw.count(b"\n"), 1)
        self.assertTrue(raw.endswith(b"\n"))
        self.assertEqual(json.loads(raw)["message"], "two\nlines")

    def test_written_and_read_whole(self):
        with tempfile.TemporaryFile() as f:
            payload = b"x" * (3 << 20)
            write_all(f.fileno(), payload)
            self.assertEqual(read_fd(f.fileno()), payload)
            os.lseek(f.fileno(), 0, 0)


if __name__ == "__main__":
    unittest.main()
