"""The service's answers as typed, immutable objects (docs/openapi.yaml; the JSON of
src/board/api_server.cpp). Every object keeps the JSON it was read from in ``raw``."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from .errors import NotFinished

FINISHED = ("done", "failed")
# The runs that time a passing solution: a pack problem's `benchmark` request and a board's
# ranked run; a task's benchmark and leaderboard stages.
TIMED_MODES = ("benchmark", "leaderboard")


def _str(j: Mapping[str, Any], key: str, default: str = "") -> str:
    v = j.get(key)
    return v if isinstance(v, str) else default


def _opt_str(j: Mapping[str, Any], key: str) -> Optional[str]:
    v = j.get(key)
    return v if isinstance(v, str) else None


def _int(j: Mapping[str, Any], key: str, default: int = 0) -> int:
    v = j.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def _opt_float(j: Mapping[str, Any], key: str) -> Optional[float]:
    v = j.get(key)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    return None


def _bool(j: Mapping[str, Any], key: str) -> bool:
    return j.get(key) is True


def _obj(v: Any) -> Optional[Dict[str, Any]]:
    return v if isinstance(v, dict) else None


@dataclass(frozen=True)
class CheatFlag:
    """What the static pass (or the timing) found suspicious; never a verdict (docs/cheats.md)."""

    check: str
    detail: str
    file: Optional[str] = None
    line: Optional[int] = None
    source: Optional[str] = None

    @classmethod
    def from_json(cls, j: Any) -> "CheatFlag":
        if isinstance(j, str):  # older writers: the check's words only
            return cls(check=j, detail="")
        if not isinstance(j, dict):
            return cls(check="", detail=repr(j))
        line = j.get("line")
        return cls(check=_str(j, "check"), detail=_str(j, "detail"), file=_opt_str(j, "file"),
                   line=line if isinstance(line, int) else None, source=_opt_str(j, "source"))


def _flags(result: Optional[Mapping[str, Any]]) -> Tuple[CheatFlag, ...]:
    if not result or not isinstance(result.get("cheat_flags"), list):
        return ()
    return tuple(CheatFlag.from_json(f) for f in result["cheat_flags"])


@dataclass(frozen=True)
class Speedup:
    """Baseline time / solution time: the Hodges-Lehmann estimate on log times and its
    Mann-Whitney interval [low, high] at ``confidence`` (docs/json-schemas.md, perf.jsonl)."""

    estimate: float
    low: float
    high: float
    confidence: float

    @classmethod
    def from_json(cls, j: Any) -> Optional["Speedup"]:
        if not isinstance(j, dict):
            return None
        est, low, high = _opt_float(j, "estimate"), _opt_float(j, "low"), _opt_float(j, "high")
        if est is None or low is None or high is None:
            return None
        conf = _opt_float(j, "confidence")
        return cls(estimate=est, low=low, high=high, confidence=0.95 if conf is None else conf)

    @property
    def surely_faster(self) -> bool:
        """The whole interval is above 1: faster than the baseline beyond the noise."""
        return self.low > 1.0


@dataclass(frozen=True)
class Run:
    """One mode run of a submission. ``result`` is, for a pack problem, the graded solution as
    ``kjudge evaluate`` writes it (plus ``performance``, the perf row, on a timed run); for a
    task, the stage of task-run.json. A secret run's result is None for anyone but an admin."""

    id: int
    mode: str
    secret: bool
    gpu_type: str
    passed: bool
    score: Optional[float]  # µs, lower is better (timed runs)
    started_us: int
    ended_us: int
    review: str  # none | pending | cleared | rejected
    review_note: Optional[str]
    result: Optional[Dict[str, Any]]
    system_info: Optional[Dict[str, Any]]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "Run":
        return cls(id=_int(j, "id"), mode=_str(j, "mode"), secret=_bool(j, "secret"),
                   gpu_type=_str(j, "gpu_type"), passed=_bool(j, "passed"),
                   score=_opt_float(j, "score"), started_us=_int(j, "started_us"),
                   ended_us=_int(j, "ended_us"), review=_str(j, "review", "none"),
                   review_note=_opt_str(j, "review_note"), result=_obj(j.get("result")),
                   system_info=_obj(j.get("system_info")), raw=dict(j))

    @property
    def verdict(self) -> Optional[str]:
        """A pack run's verdict (pass, test_fail, build_error ...); None for a task stage."""
        return _opt_str(self.result, "verdict") if self.result else None

    @property
    def detail(self) -> str:
        """One line for people: why this verdict (pack) or why the stage failed (task)."""
        if not self.result:
            return ""
        return _str(self.result, "detail") or _str(self.result, "failure")

    @property
    def performance(self) -> Optional[Dict[str, Any]]:
        """A timed pack run's perf row (speedup, medians, every run's time)."""
        return _obj(self.result.get("performance")) if self.result else None

    @property
    def speedup(self) -> Optional[Speedup]:
        perf = self.performance
        return Speedup.from_json(perf.get("speedup")) if perf else None

    @property
    def flags(self) -> Tuple[CheatFlag, ...]:
        return _flags(self.result)


