"""The tamper check: the runner's own functions rebound, or their code replaced in place, are
reported; a watched object's held functions too; nothing when nothing changed."""

import unittest

import helpers  # noqa: F401
from kjudge_kernelbench import channel, control, tensors
from kjudge_kernelbench.tamper import Tamper


class TamperTest(unittest.TestCase):
    def test_nothing_changed_nothing_reported(self):
        self.assertEqual(Tamper().changes(), [])

    def test_a_rebound_function_is_reported_even_when_put_back(self):
        t = Tamper()
        saved = channel.report_bytes
        channel.report_bytes = lambda record: b"forged\n"
        try:
            t.note()
        finally:
            channel.report_bytes = saved
        self.assertIn("runner's channel.report_bytes replaced", t.changes())

    def test_code_replaced_in_place_is_reported(self):
        t = Tamper()
        saved = tensors.leaves.__code__
        tensors.leaves.__code__ = (lambda obj, path="out": []).__code__
        try:
            changes = t.changes()
        finally:
            tensors.leaves.__code__ = saved
        self.assertIn("runner's tensors.leaves replaced", changes)

    def test_a_watched_objects_functions(self):
        t = Tamper()
        c = control.LocalControl(1)
        c.helper = print  # held before the snapshot of the object
        t.watch("control", c)
        c.helper = len
        self.assertIn("the runner's control.helper replaced", t.changes())


if __name__ == "__main__":
    unittest.main()
