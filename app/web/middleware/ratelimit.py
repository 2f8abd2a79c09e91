"""Rate limits per client, as a pure ASGI middleware on the ``limits`` library.

Each request is sorted by method and path (no route needs to know):

* **new games**: ``POST /new``, ``POST /games/{id}/restart``, ``POST /api/games``, a race's
  ``POST /races`` (``…/join``, ``…/again``), ``POST /daily/{day}``, a table of friends made
  or joined or raced (``POST /tables``, ``/api/tables``, ``/t/{token}``, ``/api/tables/join``,
  ``/tables/{id}/race``); per client address;
* **pages**: ``GET /`` and ``GET /g/{code}``, which may deal a game, the daily's
  (``/daily…``, ``/api/daily…``: today's deals a game, any day's may run the solver to find
  its deal) and the reviews (``/replay/…``, ``/api/replay/…``), which run the solver; per
  client address;
* **actions**: every other state-changing request (``POST``, ``PUT``, ``PATCH``,
  ``DELETE``: moves, settings, names); per player (the signed cookie), or per client
  address when the request carries no valid player cookie, and under a ceiling per
  client address whatever cookie it carries;
* **hints** (``POST …/hint``, a solver search each): per player, and as an action too;
* **codes** tried (``POST /link``, ``/api/link``, a passkey sign-in) and **recovery** codes
  tried or made (``POST /recover``, ``/api/recover``, a new recovery code: a slow hash each):
  per client address, and under a ceiling for everyone at once (issue 38).

Reads of a game (``GET /api/games/{id}``, static files, ``/healthz``) are not limited.
A request over a limit gets 429 with ``Retry-After``: a problem (app/web/problems.py) under ``/api/``;
for an htmx request the page's ``#status`` line, swapped out of band (the rest of the
page stays as it is); else a small error page. The message is in the request's language.

The counters are a sliding window (``limits``' sliding-window counter) kept in memory per
process by default, or in Redis (``TRIPEAKS_RATE_LIMIT_STORAGE=redis://host:port``) so
that several processes share them. If Redis cannot be reached, requests are let through
(and it is logged): a rate limit must not take the game down with it.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Sequence
from typing import Final

from limits import RateLimitItem, parse_many
from limits.aio.storage import RedisStorage
from limits.aio.strategies import SlidingWindowCounterRateLimiter as AsyncLimiter
from limits.storage import MemoryStorage
from limits.strategies import SlidingWindowCounterRateLimiter
from markupsafe import escape
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.i18n import current_locale
from app.web.problems import problem_response

log = logging.getLogger(__name__)

OFF: Final = frozenset({"off", "none", "no", "false", "0", ""})
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
NEW_GAME_PATH: Final = re.compile(
    r"/new|/api/games|/games/[^/]+/restart|(/api)?/races(/[^/]+/(join|again))?|/daily/[^/]+"
    r"|(/api)?/tables(/join)?|/t/[^/]+|/tables/[^/]+/race"
)
PAGE_PATHS: Final = ("/g/", "/replay", "/api/replay/", "/race/", "/daily", "/api/daily")
GUARDED_PATHS: Final = {
    "/link": "codes", "/api/link": "codes", "/api/passkeys/sign-in/options": "codes",
    "/api/passkeys/sign-in": "codes", "/recover": "recovery", "/api/recover": "recovery",
    "/devices/recovery-code": "recovery", "/api/players/me/recovery-code": "recovery",
}  # fmt: skip
"""Codes tried, and recovery codes made (a slow hash each): per address and for everyone."""
STORAGE_ERROR_LOG_EVERY_S: Final = 60.0

STATUS_LINE: Final = (
    '<p id="status" class="status" role="status" aria-live="polite" aria-atomic="true"'
    ' hx-swap-oob="true">{message}</p>'
)
"""The game page's status line (``templates/game.html``, block ``status``), swapped out of band."""


def parse_limits(text: str) -> tuple[RateLimitItem, ...]:
    """``"20/second;600/minute"`` → the limits (all must hold); ``"off"`` → none."""
    if text.strip().lower() in OFF:
        return ()
    try:
        return tuple(parse_many(text))
    except ValueError:
        raise ValueError(
            f"not a rate limit: {text!r} (write, say, '60/minute' or '20/second;600/minute', or 'off')"
        ) from None


def too_many_requests_message() -> str:
    return current_locale().gettext("Too many requests just now. Wait a moment, then try again.")