@dataclass(frozen=True)
class Submission:
    """A submission and, once read with its runs, every run so far."""

    id: int
    target: str
    mode: str
    file_name: str
    status: str  # queued | running | done | failed
    created_us: int
    idempotency_key: Optional[str]
    runs: Tuple[Run, ...]
    code: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "Submission":
        runs = j.get("runs")
        return cls(id=_int(j, "id"), target=_str(j, "target"), mode=_str(j, "mode"),
                   file_name=_str(j, "file_name"), status=_str(j, "status"),
                   created_us=_int(j, "created_us"),
                   idempotency_key=_opt_str(j, "idempotency_key"),
                   runs=tuple(Run.from_json(r) for r in runs if isinstance(r, dict))
                   if isinstance(runs, list) else (),
                   code=_opt_str(j, "code"), raw=dict(j))

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def reward(self) -> "Reward":
        return Reward.from_submission(self)


@dataclass(frozen=True)
class Accepted:
    """A submission the service committed: ``created`` is False when its idempotency key was
    seen before (the earlier submission's id). ``status`` is 202 (new) or 200 (seen)."""

    id: int
    created: bool
    status: int


@dataclass(frozen=True)
class Refused:
    """A batch item the service refused; the other items stand. ``status`` 400 (``field`` names
    the bad field) or 429 (``limit``: the user's limit)."""

    status: int
    error: str
    field: Optional[str] = None
    limit: Optional[int] = None


BatchItem = Union[Accepted, Refused]


def batch_item(j: Any) -> BatchItem:
    if isinstance(j, dict) and isinstance(j.get("id"), int):
        return Accepted(id=j["id"], created=_bool(j, "created"), status=_int(j, "status", 202))
    if not isinstance(j, dict):
        return Refused(status=0, error=f"not an item: {j!r}")
    lim = j.get("limit")
    return Refused(status=_int(j, "status", 400), error=_str(j, "error", "refused"),
                   field=_opt_str(j, "field"), limit=lim if isinstance(lim, int) else None)


@dataclass(frozen=True)
class Reward:
    """What an RL loop wants of a finished submission.

    - ``passed``: correctness. A pack problem: its test run's verdict is ``pass`` (the timing of
      a ``benchmark`` run does not change it). A task: every stage that ran passed (the ranked
      stages re-check outputs) and at least one ran.
    - ``verdict`` and ``detail``: a pack problem's verdict (pass, test_fail, build_error,
      test_timeout, crash, ...) and the judge's one line; a task has no verdict (None), and
      ``detail`` is the first failing stage's reason.
    - ``speedup``: a pack problem's ``benchmark`` (or a pack board's ranked) run: baseline time
      over the solution's, with its interval; None when not timed (``not_timed`` says why).
    - ``score_us``: the timed run's score in µs, lower is better: a task board's public ranked
      run (or a task's benchmark stage), a pack board's solution median.
    - ``review``: the ranked run's review state (``pending`` while a flagged run waits for an
      admin); ``flags``: every cheat flag of the runs (flags are never a verdict).
    """

    submission_id: int
    target: str
    mode: str
    passed: bool
    verdict: Optional[str]
    detail: str
    speedup: Optional[Speedup]
    score_us: Optional[float]
    timed: bool
    not_timed: Optional[str]
    review: str
    flags: Tuple[CheatFlag, ...]

    @classmethod
    def from_submission(cls, sub: Submission) -> "Reward":
        if not sub.finished:
            raise NotFinished(sub.id, sub.status)
        if sub.target.startswith("pack:"):
            return cls._of_pack(sub)
        return cls._of_task(sub)

    @classmethod
    def _of_pack(cls, sub: Submission) -> "Reward":
        test = next((r for r in sub.runs if r.mode not in TIMED_MODES), None)
        timed = next((r for r in sub.runs if r.mode in TIMED_MODES and not r.secret), None)
        passed = bool(test and test.passed)
        not_timed: Optional[str] = None
        if timed is not None and timed.score is None:
            perf = timed.performance or {}
            not_timed = (_opt_str(timed.result or {}, "failure") or _opt_str(perf, "not_timed")
                         or "not timed")
        flags = tuple(f for r in sub.runs for f in r.flags)
        return cls(submission_id=sub.id, target=sub.target, mode=sub.mode, passed=passed,
                   verdict=test.verdict if test else None,
                   detail=test.detail if test else "no run was recorded",
                   speedup=timed.speedup if timed else None,
                   score_us=timed.score if timed else None,
                   timed=bool(timed and timed.score is not None), not_timed=not_timed,
                   review=timed.review if timed else (test.review if test else "none"),
                   flags=_unique(flags))

    @classmethod
    def _of_task(cls, sub: Submission) -> "Reward":
        runs = sub.runs
        passed = bool(runs) and all(r.passed for r in runs)
        failing = next((r for r in runs if not r.passed), None)
        public = [r for r in runs if r.mode in TIMED_MODES and not r.secret]
        scored = next((r for r in reversed(public) if r.score is not None), None)
        not_timed: Optional[str] = None
        if sub.mode in TIMED_MODES and scored is None:
            not_timed = failing.detail if failing else "not timed"
        return cls(submission_id=sub.id, target=sub.target, mode=sub.mode, passed=passed,
                   verdict=None,
                   detail=(failing.detail or "failed") if failing else
                   ("" if runs else "no run was recorded"),
                   speedup=None, score_us=scored.score if scored else None,
                   timed=scored is not None, not_timed=not_timed,
                   review=public[0].review if public else "none",
                   flags=_unique(tuple(f for r in runs for f in r.flags)))


