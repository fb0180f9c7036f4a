"""The report: the channel taken from the environment and emptied, records with the nonce and a
counted end, written whole and sealed, as src/perf/harness_record.h reads them."""

import os
import unittest

import helpers  # noqa: F401
from kjudge_gpumode.record import ChannelError, Report, join_times, take_channel


class RecordTest(unittest.TestCase):
    def setUp(self):
        self.fd = os.memfd_create("kjudge-test", os.MFD_ALLOW_SEALING)
        os.write(self.fd, b"abc123\n")

    def tearDown(self):
        os.close(self.fd)

    def test_taken_and_emptied(self):
        env = {"KJUDGE_RESULT_FD": str(self.fd), "HOME": "/tmp"}
        fd, nonce = take_channel(env)
        self.assertEqual((fd, nonce), (self.fd, "abc123"))
        self.assertNotIn("KJUDGE_RESULT_FD", env)
        self.assertEqual(os.fstat(fd).st_size, 0)  # the nonce is not left to read back
        self.assertFalse(os.get_inheritable(fd))

    def test_by_hand(self):
        self.assertEqual(take_channel({}), (-1, "-"))
        with self.assertRaises(ChannelError):
            take_channel({"KJUDGE_RESULT_FD": "three"})

    def test_written_whole_and_sealed(self):
        fd, nonce = take_channel({"KJUDGE_RESULT_FD": str(self.fd)})
        r = Report(fd, nonce)
        r.put("mode", "test")
        r.put("test.0.error", "two\nlines")
        r.write()
        text = os.pread(fd, 4096, 0).decode()
        self.assertEqual(text, "KJ1 abc123 mode test\nKJ1 abc123 test.0.error two lines\n"
                               "KJ1 abc123 end 2\n")
        with self.assertRaises(OSError):  # sealed: nobody writes after the harness
            os.pwrite(fd, b"KJ1 abc123 check pass\n", len(text))

    def test_times(self):
        self.assertEqual(join_times([1.0, 2.25, 1000.06]), "1.0,2.2,1000.1")


if __name__ == "__main__":
    unittest.main()
