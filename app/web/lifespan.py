"""What the app starts with and stops with (its lifespan): the store, the races' signals and
streams, the idle cleanups, the metrics' game count, the solver's worker process, and the
signed-out devices each server watches (:mod:`app.web.device_watch`).

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
from app.web import solver_worker
from app.web.ops import metrics
from app.web.presentation import clock
from app.web.presentation.daily.days import code_of, deal_day, today
from app.web.race_events import Presence
from app.web.race_signals import open_signals
from app.web.race_stream import (
    SEEN_EVERY_S,
    RaceReads,
    StreamSlots,
    bound_by_open_files,
    close_streams_on_shutdown,
)
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
        # Where the store deals a day's deal, the player's game of that day begins (issue 41).
        app.state.daily_key = settings.signing_key().encode("utf-8")
        app.state.store.know_days(deal_day(app.state.daily_key))
        days = asyncio.create_task(find_days(app.state.daily_key))
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
            settings.race_streams_per_player,
            bound_by_open_files(settings.race_streams_per_server),
            app.state.race_signals,
            settings.race_streams_per_address,
        )
        close_streams_on_shutdown(app.state.race_streams)
        app.state.race_presence = Presence(app.state.store, SEEN_EVERY_S)
        presence = asyncio.create_task(app.state.race_presence.run())
        rooms = asyncio.create_task(clean_idle_rooms(app.state.store))
        watch = app.state.device_watch
        watch.store = app.state.store
        with suppress(Exception):  # what is signed out, before the first request (else in a moment)
            await to_thread.run_sync(watch.refresh)
        watching = asyncio.create_task(watch.run(app.state.store))
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
            for task in (rooms, watching, days, presence):
                task.cancel()
                with suppress(asyncio.CancelledError):
                    await task
            await watch.close()
            await app.state.race_signals.close()
            if app.state.race_reads.reader is not None:
                await app.state.race_reads.reader.close()
            if store is None:
                app.state.store.close()
            # The analyses' worker process stops with the app (what it has queued is dropped).
            solver_worker.analyses.shutdown()

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


async def find_days(key: bytes) -> None:
    """Find today's and yesterday's deals now, and each new day's just after midnight UTC (a
    solver walk, about 45 ms of CPU), in a worker thread: the store asks which day's deal a
    code is inside its transactions (a race's seats), where it must be quick."""
    log = logging.getLogger("tripeaks.daily")
    while True:
        now = today()
        try:
            for day in (now, now - dt.timedelta(days=1)):  # (a server stopping does not wait for it)
                await to_thread.run_sync(code_of, key, day, abandon_on_cancel=True)
        except Exception:
            log.exception("could not find the day's deal; it is found when first asked for")
        midnight = dt.datetime.combine(now + dt.timedelta(days=1), dt.time(), dt.UTC).timestamp()
        await asyncio.sleep(max(midnight - clock.now(), 0.0) + 1.0)


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