def _unique(flags: Tuple[CheatFlag, ...]) -> Tuple[CheatFlag, ...]:
    seen, out = set(), []
    for f in flags:
        if f not in seen:
            seen.add(f)
            out.append(f)
    return tuple(out)


@dataclass(frozen=True)
class LeaderboardSummary:
    """One board of ``GET /api/v1/leaderboards``."""

    name: str
    description: str
    gpu_types: Tuple[str, ...]

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "LeaderboardSummary":
        g = j.get("gpu_types")
        return cls(name=_str(j, "name"), description=_str(j, "description"),
                   gpu_types=tuple(x for x in g if isinstance(x, str)) if isinstance(g, list)
                   else ())


@dataclass(frozen=True)
class RankingEntry:
    rank: int
    user: str
    score: float  # µs, lower is better
    submission: int
    ended_us: int

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "RankingEntry":
        score = _opt_float(j, "score")
        return cls(rank=_int(j, "rank"), user=_str(j, "user"),
                   score=float("nan") if score is None else score,
                   submission=_int(j, "submission"), ended_us=_int(j, "ended_us"))


@dataclass(frozen=True)
class Leaderboard:
    """A board with its ranking per GPU type: each user's best passed public ranked run.
    ``task`` is set for a task board, ``problem`` (``pack:NAME#TASK_ID``) for a pack board."""

    name: str
    description: str
    task: Optional[str]
    problem: Optional[str]
    gpu_types: Tuple[str, ...]
    rankings: Dict[str, Tuple[RankingEntry, ...]]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "Leaderboard":
        rankings: Dict[str, Tuple[RankingEntry, ...]] = {}
        r = j.get("rankings")
        if isinstance(r, dict):
            for gpu, rows in r.items():
                if isinstance(rows, list):
                    rankings[gpu] = tuple(RankingEntry.from_json(x) for x in rows
                                          if isinstance(x, dict))
        g = j.get("gpu_types")
        return cls(name=_str(j, "name"), description=_str(j, "description"),
                   task=_opt_str(j, "task"), problem=_opt_str(j, "problem"),
                   gpu_types=tuple(x for x in g if isinstance(x, str)) if isinstance(g, list)
                   else (), rankings=rankings, raw=dict(j))


@dataclass(frozen=True)
class Health:
    """``GET /api/v1/health``: liveness, version, queue length."""

    ok: bool
    version: str
    queued: int
    judged: int
    database: str
    connections: int
    long_polls: int
    tasks_refused: Optional[str]  # why this instance takes no task jobs (no usable GPU)

    @classmethod
    def from_json(cls, j: Mapping[str, Any]) -> "Health":
        return cls(ok=_bool(j, "ok"), version=_str(j, "version"), queued=_int(j, "queued"),
                   judged=_int(j, "judged"), database=_str(j, "database"),
                   connections=_int(j, "connections"), long_polls=_int(j, "long_polls"),
                   tasks_refused=_opt_str(j, "tasks_refused"))
