"""Failures and how the report describes them: an exception tagged with the stage it happened in
(StageError), and the report's error object (describe_exception), cut to the sizes the judge
reads.
"""

import os
import traceback

TRACEBACK_CAP = 8000
TEXT_CAP = 3000


class StageError(Exception):
    """An exception raised in a stage of the run (run.py lists them), tagged with it."""

    def __init__(self, stage, exc):
        super().__init__(stage)
        self.stage = stage
        self.exc = exc


def describe_exception(stage, exc):
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    if len(tb) > TRACEBACK_CAP:  # keep the end: the frame that raised is there
        tb = "[... cut ...]\n" + tb[-TRACEBACK_CAP:]
    message = str(exc)
    if isinstance(exc, SyntaxError):
        message = "%s (%s, line %s)" % (exc.msg, os.path.basename(exc.filename or "?"), exc.lineno)
    return {
        "stage": stage,
        "exception_type": type(exc).__name__,
        "message": message[:TEXT_CAP],
        "traceback": tb,
    }


def describe_short(e):
    return "%s: %s" % (type(e).__name__, str(e)[:200])
