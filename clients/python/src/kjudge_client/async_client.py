"""The asyncio client: the same methods as Client, as coroutines, on asyncio streams (no thread
per request). ``wait_all`` long-polls many submissions at once, each on its own connection,
``concurrency`` at a time."""
from __future__ import annotations

import asyncio
import ssl
import time
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, TypeVar, Union

from . import _aio, _api, _http
from .errors import ApiError, ConnectionFailed, WaitTimeout
from .models import (Accepted, BatchItem, Health, Leaderboard, LeaderboardSummary, Reward,
                     Submission)
from .request import Mode, Priority, SubmissionRequest

T = TypeVar("T")


class AsyncClient:
    """An asyncio client of ``kjudge serve``; arguments as Client's, plus ``concurrency``: the
    most requests (long polls included) this client has open at once (the service caps its
    connections and parked long polls; past them it answers 503)."""

    def __init__(self, server: Optional[str] = None, token: Optional[str] = None, *,
                 timeout: float = 60.0, retries: int = 3, concurrency: int = 64,
                 ssl_context: Optional[ssl.SSLContext] = None) -> None:
        if concurrency < 1:
            raise ValueError("concurrency is at least 1")
        self.server = _http.Server.parse(server)
        self._token = _http.token_from(token)
        self.timeout = timeout
        self.retries = retries
        self.concurrency = concurrency
        self._ssl = ssl_context
        self._slots: Optional[asyncio.Semaphore] = None

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Nothing is held between requests; here so that ``async with`` reads naturally."""

    def __repr__(self) -> str:
        return f"AsyncClient({self.server.url()!r})"

    # --- transport ------------------------------------------------------------------------------
    def _semaphore(self) -> asyncio.Semaphore:
        # Made on first use, inside the running loop (a Semaphore binds to its loop).
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.concurrency)
        return self._slots

    async def _call(self, call: "_api.Call[T]") -> T:
        attempt = 0
        while True:
            try:
                return call.parse(await self._once(call))
            except ApiError as e:
                delay = _http.should_retry(e, attempt, self.retries)
                if delay is None:
                    raise
            except ConnectionFailed:
                delay = _http.resend_delay(attempt, self.retries) if call.may_resend else None
                if delay is None:
                    raise
            attempt += 1
            await asyncio.sleep(delay)

    async def _once(self, call: "_api.Call[Any]") -> Dict[str, Any]:
        s = self.server
        body = _http.encode(call.body)
        hdrs = _http.headers(s, self._token, body)
        if not call.authorized:
            del hdrs["Authorization"]
        async with self._semaphore():
            query, timeout = call.at_send()  # once a slot is ours: a long poll's wait starts now
            status, headers, raw = await _aio.request(
                s, call.method, _http.path(s, call.route, query), hdrs, body,
                timeout if timeout is not None else self.timeout, self._ssl)
        result: Dict[str, Any] = _http.decode(status, raw, headers.get("retry-after"))
        return result

    # --- submitting -----------------------------------------------------------------------------
    async def submit(self, target: Union[str, SubmissionRequest], *,
                     files: Optional[Mapping[str, str]] = None, code: Optional[str] = None,
                     file_name: Optional[str] = None, mode: Optional[Mode] = None,
                     idempotency_key: Optional[str] = None,
                     priority: Optional[Priority] = None) -> Accepted:
        """As Client.submit."""
        req = _api.request_of(target, files, code, file_name, mode, idempotency_key, priority)
        return await self._call(_api.submit(req))

    async def submit_batch(self, requests: Sequence[SubmissionRequest]) -> List[BatchItem]:
        """As Client.submit_batch: an Accepted or a Refused per item, in order."""
        if not requests:
            return []
        return await self._call(_api.submit_batch(requests))

    async def submit_to_leaderboard(self, name: str, *, code: Optional[str] = None,
                                    files: Optional[Mapping[str, str]] = None,
                                    file_name: Optional[str] = None,
                                    mode: Optional[Mode] = None,
                                    idempotency_key: Optional[str] = None,
                                    priority: Optional[Priority] = None) -> Accepted:
        """As Client.submit_to_leaderboard."""
        req = SubmissionRequest(files=files, code=code, file_name=file_name, mode=mode,
                                idempotency_key=idempotency_key, priority=priority)
        return await self._call(_api.submit_to_leaderboard(name, req))

    # --- reading and waiting --------------------------------------------------------------------
    async def submission(self, submission_id: int, *, wait: float = 0.0,
                         code: bool = False) -> Submission:
        """As Client.submission."""
        return await self._call(_api.submission(submission_id, wait, code))

    async def submissions(self, leaderboard: Optional[str] = None) -> List[Submission]:
        return await self._call(_api.submissions(leaderboard))

    async def _wait_one(self, submission_id: int, deadline: float) -> Submission:
        while True:
            sub = await self._call(_api.submission(submission_id, until=deadline))
            if sub.finished or time.monotonic() >= deadline:
                return sub

    async def wait(self, submission_id: int, timeout: float = 600.0) -> Submission:
        """As Client.wait."""
        return (await self.wait_all([submission_id], timeout))[0]

    async def wait_all(self, submission_ids: Iterable[int],
                       timeout: float = 600.0) -> List[Submission]:
        """Every submission once finished, in the order given, all long-polled at once (at most
        ``concurrency`` connections) within one total deadline; WaitTimeout with the latest
        state of each when it passes first."""
        deadline = time.monotonic() + timeout
        subs = await asyncio.gather(*(self._wait_one(i, deadline) for i in submission_ids))
        if not all(s.finished for s in subs):
            raise WaitTimeout(subs, timeout)
        return list(subs)

    async def reward(self, submission: Union[int, Submission]) -> Reward:
        """As Client.reward."""
        if isinstance(submission, int):
            submission = await self.submission(submission)
        return Reward.from_submission(submission)

    async def rewards(self, submission_ids: Iterable[int],
                      timeout: float = 600.0) -> List[Reward]:
        """wait_all, then each one's reward."""
        return [Reward.from_submission(s) for s in await self.wait_all(submission_ids, timeout)]

    # --- the service and its boards -------------------------------------------------------------
    async def health(self) -> Health:
        return await self._call(_api.health())

    async def leaderboards(self) -> List[LeaderboardSummary]:
        return await self._call(_api.leaderboards())

    async def leaderboard(self, name: str, gpu: Optional[str] = None) -> Leaderboard:
        return await self._call(_api.leaderboard(name, gpu))

    async def create_leaderboard(self, name: str, *, task: Optional[str] = None,
                                 problem: Optional[str] = None,
                                 description: Optional[str] = None,
                                 gpu_types: Optional[Sequence[str]] = None,
                                 deadline_us: Optional[int] = None) -> Dict[str, Any]:
        """As Client.create_leaderboard (admin)."""
        return await self._call(_api.create_leaderboard(name, task, problem, description,
                                                        gpu_types, deadline_us))

    async def delete_leaderboard(self, name: str) -> Dict[str, Any]:
        return await self._call(_api.delete_leaderboard(name))
