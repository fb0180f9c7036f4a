"""What the sync and async clients share: the server's address, the request's bytes, the
answer's decoding and the retry rule. Neither transport is here: http.client and asyncio."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple
from urllib.parse import quote, urlencode, urlsplit

from .errors import ApiError, ConnectionFailed, api_error

DEFAULT_SERVER = "http://127.0.0.1:8080"
# The service holds a long poll at most 600 s (docs/openapi.yaml).
MAX_WAIT_S = 600.0
# Beyond a long poll's own wait: time for the answer to be built and sent.
WAIT_SLACK_S = 30.0
# An answer larger than this is not the service's (its request bodies are capped at 16 MiB).
MAX_BODY = 1 << 30
USER_AGENT = "kjudge-client/1.0"


@dataclass(frozen=True)
class Server:
    scheme: str
    host: str
    port: int
    base_path: str  # a prefix before /api/v1, when the service sits behind a proxy

    @classmethod
    def parse(cls, url: Optional[str]) -> "Server":
        url = url or os.environ.get("KJUDGE_SERVER") or DEFAULT_SERVER
        u = urlsplit(url if "://" in url else "http://" + url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError(f"not an http(s) server address: {url!r}")
        port = u.port or (443 if u.scheme == "https" else 80)
        return cls(u.scheme, u.hostname, port, u.path.rstrip("/"))

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"

    def url(self) -> str:
        return f"{self.scheme}://{self.host_header}{self.base_path}"


def token_from(token: Optional[str]) -> str:
    t = token or os.environ.get("KJUDGE_TOKEN", "")
    if not t:
        raise ValueError("no API token: pass token= or set $KJUDGE_TOKEN "
                         "(tokens come from `kjudge users add NAME --db DB`)")
    if any(c in t for c in "\r\n"):
        raise ValueError("an API token has no line breaks")
    return t


def path(server: Server, route: str, query: Optional[Mapping[str, str]] = None) -> str:
    p = server.base_path + route
    return p + ("?" + urlencode(dict(query)) if query else "")


def segment(text: str) -> str:
    """One path segment (a leaderboard's name), quoted."""
    return quote(text, safe="")


def encode(body: Any) -> Optional[bytes]:
    return None if body is None else json.dumps(body).encode()


def headers(server: Server, token: str, body: Optional[bytes]) -> Dict[str, str]:
    h = {"Host": server.host_header, "Authorization": "Bearer " + token,
         "Accept": "application/json", "User-Agent": USER_AGENT, "Connection": "close"}
    if body is not None:
        h["Content-Type"] = "application/json"
        h["Content-Length"] = str(len(body))
    return h


def retry_after(value: Optional[str]) -> Optional[float]:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def decode(status: int, raw: bytes, retry: Optional[str]) -> Any:
    """The answer's JSON, or the ApiError its status means."""
    text = raw.decode("utf-8", errors="replace")
    try:
        body: Any = json.loads(text) if text.strip() else None
    except ValueError:
        body = text
    if status >= 400:
        raise api_error(status, body, retry_after(retry))
    if not isinstance(body, dict):
        raise ConnectionFailed(f"HTTP {status} without a JSON object: {text[:200]!r}")
    return body


def wait_query(seconds: float) -> Tuple[Dict[str, str], float]:
    """The ?wait= of one long poll of at most `seconds`, and the socket timeout it needs."""
    w = max(0.0, min(seconds, MAX_WAIT_S))
    return {"wait": f"{w:.3f}"}, w + WAIT_SLACK_S


def should_retry(e: ApiError, attempt: int, retries: int) -> Optional[float]:
    """Seconds to sleep before retrying a 503 (the service at a limit: nothing was done), or
    None to give up. Other statuses are answers, not retried."""
    if e.status != 503 or attempt >= retries:
        return None
    return min(e.retry_after if e.retry_after is not None else 1.0, 10.0)


def resend_delay(attempt: int, retries: int) -> Optional[float]:
    """Seconds to sleep before sending again a request whose answer was lost (the connection
    refused or cut), or None to give up."""
    if attempt >= retries:
        return None
    return min(0.5 * float(2**attempt), 5.0)
