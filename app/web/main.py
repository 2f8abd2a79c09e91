"""The FastAPI application: routers, middleware, the store made in the lifespan."""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app.i18n import N_, current_locale
from app.store.base import GameStore, StoreUnavailable
from app.store.factory import open_store
from app.web import solving
from app.web.middleware import language
from app.web.middleware.access import AccessMiddleware
from app.web.middleware.limits import BodySizeLimitMiddleware
from app.web.middleware.player_cookie import PlayerCookieMiddleware
from app.web.middleware.ratelimit import RateLimitMiddleware
from app.web.middleware.security import SecurityMiddleware
from app.web.ops import health, install, metrics
from app.web.presentation.render import STATIC_DIR, Pages, make_environment
from app.web.race_signals import open_signals
from app.web.race_stream import RaceReads, StreamSlots, clean_idle_rooms, close_streams_on_shutdown
from app.web.routes import (
    api,
    challenge,
    display,
    howto,
    moves,
    pages,
    race_api,
    race_pages,
    replay,
    stats,
)
from app.web.settings import Settings

_settled = False


def settle_memory() -> None:
    """Once a process has started its app: keep what it loaded out of garbage collection.

    Modules, templates and the store make about 100,000 objects that live as long as the
    process; a full collection would walk them all (tens of milliseconds, a pause for every
    request in flight). ``gc.freeze`` moves them out of the collector's sight, once per
    process (a test run that makes many apps freezes only the first).
    """
    global _settled
    if not _settled:
        _settled = True
        gc.collect()
        gc.freeze()


def create_app(settings: Settings | None = None, store: GameStore | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.store = (
            store
            if store is not None
            else open_store(settings.database_url, max_games_per_player=settings.max_games_per_player)
        )
        cleanup = None
        if settings.idle_days > 0:  # idle unfinished games: removed at start, then periodically
            cleanup = asyncio.create_task(
                stats.clean_idle_games(
                    app.state.store,
                    dt.timedelta(days=settings.idle_days),
                    dt.timedelta(hours=settings.cleanup_every_hours),
                )
            )
        if settings.metrics_on:
            metrics.enable()
            metrics.count_games(app.state.store)
        app.state.race_signals = open_signals(
            settings.database_url, settings.race_signals_url, settings.workers
        )
        await app.state.race_signals.start()
        app.state.race_reads = RaceReads(app.state.race_signals)
        app.state.race_streams = StreamSlots(
            settings.race_streams_per_player, settings.race_streams_per_server, app.state.race_signals
        )
        close_streams_on_shutdown(app.state.race_streams)
        rooms = asyncio.create_task(clean_idle_rooms(app.state.store))
        app.state.pages.load_all()
        settle_memory()
        try:
            yield
        finally:
            if cleanup is not None:
                cleanup.cancel()
                with suppress(asyncio.CancelledError):
                    await cleanup
            app.state.race_streams.close()
            rooms.cancel()
            with suppress(asyncio.CancelledError):
                await rooms
            await app.state.race_signals.close()
            if store is None:
                app.state.store.close()
            # The analyses' worker process stops with the app (what it has queued is dropped).
            solving.analyses.shutdown()

    app = FastAPI(
        title="TriPeaks",
        summary="TriPeaks solitaire: deal by code, remove, draw, undo.",
        version="1",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.pages = Pages(make_environment())
    app.state.readiness = health.Readiness()
    app.include_router(moves.router)  # first: the most frequent requests are matched soonest
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(race_api.router)
    app.include_router(race_pages.router)
    app.include_router(stats.router)
    app.include_router(language.router)
    app.include_router(health.router)
    app.include_router(metrics.router)
    app.include_router(howto.router)
    app.include_router(replay.router)
    app.include_router(challenge.router)
    app.include_router(install.router)
    app.include_router(display.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        return error_response(request, error.status_code, str(error.detail), error.headers)

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(request: Request, error: StoreUnavailable) -> Response:
        # Nothing was changed: the player can simply try again.
        metrics.store_error("request")
        detail = N_("The game store cannot be reached just now. Nothing was lost: try again in a moment.")
        return error_response(request, 503, detail, {"Retry-After": "5"})

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> Response:
        if wants_json(request):
            return JSONResponse({"detail": jsonable_errors(error)}, status_code=422)
        return error_response(request, 422, N_("That request is not one the game understands."))

    # Outermost last: [proxy headers] → request id, log line, metrics, HEAD → language
    # → security headers and cross-site refusal → body size → player cookie → rate limits
    # (they key actions by the player) → routes.
    if settings.rate_limits:
        app.add_middleware(
            RateLimitMiddleware,
            new_games=settings.rate_limit_new_games,
            pages=settings.rate_limit_pages,
            actions=settings.rate_limit_actions,
            hints=settings.rate_limit_hints,
            actions_per_address=settings.rate_limit_actions_per_address,
            storage=settings.rate_limit_storage,
        )
    app.add_middleware(PlayerCookieMiddleware, secret=settings.signing_key(), secure=settings.cookie_secure)
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityMiddleware)
    app.add_middleware(language.LocaleMiddleware)
    app.add_middleware(AccessMiddleware, log_requests=settings.access_log, metrics=settings.metrics_on)
    if settings.trust_proxy:  # the scheme and client address the proxy in front saw
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.forwarded_allow_ips)
    return app


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def jsonable_errors(error: RequestValidationError) -> list[dict[str, Any]]:
    return [
        {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
        for e in error.errors()
    ]


def error_response(
    request: Request, status: int, detail: str, headers: Mapping[str, str] | None = None
) -> Response:
    if detail:  # details the catalogs know are translated
        detail = current_locale().gettext(detail)
    if wants_json(request):
        return JSONResponse({"detail": detail}, status_code=status, headers=headers)
    if status == 404 and detail == current_locale().gettext("Not Found"):
        detail = ""  # Starlette's word for an unknown URL: the page's heading says it already
    page_renderer: Pages = request.app.state.pages
    return page_renderer.page(
        "error.html",
        {"request": request, "status_code": status, "detail": detail, "oob": False},
        status_code=status,
        headers=headers,
    )
