"""Security headers and cross-site request refusal, as one pure ASGI middleware.

* Every response gets a Content-Security-Policy with no inline or eval'd script (htmx is
  configured for it: no indicator style injection, no ``hx-on`` or trigger filters),
  ``X-Content-Type-Options: nosniff``, a ``Referrer-Policy`` and ``frame-ancestors 'none'``.
* A state-changing request (anything but GET, HEAD, OPTIONS) sent by a browser from another
  site is refused with 403: ``Sec-Fetch-Site`` must be ``same-origin`` or ``none``; a browser
  that does not send it must send an ``Origin`` naming this host, or none at all (tools such
  as curl and bots send neither and are let through: they carry no victim's cookie).
* A fault no handler answers (a bug, a database error the store does not know) is answered
  here, 500 with the same headers, before it goes on to the server's log: Starlette's own 500
  is sent outside every middleware, with none of them.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.middleware.headers import header, send_json_error

CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'; manifest-src 'self'; worker-src 'self'"
)
# FastAPI's /docs and /redoc pages load Swagger UI / ReDoc from a CDN with an inline script.
DOCS_CSP: Final = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
    "font-src 'self' https://fonts.gstatic.com; worker-src blob:; frame-ancestors 'none'"
)
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
DOCS_PATHS: Final = frozenset({"/docs", "/redoc", "/docs/oauth2-redirect"})


def is_cross_site(scope: Scope) -> bool:
    site = header(scope, b"sec-fetch-site")
    if site is not None:
        return site not in ("same-origin", "none")
    origin = header(scope, b"origin")
    if origin is None:
        return False
    host = header(scope, b"host")
    try:
        return origin == "null" or urlsplit(origin).netloc != host
    except ValueError:
        return True


class SecurityMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = DOCS_CSP if scope["path"] in DOCS_PATHS else CSP

        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = csp
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "same-origin"
                headers["X-Frame-Options"] = "DENY"
                headers["Cross-Origin-Opener-Policy"] = "same-origin"
            await send(message)

        if scope["method"] not in SAFE_METHODS and is_cross_site(scope):
            await send_json_error(send_with_headers, 403, "Refused: this request came from another site.")
            return
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            if not started:  # then Starlette's outermost handler sends nothing more, and logs it
                await send_json_error(send_with_headers, 500, "Internal Server Error")
            raise