class Counters:
    """The ``limits`` sliding-window counters: in process memory, or in Redis (async)."""

    def __init__(self, storage: str = "memory://") -> None:
        self.storage = storage
        self._sync: SlidingWindowCounterRateLimiter | None = None
        self._async: AsyncLimiter | None = None
        if storage.startswith("memory:"):
            # The in-memory counters take a few microseconds under a thread lock: no await needed,
            # and they do not belong to one event loop.
            self._sync = SlidingWindowCounterRateLimiter(MemoryStorage())
        elif storage.startswith(("redis:", "rediss:", "redis+unix:")):
            self._async = AsyncLimiter(
                RedisStorage(
                    "async+" + storage,
                    implementation="redispy",
                    wrap_exceptions=True,
                    socket_timeout=0.5,
                    socket_connect_timeout=0.5,
                )
            )
        else:
            raise ValueError(f"unsupported rate limit storage {storage!r}: use memory:// or redis://host:port")

    async def hit(self, item: RateLimitItem, *identifiers: str) -> bool:
        if self._sync is not None:
            return self._sync.hit(item, *identifiers)
        assert self._async is not None
        return await self._async.hit(item, *identifiers)

    async def retry_after(self, item: RateLimitItem, *identifiers: str) -> int:
        """Whole seconds until this limit lets a request through again (at least 1)."""
        if self._sync is not None:
            stats = self._sync.get_window_stats(item, *identifiers)
        else:
            assert self._async is not None
            stats = await self._async.get_window_stats(item, *identifiers)
        wait = math.ceil(stats.reset_time - time.time())
        return max(1, min(wait, item.get_expiry()))


class RateLimitMiddleware:
    """Refuses requests over their limits with 429. Must run inside :class:`PlayerCookieMiddleware`."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        new_games: str = "60/minute",
        pages: str = "300/minute",
        actions: str = "600/minute",
        hints: str = "120/minute",
        actions_per_address: str = "3000/minute",
        codes: str = "10/minute;100/hour",
        codes_everyone: str = "300/minute",
        recovery: str = "5/minute;30/hour",
        recovery_everyone: str = "60/minute",
        storage: str = "memory://",
    ) -> None:
        self.app = app
        self.new_games = parse_limits(new_games)
        self.pages = parse_limits(pages)
        self.actions = parse_limits(actions)
        self.hints = parse_limits(hints)
        self.actions_per_address = parse_limits(actions_per_address)
        self.guards = {
            "codes": (parse_limits(codes), parse_limits(codes_everyone)),
            "recovery": (parse_limits(recovery), parse_limits(recovery_everyone)),
        }
        self.counters = Counters(storage)
        self._storage_error_logged = 0.0

    def checks(self, scope: Scope) -> list[tuple[str, Sequence[RateLimitItem], str]]:
        """The (kind, limits, key) a request counts against."""
        method, path = scope["method"], scope["path"]
        client = scope.get("client")
        address = str(client[0]) if client else "unknown"
        if method in SAFE_METHODS:
            if method != "OPTIONS" and (path == "/" or path.startswith(PAGE_PATHS)):
                return [("pages", self.pages, address)]
            return []
        if NEW_GAME_PATH.fullmatch(path):
            return [("new", self.new_games, address)]
        guarded = GUARDED_PATHS.get(path)
        if guarded is not None:  # per address, then everyone's (one key for the installation)
            per_address, everyone = self.guards[guarded]
            return [(guarded, per_address, address), (guarded, everyone, "everyone")]
        state = scope.get("state") or {}
        player = state.get("player") if state.get("player_known") else None
        who = f"p:{player}" if player else f"a:{address}"
        found: list[tuple[str, Sequence[RateLimitItem], str]] = [
            ("actions", self.actions, who),
            ("address", self.actions_per_address, address),
        ]
        if path.endswith("/hint"):
            found.insert(0, ("hints", self.hints, who))
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for kind, items, key in self.checks(scope):
            for item in items:
                try:
                    allowed = await self.counters.hit(item, kind, key)
                    if not allowed:
                        wait = await self.counters.retry_after(item, kind, key)
                except Exception:  # the shared counters are unreachable: let the request through
                    self._log_storage_error()
                    continue
                if not allowed:
                    await too_many(scope, wait)(scope, receive, send)
                    return
        await self.app(scope, receive, send)

    def _log_storage_error(self) -> None:
        now = time.monotonic()
        if now - self._storage_error_logged > STORAGE_ERROR_LOG_EVERY_S:
            self._storage_error_logged = now
            log.exception("rate limit storage %s failed; requests are let through", self.counters.storage)


def too_many(scope: Scope, retry_after: int) -> Response:
    """The 429 answer: JSON for the API, the status line for htmx, else a small page."""
    message = too_many_requests_message()
    headers = {"Retry-After": str(retry_after), "Cache-Control": "no-store"}
    if scope["path"].startswith("/api/"):
        return problem_response(429, message, headers=headers)
    request = Request(scope)
    if request.headers.get("hx-request") == "true":
        html = STATUS_LINE.format(message=escape(message))
        return HTMLResponse(html, status_code=429, headers={**headers, "Vary": "HX-Request"})
    pages = getattr(getattr(scope.get("app"), "state", None), "pages", None)
    if pages is None:  # pragma: no cover - the middleware outside the game's app
        return PlainTextResponse(message, status_code=429, headers=headers)
    context = {"request": request, "status_code": 429, "detail": message, "oob": False}
    response: Response = pages.page("error.html", context, status_code=429, headers=headers)
    return response
