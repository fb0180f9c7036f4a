"""What can go wrong talking to the service, as exceptions that carry what the service said."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple, Type

if TYPE_CHECKING:
    from .models import Submission


class KjudgeError(Exception):
    """The base of every error this package raises."""


class ConnectionFailed(KjudgeError):
    """The service did not answer: refused, reset, timed out, or not HTTP."""


class ApiError(KjudgeError):
    """The service answered with an error status.

    ``status`` is the HTTP status; ``error`` the service's words (its ``{"error": ...}``);
    ``field`` the request field it refused, for a 400 naming one; ``limit`` the per-user limit
    of a 429; ``retry_after`` its ``Retry-After`` header in seconds, when sent.
    """

    def __init__(self, status: int, error: str, field: Optional[str] = None,
                 limit: Optional[int] = None, retry_after: Optional[float] = None,
                 body: Any = None) -> None:
        where = f" (field {field})" if field else ""
        super().__init__(f"HTTP {status}: {error}{where}")
        self.status = status
        self.error = error
        self.field = field
        self.limit = limit
        self.retry_after = retry_after
        self.body = body


class BadRequest(ApiError):
    """400: bad JSON, an unknown target, a field of the wrong type (``field`` names it)."""


class Unauthorized(ApiError):
    """401: no valid API token."""


class Forbidden(ApiError):
    """403: not an admin, or the leaderboard closed."""


class NotFound(ApiError):
    """404: no such submission (or another user's), leaderboard or run."""


class Conflict(ApiError):
    """409: a leaderboard name taken, a run already reviewed."""


class OverLimit(ApiError):
    """429: the user's --max-queued or --max-stored limit (``limit``); retry after a while."""


class Busy(ApiError):
    """503: the service is at a limit (connections, handler queue, long polls)."""


_BY_STATUS: Dict[int, Type[ApiError]] = {400: BadRequest, 401: Unauthorized, 403: Forbidden,
                                         404: NotFound, 409: Conflict, 429: OverLimit, 503: Busy}


def api_error(status: int, body: Any, retry_after: Optional[float] = None) -> ApiError:
    """The exception for an error answer; ``body`` is its decoded JSON (or text)."""
    error, field, limit = f"HTTP {status}", None, None
    if isinstance(body, dict):
        if isinstance(body.get("error"), str):
            error = body["error"]
        if isinstance(body.get("field"), str):
            field = body["field"]
        if isinstance(body.get("limit"), int):
            limit = body["limit"]
    elif isinstance(body, str) and body.strip():
        error = body.strip()[:500]
    cls = _BY_STATUS.get(status, ApiError)
    return cls(status, error, field=field, limit=limit, retry_after=retry_after, body=body)


class NotFinished(KjudgeError):
    """A reward was asked of a submission that is still queued or running."""

    def __init__(self, submission_id: int, status: str) -> None:
        super().__init__(f"submission {submission_id} is {status}, not finished")
        self.submission_id = submission_id
        self.status = status


class WaitTimeout(KjudgeError):
    """The total deadline of a wait passed before every submission finished.

    ``submissions`` holds the latest state of each one waited for, in the order asked
    (finished or not), so the finished ones' rewards are not lost; ``unfinished`` their ids.
    """

    def __init__(self, submissions: Sequence["Submission"], timeout: float) -> None:
        self.submissions: Tuple["Submission", ...] = tuple(submissions)
        self.unfinished: Tuple[int, ...] = tuple(s.id for s in submissions if not s.finished)
        super().__init__(f"{len(self.unfinished)} of {len(self.submissions)} submissions not "
                         f"finished within {timeout:g} s: {list(self.unfinished)[:10]}")
