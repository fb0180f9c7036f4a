"""Every route of the service as a Call: the request to send and how to read its answer. The sync
and async clients each only carry Calls out, so both speak exactly the same API."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Generic, List, Mapping, Optional, Sequence, TypeVar, Union

from . import _http
from .models import (Accepted, BatchItem, Health, Leaderboard, LeaderboardSummary, Submission,
                     batch_item)
from .request import Mode, Priority, SubmissionRequest

T = TypeVar("T")


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    route: str
    parse: Callable[[Dict[str, Any]], T]
    body: Any = None
    query: Optional[Mapping[str, str]] = None
    timeout: Optional[float] = None  # None: the client's own
    authorized: bool = True
    # Whether a request whose answer was lost may be sent again: reads, and submissions whose
    # every item has an idempotency key (the service returns the earlier one).
    resend_safe: Optional[bool] = None

    # A long poll until this time.monotonic() deadline: its ?wait= is reckoned when it is sent
    # (an async request may wait for a connection slot first).
    wait_until: Optional[float] = None

    @property
    def may_resend(self) -> bool:
        return self.resend_safe if self.resend_safe is not None else self.method == "GET"

    def at_send(self) -> "tuple[Optional[Mapping[str, str]], Optional[float]]":
        """The query and timeout to send with now."""
        if self.wait_until is None:
            return self.query, self.timeout
        query = dict(self.query or {})
        remaining = self.wait_until - time.monotonic()
        if remaining <= 0:
            return query or None, self.timeout
        q, timeout = _http.wait_query(remaining)
        query.update(q)
        return query, timeout


def _accepted(j: Dict[str, Any]) -> Accepted:
    created = j.get("created") is True
    return Accepted(id=int(j["id"]), created=created, status=202 if created else 200)


def request_of(target: Union[str, SubmissionRequest, None], files: Optional[Mapping[str, str]],
               code: Optional[str], file_name: Optional[str], mode: Optional[Mode],
               idempotency_key: Optional[str], priority: Optional[Priority]) -> SubmissionRequest:
    if isinstance(target, SubmissionRequest):
        if any(v is not None for v in (files, code, file_name, mode, idempotency_key, priority)):
            raise ValueError("pass a SubmissionRequest or its fields, not both")
        return target
    return SubmissionRequest(target=target, files=files, code=code, file_name=file_name,
                             mode=mode, idempotency_key=idempotency_key, priority=priority)


def health() -> Call[Health]:
    return Call("GET", "/api/v1/health", Health.from_json, authorized=False)


def submit(req: SubmissionRequest) -> Call[Accepted]:
    return Call("POST", "/api/v1/submissions", _accepted, body=req.to_json(),
                resend_safe=req.idempotency_key is not None)


def submit_to_leaderboard(name: str, req: SubmissionRequest) -> Call[Accepted]:
    return Call("POST", f"/api/v1/leaderboards/{_http.segment(name)}/submissions",
                _accepted, body=req.to_json(on_board=True),
                resend_safe=req.idempotency_key is not None)


def submit_batch(reqs: Sequence[SubmissionRequest]) -> Call[List[BatchItem]]:
    n = len(reqs)

    def parse(j: Dict[str, Any]) -> List[BatchItem]:
        items = j.get("items")
        if not isinstance(items, list) or len(items) != n:
            raise ValueError(f"the service answered {items!r} for a batch of {n}")
        return [batch_item(x) for x in items]
    return Call("POST", "/api/v1/submissions", parse,
                body={"items": [r.to_json() for r in reqs]},
                resend_safe=all(r.idempotency_key is not None for r in reqs))


def submission(sid: int, wait: float = 0.0, code: bool = False,
               until: Optional[float] = None) -> Call[Submission]:
    """A submission; with `wait` seconds (or until the monotonic deadline `until`), a long
    poll."""
    if until is None and wait > 0:
        until = time.monotonic() + wait
    return Call("GET", f"/api/v1/submissions/{int(sid)}", Submission.from_json,
                query={"code": "1"} if code else None, wait_until=until)


def submissions(leaderboard: Optional[str] = None) -> Call[List[Submission]]:
    def parse(j: Dict[str, Any]) -> List[Submission]:
        return [Submission.from_json(s) for s in j.get("submissions", []) if isinstance(s, dict)]
    return Call("GET", "/api/v1/submissions", parse,
                query={"leaderboard": leaderboard} if leaderboard is not None else None)


def leaderboards() -> Call[List[LeaderboardSummary]]:
    def parse(j: Dict[str, Any]) -> List[LeaderboardSummary]:
        return [LeaderboardSummary.from_json(b) for b in j.get("leaderboards", [])
                if isinstance(b, dict)]
    return Call("GET", "/api/v1/leaderboards", parse)


def leaderboard(name: str, gpu: Optional[str] = None) -> Call[Leaderboard]:
    return Call("GET", f"/api/v1/leaderboards/{_http.segment(name)}", Leaderboard.from_json,
                query={"gpu": gpu} if gpu is not None else None)


def create_leaderboard(name: str, task: Optional[str], problem: Optional[str],
                       description: Optional[str], gpu_types: Optional[Sequence[str]],
                       deadline_us: Optional[int]) -> Call[Dict[str, Any]]:
    if (task is None) == (problem is None):
        raise ValueError("a leaderboard is over a task (task=) or a pack problem (problem=)")
    body: Dict[str, Any] = {"name": name}
    for key, v in (("task", task), ("problem", problem), ("description", description),
                   ("deadline_us", deadline_us)):
        if v is not None:
            body[key] = v
    if gpu_types is not None:
        body["gpu_types"] = list(gpu_types)
    return Call("POST", "/api/v1/leaderboards", dict, body=body)


def delete_leaderboard(name: str) -> Call[Dict[str, Any]]:
    return Call("DELETE", f"/api/v1/leaderboards/{_http.segment(name)}", dict)
