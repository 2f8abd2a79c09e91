"""Every request as its operator sees it, in one pure ASGI middleware (the outermost but the
proxy headers' one):

* **A request id.** An ``X-Request-ID`` the client (or the proxy in front) sent is kept when it
  is sane (1 to 128 characters: letters, digits and ``-_.:/+=@``), else one is made (32 hex
  digits). The response echoes it as ``X-Request-ID``, and it is in ``scope["state"]``.
* **One log line per request** (logger ``tripeaks.access``, at INFO), with that id::

      127.0.0.1 "GET /g/TP1-E-AAAAAAB HTTP/1.1" 200 3.2ms id=4f0c…

  A link code in the path (``/link/<code>``) is never logged: the line says ``/link/<code>``.
  ``TRIPEAKS_ACCESS_LOG=false`` turns it off (uvicorn's own access log is off under
  ``tripeaks serve``: this one replaces it).
* **Request metrics** (when metrics are on, see :mod:`app.web.ops.metrics`): a count and a latency
  histogram by route template.
* **HEAD** for every GET route: the request goes in as GET, the answer comes out without its
  body (status and headers as for GET). FastAPI's routes take only the methods they declare.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from typing import Final

from prometheus_client import Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.ops.metrics import LATENCY, REQUESTS

log = logging.getLogger("tripeaks.access")

REQUEST_ID: Final = b"x-request-id"
SANE_REQUEST_ID: Final = re.compile(rb"[A-Za-z0-9._:/+=@-]{1,128}")
UNMATCHED: Final = "<unmatched>"


def request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == REQUEST_ID and SANE_REQUEST_ID.fullmatch(value):
            return str(value.decode("ascii"))
    return secrets.token_hex(16)


SECRET_PATHS: Final = (b"/link/",)
"""Paths that carry a code (``/link/<code>``, issue 38): logged without it."""


def hide_codes(path: bytes) -> bytes:
    """The path as logged: a link code in it replaced by ``<code>``, its query dropped."""
    for prefix in SECRET_PATHS:
        if path.startswith(prefix) and len(path) > len(prefix):
            return prefix + b"<code>"
    return path


def route_template(scope: Scope) -> str:
    """The matched route's path template (``/g/{code}``), or :data:`UNMATCHED`."""
    route = scope.get("route")
    if route is None:
        return UNMATCHED
    return str(getattr(route, "path_format", None) or getattr(route, "path", UNMATCHED))


class AccessMiddleware:
    def __init__(self, app: ASGIApp, *, log_requests: bool = True, metrics: bool = False) -> None:
        self.app = app
        self.log_requests = log_requests
        self.metrics = metrics
        self._series: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        rid = request_id(scope)
        scope.setdefault("state", {})["request_id"] = rid
        method = scope["method"]
        head = method == "HEAD"
        if head:  # a copy: the server must still know it answers a HEAD
            scope = {**scope, "method": "GET"}
        status = 500  # what the client sees if the app fails before it answers

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), (b"x-request-id", rid.encode())]
            elif head and message["type"] == "http.response.body" and message.get("body"):
                message = {**message, "body": b""}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - start
            if self.metrics:
                self._observe(method, route_template(scope), status, elapsed)
            if self.log_requests and log.isEnabledFor(logging.INFO):
                client = scope.get("client")
                path = hide_codes(scope.get("raw_path") or scope["path"].encode())
                query = scope.get("query_string") if not path.endswith(b"<code>") else b""
                target = path.decode("latin-1") + ("?" + query.decode("latin-1") if query else "")
                log.info(
                    '%s "%s %s HTTP/%s" %d %.1fms id=%s',
                    client[0] if client else "-",
                    method,
                    target,
                    scope.get("http_version", "1.1"),
                    status,
                    elapsed * 1000,
                    rid,
                )

    def _observe(self, method: str, route: str, status: int, elapsed: float) -> None:
        series = self._series.get((method, route, status))
        if series is None:  # the labelled children, looked up once per (method, route, status)
            series = (REQUESTS.labels(method, route, str(status)), LATENCY.labels(method, route))
            if len(self._series) < 2000:
                self._series[(method, route, status)] = series
        count, latency = series
        count.inc()
        latency.observe(elapsed)
