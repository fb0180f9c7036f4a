"""The blocking client, on http.client: one connection per request, so one Client may be used
from several threads at once."""
from __future__ import annotations

import http.client
import ssl
import time
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, TypeVar, Union

from . import _api, _http
from .errors import ApiError, ConnectionFailed, WaitTimeout
from .models import (Accepted, BatchItem, Health, Leaderboard, LeaderboardSummary, Reward,
                     Submission)
from .request import Mode, Priority, SubmissionRequest

T = TypeVar("T")


class Client:
    """A client of ``kjudge serve``.

    ``server`` defaults to ``$KJUDGE_SERVER`` or http://127.0.0.1:8080, ``token`` to
    ``$KJUDGE_TOKEN``. ``timeout`` bounds each request that does not wait for a verdict (long
    polls get their wait plus 30 s); ``retries`` is how many times a 503 (the service at a
    limit, nothing done) is retried after its Retry-After, and a read (or a submission with an
    idempotency key) whose connection failed is sent again.
    """

    def __init__(self, server: Optional[str] = None, token: Optional[str] = None, *,
                 timeout: float = 60.0, retries: int = 3,
                 ssl_context: Optional[ssl.SSLContext] = None) -> None:
        self.server = _http.Server.parse(server)
        self._token = _http.token_from(token)
        self.timeout = timeout
        self.retries = retries
        self._ssl = ssl_context

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Nothing is held between requests; here for symmetry with AsyncClient."""

    def __repr__(self) -> str:
        return f"Client({self.server.url()!r})"

    # --- transport ------------------------------------------------------------------------------
    def _call(self, call: "_api.Call[T]") -> T:
        attempt = 0
        while True:
            try:
                return call.parse(self._once(call))
            except ApiError as e:
                delay = _http.should_retry(e, attempt, self.retries)
                if delay is None:
                    raise
            except ConnectionFailed:
                delay = _http.resend_delay(attempt, self.retries) if call.may_resend else None
                if delay is None:
                    raise
            attempt += 1
            time.sleep(delay)

    def _once(self, call: "_api.Call[Any]") -> Dict[str, Any]:
        s = self.server
        query, timeout = call.at_send()
        timeout = timeout if timeout is not None else self.timeout
        conn: http.client.HTTPConnection
        if s.scheme == "https":
            conn = http.client.HTTPSConnection(s.host, s.port, timeout=timeout,
                                               context=self._ssl)
        else:
            conn = http.client.HTTPConnection(s.host, s.port, timeout=timeout)
        body = _http.encode(call.body)
        hdrs = _http.headers(s, self._token, body)
        if not call.authorized:
            del hdrs["Authorization"]
        try:
            conn.request(call.method, _http.path(s, call.route, query), body=body,
                         headers=hdrs)
            resp = conn.getresponse()
            raw = resp.read(_http.MAX_BODY + 1)
            status, retry = resp.status, resp.getheader("Retry-After")
        except (OSError, http.client.HTTPException) as e:
            raise ConnectionFailed(f"{s.url()}: {call.method} {call.route}: {e!r}") from e
        finally:
            conn.close()
        if len(raw) > _http.MAX_BODY:
            raise ConnectionFailed(f"{s.url()}: an answer over {_http.MAX_BODY} bytes")
        result: Dict[str, Any] = _http.decode(status, raw, retry)
        return result

    # --- submitting -----------------------------------------------------------------------------
    def submit(self, target: Union[str, SubmissionRequest], *,
               files: Optional[Mapping[str, str]] = None, code: Optional[str] = None,
               file_name: Optional[str] = None, mode: Optional[Mode] = None,
               idempotency_key: Optional[str] = None,
               priority: Optional[Priority] = None) -> Accepted:
        """One solution: ``target`` (``pack:NAME#TASK_ID`` or ``task:NAME``) with its fields, or a
        SubmissionRequest. Raises ApiError (BadRequest naming the field, OverLimit ...)."""
        req = _api.request_of(target, files, code, file_name, mode, idempotency_key, priority)
        return self._call(_api.submit(req))

    def submit_batch(self, requests: Sequence[SubmissionRequest]) -> List[BatchItem]:
        """Several solutions in one request. Each item stands or falls alone: the answer lists,
        in order, an Accepted or a Refused (its status, error and field) per item."""
        if not requests:
            return []
        return self._call(_api.submit_batch(requests))

    def submit_to_leaderboard(self, name: str, *, code: Optional[str] = None,
                              files: Optional[Mapping[str, str]] = None,
                              file_name: Optional[str] = None, mode: Optional[Mode] = None,
                              idempotency_key: Optional[str] = None,
                              priority: Optional[Priority] = None) -> Accepted:
        """A submission to a board (mode ``test`` or ``leaderboard``, the default: ranked)."""
        req = SubmissionRequest(files=files, code=code, file_name=file_name, mode=mode,
                                idempotency_key=idempotency_key, priority=priority)
        return self._call(_api.submit_to_leaderboard(name, req))

    # --- reading and waiting --------------------------------------------------------------------
    def submission(self, submission_id: int, *, wait: float = 0.0,
                   code: bool = False) -> Submission:
        """A submission with its runs; ``wait`` > 0 holds the request until it finishes (at most
        that long, 600 s at most) and returns it as it is then."""
        return self._call(_api.submission(submission_id, wait, code))

    def submissions(self, leaderboard: Optional[str] = None) -> List[Submission]:
        """The caller's own submissions (without runs), optionally of one board."""
        return self._call(_api.submissions(leaderboard))

    def _wait_one(self, submission_id: int, deadline: float) -> Submission:
        while True:
            sub = self._call(_api.submission(submission_id, until=deadline))
            if sub.finished or time.monotonic() >= deadline:
                return sub

    def wait(self, submission_id: int, timeout: float = 600.0) -> Submission:
        """The submission once finished, through the service's long poll (re-polled past 600 s);
        WaitTimeout (holding its latest state) when ``timeout`` seconds pass first."""
        return self.wait_all([submission_id], timeout)[0]

    def wait_all(self, submission_ids: Iterable[int], timeout: float = 600.0) -> List[Submission]:
        """Every submission once finished, in the order given, within one total deadline. They
        are judged side by side, so waiting on each in turn costs no more than the slowest.
        WaitTimeout holds the latest state of all of them when the deadline passes first."""
        deadline = time.monotonic() + timeout
        subs = [self._wait_one(i, deadline) for i in submission_ids]
        if not all(s.finished for s in subs):
            raise WaitTimeout(subs, timeout)
        return subs

    def reward(self, submission: Union[int, Submission]) -> Reward:
        """The reward of a finished submission (NotFinished when it is not yet)."""
        if isinstance(submission, int):
            submission = self.submission(submission)
        return Reward.from_submission(submission)

    def rewards(self, submission_ids: Iterable[int], timeout: float = 600.0) -> List[Reward]:
        """wait_all, then each one's reward."""
        return [Reward.from_submission(s) for s in self.wait_all(submission_ids, timeout)]

    # --- the service and its boards -------------------------------------------------------------
    def health(self) -> Health:
        return self._call(_api.health())

    def leaderboards(self) -> List[LeaderboardSummary]:
        return self._call(_api.leaderboards())

    def leaderboard(self, name: str, gpu: Optional[str] = None) -> Leaderboard:
        """A board with its ranking per GPU type (only ``gpu``'s when given)."""
        return self._call(_api.leaderboard(name, gpu))

    def create_leaderboard(self, name: str, *, task: Optional[str] = None,
                           problem: Optional[str] = None, description: Optional[str] = None,
                           gpu_types: Optional[Sequence[str]] = None,
                           deadline_us: Optional[int] = None) -> Dict[str, Any]:
        """(Admin) a board over a loaded task folder (``task``) or pack problem (``problem``,
        ``pack:NAME#TASK_ID``)."""
        return self._call(_api.create_leaderboard(name, task, problem, description, gpu_types,
                                                  deadline_us))

    def delete_leaderboard(self, name: str) -> Dict[str, Any]:
        """(Admin) a board with its submissions and runs."""
        return self._call(_api.delete_leaderboard(name))
