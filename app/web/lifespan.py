"""What the app starts with and stops with (its lifespan): the store, the races' signals and
streams, the idle cleanups, the metrics' game count, the solver's worker process.

Two tasks run for as long as the app: idle unfinished games are removed (when
``TRIPEAKS_IDLE_DAYS`` is above 0), and so are idle race rooms. Each runs once at start and
then now and then, in a worker thread; a failure (the database briefly unreachable) is
logged and tried again next time.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress

from anyio import to_thread
from fastapi import FastAPI

from app.store.base import GameStore
from app.store.database.race_async import PostgresRaceReader, conninfo_of
from app.store.factory import open_store
from app.store.races import ROOM_IDLE_S
from app.web import solving
from app.web.ops import metrics
from app.web.race_signals import open_signals
from app.web.race_stream import RaceReads, StreamSlots, close_streams_on_shutdown
from app.web.settings import Settings

_settled = False


def lifespan_of(
    settings: Settings, store: GameStore | None
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan: ``store`` if given (tests), else the one ``settings`` names."""

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
                clean_idle_games(
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
        conninfo = conninfo_of(settings.database_url) if store is None else None
        app.state.race_reads = RaceReads(
            app.state.race_signals, PostgresRaceReader(conninfo) if conninfo else None
        )
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
            if app.state.race_reads.reader is not None:
                await app.state.race_reads.reader.close()
            if store is None:
                app.state.store.close()
            # The analyses' worker process stops with the app (what it has queued is dropped).
            solving.analyses.shutdown()

    return lifespan


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


async def clean_idle_games(store: GameStore, idle: dt.timedelta, every: dt.timedelta) -> None:
    """Remove games left unfinished for ``idle`` now, and then every ``every``."""
    log = logging.getLogger("tripeaks.records")
    while True:
        try:
            removed = await to_thread.run_sync(store.cleanup_idle, idle)
            if removed:
                log.info("removed %d games idle for more than %s", removed, idle)
        except Exception:
            log.exception("idle game cleanup failed; trying again later")
        await asyncio.sleep(every.total_seconds())


async def clean_idle_rooms(store: GameStore, every_s: float = 3600.0) -> None:
    """Remove race rooms idle for :data:`~app.store.races.ROOM_IDLE_S` now, and then every hour."""
    log = logging.getLogger("tripeaks.races")
    while True:
        try:
            removed = await to_thread.run_sync(store.cleanup_races, dt.timedelta(seconds=ROOM_IDLE_S))
            if removed:
                log.info("removed %d idle race rooms", removed)
        except Exception:
            log.exception("idle race room cleanup failed; trying again later")
        await asyncio.sleep(every_s)
