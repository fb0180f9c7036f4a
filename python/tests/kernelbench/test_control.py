"""The control channel from the runner's side: every message of the protocol answered in turn, a
refusal or a wrong answer ends the run, LocalControl's keys are the same for the same seed."""

import os
import unittest

import helpers  # noqa: F401
from kjudge_kernelbench.control import Control, ControlError, LocalControl


class ControlTest(unittest.TestCase):
    def test_the_protocol_in_order(self):
        judge = helpers.FakeJudge()
        try:
            c = Control(os.dup(judge.child.fileno()))
            c.hello()
            c.gpu()
            c.idle()
            self.assertTrue(c.time())
            key = c.pair(0)
            self.assertEqual(key, "%032x" % 0xabc)
            c.done(0, (1.5, 2.0, None, 1.6, 2.1, None), True)
            c.end()
            self.assertEqual(judge.lines, ["hello", "gpu", "idle", "time", "pair 0",
                                           "done 0 1.5 2.0 - 1.6 2.1 - 1", "end"])
        finally:
            judge.close()

    def test_skip_and_refusals(self):
        judge = helpers.FakeJudge(lambda line: "skip" if line == "time" else "refused")
        try:
            c = Control(os.dup(judge.child.fileno()))
            self.assertFalse(c.time())
            with self.assertRaises(ControlError):
                c.gpu()
        finally:
            judge.close()

    def test_a_wrong_answer_is_an_error(self):
        judge = helpers.FakeJudge(lambda line: "k short")
        try:
            c = Control(os.dup(judge.child.fileno()))
            with self.assertRaises(ControlError):
                c.pair(0)
        finally:
            judge.close()

    def test_a_closed_channel_is_an_error(self):
        judge = helpers.FakeJudge()
        c = Control(os.dup(judge.child.fileno()))
        judge.judge.close()
        with self.assertRaises((ControlError, OSError)):
            c.hello()
        judge.close()

    def test_local_keys_follow_the_seed(self):
        a, b, c = LocalControl(7), LocalControl(7), LocalControl(8)
        self.assertEqual(a.pair(3), b.pair(3))
        self.assertNotEqual(a.pair(3), a.pair(4))
        self.assertNotEqual(a.pair(3), c.pair(3))
        self.assertEqual(len(a.pair(0)), 32)
        self.assertTrue(a.time())


if __name__ == "__main__":
    unittest.main()
