"""The FastAPI application: its routers, its middlewares, its error pages, its lifespan.

A request goes through the middlewares (outermost first: the race streams' front, outside
FastAPI's own layers (:class:`TriPeaks`) → [proxy headers] → request id, log
line, metrics → language → security headers and cross-site refusal → body size → player
cookie → rate limits), then to the first route that matches it. docs/architecture.md draws
the layers and a move's path through them.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app.store.base import GameStore
from app.web.device_watch import DeviceWatch
from app.web.errors import handle_errors
from app.web.lifespan import lifespan_of
from app.web.middleware.access import AccessMiddleware
from app.web.middleware.language import LocaleMiddleware
from app.web.middleware.limits import BodySizeLimitMiddleware
from app.web.middleware.player_cookie import PlayerCookieMiddleware, PlayerCookies
from app.web.middleware.ratelimit import RateLimitMiddleware
from app.web.middleware.security import SecurityMiddleware
from app.web.ops import health, install, metrics
from app.web.presentation.render import STATIC_DIR, Pages, make_environment
from app.web.problems import install_document
from app.web.race_events import StreamsFront
from app.web.routes import (
    api,
    daily,
    devices,
    display,
    ghost,
    howto,
    identity_api,
    moves,
    pages,
    race_api,
    race_live,
    race_pages,
    replay,
    stats,
    tables,
    tables_api,
)
from app.web.settings import Settings

ROUTERS = (moves, pages, api, race_api, race_pages, race_live, stats, health, metrics, howto, replay, daily,
           install, display, identity_api, devices, ghost, tables_api, tables)
"""In the order Starlette tries them: the moves first, the most frequent requests."""


class TriPeaks(FastAPI):
    """FastAPI, with :class:`StreamsFront` outside even FastAPI's own layers (its error,
    telemetry and body-size middlewares, Starlette's call): a race stream's body runs once they
    have all returned, and a stream held for an hour keeps two coroutines of the app, not eight
    (about 1 KiB a stream less; docs/performance.md, issue 40)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._front = StreamsFront(super().__call__)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._front(scope, receive, send)


def create_app(settings: Settings | None = None, store: GameStore | None = None) -> FastAPI:
    """The app, with ``settings`` (else read from the environment) and ``store`` (else opened
    in the lifespan from ``settings.database_url``)."""
    settings = settings or Settings()
    app = TriPeaks(
        title="TriPeaks",
        summary="TriPeaks solitaire: deal by code, remove, draw, undo.",
        version="1",
        lifespan=lifespan_of(settings, store),
    )
    app.state.settings = settings
    app.state.pages = Pages(make_environment())
    app.state.readiness = health.Readiness()
    app.state.player_cookies = PlayerCookies(settings.signing_key())
    app.state.device_watch = DeviceWatch(settings.sign_out_refresh_s)
    for module in ROUTERS:
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    handle_errors(app)
    install_document(app)

    # Innermost first (each add_middleware wraps the ones before it).
    if settings.rate_limits:  # inside the player cookie: they key actions by the player
        app.add_middleware(
            RateLimitMiddleware,
            new_games=settings.rate_limit_new_games,
            pages=settings.rate_limit_pages,
            actions=settings.rate_limit_actions,
            hints=settings.rate_limit_hints,
            actions_per_address=settings.rate_limit_actions_per_address,
            codes=settings.rate_limit_codes,
            codes_everyone=settings.rate_limit_codes_everyone,
            recovery=settings.rate_limit_recovery,
            recovery_everyone=settings.rate_limit_recovery_everyone,
            storage=settings.rate_limit_storage,
        )
    app.add_middleware(
        PlayerCookieMiddleware,
        cookies=app.state.player_cookies,
        secure=settings.cookie_secure,
        watch=app.state.device_watch,
    )
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityMiddleware)
    app.add_middleware(LocaleMiddleware)
    app.add_middleware(AccessMiddleware, log_requests=settings.access_log, metrics=settings.metrics_on)
    if settings.trust_proxy:  # the scheme and client address the proxy in front saw
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.forwarded_allow_ips)
    return app
