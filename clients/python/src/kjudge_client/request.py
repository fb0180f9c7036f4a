"""What to submit: one solution for a pack problem (its files) or a task (its code), as the
service's NewSubmission object (docs/openapi.yaml)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Literal, Mapping, Optional

Priority = Literal["interactive", "bulk"]
# judge | benchmark: a pack problem; test | benchmark | leaderboard | profile: a task;
# test | leaderboard: a leaderboard's submission.
Mode = Literal["judge", "test", "benchmark", "leaderboard", "profile"]

PRIORITIES = ("interactive", "bulk")
MODES = ("judge", "test", "benchmark", "leaderboard", "profile")


def pack_target(pack: str, task_id: str) -> str:
    """``pack:NAME#TASK_ID``: a problem of a pack the service loaded with ``--pack NAME=PATH``."""
    return f"pack:{pack}#{task_id}"


def task_target(task: str) -> str:
    """``task:NAME``: a task folder the service loaded with ``--tasks DIR``."""
    return f"task:{task}"


@dataclass(frozen=True)
class SubmissionRequest:
    """One solution to judge.

    A pack problem takes ``files`` (path -> text), or ``code`` when its solution is one file
    (named as the problem's baseline file). A task takes ``code`` (and ``file_name``). ``mode``
    defaults to the service's: ``judge`` for a pack problem, ``test`` for a task, ``leaderboard``
    on a board. A reused ``idempotency_key`` returns the earlier submission, so a retried
    request never judges twice; ``bulk`` is judged after ``interactive``.
    """

    target: Optional[str] = None
    files: Optional[Mapping[str, str]] = None
    code: Optional[str] = None
    file_name: Optional[str] = None
    mode: Optional[Mode] = None
    idempotency_key: Optional[str] = None
    priority: Optional[Priority] = None
    extra: Mapping[str, Any] = field(default_factory=dict)  # fields a newer service knows

    @classmethod
    def pack(cls, pack: str, task_id: str, files: Optional[Mapping[str, str]] = None, *,
             code: Optional[str] = None, mode: Optional[Mode] = None,
             idempotency_key: Optional[str] = None,
             priority: Optional[Priority] = None) -> "SubmissionRequest":
        return cls(target=pack_target(pack, task_id), files=files, code=code, mode=mode,
                   idempotency_key=idempotency_key, priority=priority)

    @classmethod
    def task(cls, task: str, code: str, *, file_name: Optional[str] = None,
             mode: Optional[Mode] = None, idempotency_key: Optional[str] = None,
             priority: Optional[Priority] = None) -> "SubmissionRequest":
        return cls(target=task_target(task), code=code, file_name=file_name, mode=mode,
                   idempotency_key=idempotency_key, priority=priority)

    def to_json(self, *, on_board: bool = False) -> Dict[str, Any]:
        """The JSON object the service takes; raises ValueError for what it would refuse
        whatever the problem (a board's submission names no target; a standalone one must)."""
        if on_board and self.target is not None:
            raise ValueError("a leaderboard submission names no target (the board is its target)")
        if not on_board and not self.target:
            raise ValueError("a submission needs a target: pack:NAME#TASK_ID or task:NAME")
        if self.files is None and self.code is None:
            raise ValueError("a submission needs files (a pack problem) or code")
        if self.mode is not None and self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.priority is not None and self.priority not in PRIORITIES:
            raise ValueError(f"priority must be interactive or bulk, not {self.priority!r}")
        j: Dict[str, Any] = dict(self.extra)
        if self.target is not None:
            j["target"] = self.target
        if self.files is not None:
            for k, v in self.files.items():
                if not isinstance(k, str) or not isinstance(v, str):
                    raise ValueError(f"files maps paths to text; {k!r} does not")
            j["files"] = dict(self.files)
        for key in ("code", "file_name", "mode", "idempotency_key", "priority"):
            v = getattr(self, key)
            if v is not None:
                j[key] = v
        return j


# Files of a solution directory that are not the solution (examples/solutions/*/).
SPEC_FILES = ("solution-spec.yaml",)


def read_solution_dir(path: "os.PathLike[str] | str",
                      skip: Iterable[str] = SPEC_FILES) -> Dict[str, str]:
    """Every file under a solution directory, by its path relative to it (``/``-separated), as
    text: the ``files`` of a pack submission. ``solution-spec.yaml`` is left out."""
    root = os.fspath(path)
    skipped = set(skip)
    files: Dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if rel in skipped:
                continue
            with open(full, encoding="utf-8") as f:
                files[rel] = f.read()
    if not files:
        raise ValueError(f"{root}: no solution files")
    return files
