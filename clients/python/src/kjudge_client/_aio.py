"""One HTTP/1.1 exchange over asyncio streams: the request, then the status, headers and body of
the answer (Content-Length, chunked, or up to the end). ``Connection: close`` each time, so
nothing is pooled and every coroutine has its own socket: a parked long poll holds only that."""
from __future__ import annotations

import asyncio
import ssl
from typing import Dict, Optional, Tuple

from . import _http
from .errors import ConnectionFailed

_LINE_LIMIT = 1 << 16  # the service's headers are at most 16 KiB


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    body = bytearray()
    while True:
        size_line = await reader.readline()
        size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return bytes(body)
        if len(body) + size > _http.MAX_BODY:
            raise ValueError(f"an answer over {_http.MAX_BODY} bytes")
        body += await reader.readexactly(size)
        await reader.readexactly(2)  # CRLF after each chunk


async def _exchange(server: _http.Server, request: bytes,
                    ssl_context: Optional[ssl.SSLContext]) -> Tuple[int, Dict[str, str], bytes]:
    ctx: Optional[ssl.SSLContext] = None
    if server.scheme == "https":
        ctx = ssl_context or ssl.create_default_context()
    reader, writer = await asyncio.open_connection(
        server.host, server.port, ssl=ctx, server_hostname=server.host if ctx else None,
        limit=_LINE_LIMIT)
    try:
        writer.write(request)
        await writer.drain()
        status_line = await reader.readline()
        parts = status_line.decode("latin-1").split(None, 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/"):
            raise ValueError(f"not an HTTP answer: {status_line[:100]!r}")
        status = int(parts[1])
        headers: Dict[str, str] = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            key, _, value = line.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = await _read_chunked(reader)
        elif "content-length" in headers:
            n = int(headers["content-length"])
            if n > _http.MAX_BODY:
                raise ValueError(f"an answer of {n} bytes")
            body = await reader.readexactly(n)
        else:
            body = await reader.read(_http.MAX_BODY)
        return status, headers, body
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except (OSError, ssl.SSLError):
            pass


async def request(server: _http.Server, method: str, target: str, hdrs: Dict[str, str],
                  body: Optional[bytes], timeout: float,
                  ssl_context: Optional[ssl.SSLContext]) -> Tuple[int, Dict[str, str], bytes]:
    """(status, headers with lower-case names, body); ConnectionFailed for no usable answer."""
    if any(c in target for c in " \r\n"):
        raise ValueError(f"not a request target: {target!r}")
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
    data = head.encode("latin-1") + (body or b"")
    try:
        return await asyncio.wait_for(_exchange(server, data, ssl_context), timeout)
    except asyncio.TimeoutError as e:
        raise ConnectionFailed(f"{server.url()}: {method} {target}: no answer in {timeout:g} s") \
            from e
    except (OSError, asyncio.IncompleteReadError, ssl.SSLError, ValueError) as e:
        raise ConnectionFailed(f"{server.url()}: {method} {target}: {e!r}") from e
