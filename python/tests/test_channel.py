#!/usr/bin/env python3
"""Tests of the report's encoder and channel (kjudge_triton/held.py, channel.py). Standard library
only. Run: /usr/bin/python3 python/tests/test_channel.py; all of them: python/README.md.
"""

import json
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import helpers  # noqa: E402,F401 - first: puts python/ on sys.path
from kjudge_triton import channel  # noqa: E402


class ReportEncoderTest(unittest.TestCase):
    """Issue 31: a candidate that replaced json.dumps halved every sample the report carried.
    The runner's encoder is made of json's C encoder as the module loads."""

    def test_replacing_jsons_functions_later_does_not_reach_the_report(self):
        import json as j
        import json.encoder as je
        saved = (j.dumps, je.JSONEncoder.encode, je.JSONEncoder.iterencode, je.c_make_encoder)
        record = {"samples_ms": [0.5, 1.25], "nonce": "x"}
        honest = channel.channel_bytes(record, b"")
        try:
            j.dumps = lambda *a, **k: "{}"
            je.JSONEncoder.encode = lambda self, o: "{}"
            je.JSONEncoder.iterencode = lambda self, o, _one_shot=False: iter(["{}"])
            je.c_make_encoder = None
            self.assertEqual(channel.channel_bytes(record, b""), honest)
        finally:
            j.dumps, je.JSONEncoder.encode, je.JSONEncoder.iterencode, je.c_make_encoder = saved
        self.assertEqual(json.loads(honest.decode().splitlines()[0])["samples_ms"], [0.5, 1.25])


if __name__ == "__main__":
    unittest.main()
