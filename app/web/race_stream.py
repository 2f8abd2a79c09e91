"""A race's live stream: ``GET /races/{id}/events`` (server-sent events, FastAPI's own
``EventSourceResponse``), read by the race page through htmx 4's ``hx-sse:connect``.

Every message is the race's live part rendered whole for the racer watching (their language,
their row marked): the strip of rivals' counts, the lobby or the countdown, the finish table.
Its id is a digest of that fragment, so a reconnect that sends ``Last-Event-ID`` gets nothing
until something changed, and any other reconnect gets it whole (a full re-render; nothing to
replay). FastAPI sends a keep-alive comment every 15 s, ``Cache-Control: no-cache`` and
``X-Accel-Buffering: no``.

One stream waits for its race's signal (:mod:`app.web.race_signals`), or for the next moment
its fragment changes by itself (the countdown's next second, the time limit, presence); one
read of the race per signal serves every stream of it on this server (:class:`RaceReads`).

Bounds (:class:`StreamSlots`): streams per player and per server (429 and 503 beyond them);
a connected racer is marked seen every :data:`SEEN_EVERY_S`; a server shutting down ends
every stream (:func:`close_streams_on_shutdown`), and the browsers reconnect elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import signal
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Final

from anyio import to_thread
from fastapi import HTTPException

from app.i18n import N_
from app.store import GameStore
from app.store.database.race_async import PostgresRaceReader
from app.store.races import GONE_AFTER_S, Race, RacerStatus, RaceStatus
from app.web.race_signals import LocalSignals
from app.web.routes.race_api import read_race

log = logging.getLogger("tripeaks.races")

SEEN_EVERY_S: Final = 15.0
"""How often a connected racer is marked as still there (``Racer.seen``)."""
ANNOUNCE_EVERY_S: Final = 5.0
"""Rivals' progress is announced (politely) at most this often."""
RETRY_MS: Final = 2000
"""How soon a browser reconnects after the stream ended (a server shutting down, say)."""
MOVE_READ_S: Final = 1.0
"""A move's check uses its running race as read at most this long ago, and since its last
signal (a signal from another server may take a few milliseconds to come)."""
SEATS_KEPT: Final = 20_000
"""Racers' games whose race this server remembers (about 100 bytes each)."""


class StreamSlots:
    """Streams open on this server: at most ``per_player`` for one player (tabs, a reload's
    overlap) and ``per_server`` in all. Each costs a task, a listener and the last fragment
    sent (a few kilobytes)."""

    def __init__(self, per_player: int, per_server: int, signals: LocalSignals) -> None:
        self.per_player = per_player
        self.per_server = per_server
        self.open = 0
        self._players: dict[str, int] = {}
        self._signals = signals
        self.closing = asyncio.Event()

    def close(self) -> None:
        """The server is stopping: every stream ends (each is woken to see it)."""
        self.closing.set()
        self._signals.wake_all()

    def take(self, player: str) -> Callable[[], None]:
        """A slot for one stream (429 or 503 when there is none), and how to give it back."""
        if self.closing.is_set():
            restarting = N_("The server is restarting: try again in a moment.")
            raise HTTPException(503, restarting, {"Retry-After": "2"})
        if self.open >= self.per_server:
            busy = N_("Too many live races on this server just now.")
            raise HTTPException(503, busy, {"Retry-After": "10"})
        if self._players.get(player, 0) >= self.per_player:
            raise HTTPException(429, N_("Too many race pages open: close one."), {"Retry-After": "10"})
        self.open += 1
        self._players[player] = self._players.get(player, 0) + 1
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if given_back:
                return
            given_back = True
            self.open -= 1
            left = self._players[player] - 1
            if left:
                self._players[player] = left
            else:
                del self._players[player]

        return give_back


def close_streams_on_shutdown(slots: StreamSlots) -> None:
    """End every stream when the server is told to stop (SIGTERM, SIGINT), before uvicorn
    waits for open connections to finish: the handlers uvicorn installed still run after."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(signum)
        if not callable(previous):
            continue

        def handler(number: int, frame: Any, previous: Callable[..., Any] = previous) -> None:
            loop.call_soon_threadsafe(slots.close)
            previous(number, frame)

        with contextlib.suppress(ValueError):  # not the main thread (a test client): no hook
            signal.signal(signum, handler)


@dataclass(slots=True)
class _Read:
    version: int
    race: Race | None
    at: float
    fragments: dict[Hashable, tuple[str, str]] = field(default_factory=dict)
    """What the streams of this read sent, by what it depends on (see :meth:`RaceReads.fragment`)."""


@dataclass(slots=True)
class RaceReads:
    """One read of a race per signal for all of this server's streams of it, and for the
    moves of its racers (:meth:`race_of_game`)."""

    signals: LocalSignals
    reader: PostgresRaceReader | None = None
    """Reads on the event loop (PostgreSQL), else the store's own (a thread, or SQLite's)."""
    _kept: dict[str, _Read] = field(default_factory=dict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    _seats: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Racers' games seen here: game id → its race and round (which never change)."""

    async def race_of_game(self, store: GameStore, game_id: str) -> Race | None:
        """The race of which ``game_id`` is a racer's game in the current round, for a move's
        check. While the race runs, the read its streams made here serves if no signal of the
        race came since (and it is under :data:`MOVE_READ_S` old): a move then costs no read
        of its own. Anything else is read afresh: a lobby, a countdown, a finish."""
        seat = self._seats.get(game_id)
        kept = self._kept.get(seat[0]) if seat is not None else None
        if seat is not None and kept is not None and kept.race is not None:
            now = time.time()
            fresh = kept.version == self.signals.version(seat[0]) and now - kept.at < MOVE_READ_S
            if fresh and kept.race.round == seat[1] and kept.race.status(now) is RaceStatus.RUNNING:
                return kept.race
        if self.reader is not None:
            race = await self.reader.race_of_game(game_id)
        else:
            race = await store.aread(lambda: store.race_of_game(game_id))
        if race is not None:
            if len(self._seats) >= SEATS_KEPT:
                del self._seats[next(iter(self._seats))]
            self._seats[game_id] = (race.id, race.round)
        return race

    async def read(self, store: GameStore, race_id: str, most_age: float) -> Race | None:
        """The race as of its latest signal (read again when older than ``most_age``)."""
        version = self.signals.version(race_id)
        kept = self._kept.get(race_id)
        if kept is not None and kept.version == version and time.time() - kept.at < most_age:
            return kept.race
        lock = self._locks.setdefault(race_id, asyncio.Lock())
        async with lock:
            kept = self._kept.get(race_id)
            if kept is not None and kept.version == version and time.time() - kept.at < most_age:
                return kept.race
            race = await read_race(store, race_id, self.reader)
            self._kept[race_id] = _Read(version, race, time.time())
            return race

    def fragment(self, race: Race, key: Hashable, render: Callable[[], str]) -> tuple[str, str]:
        """The live part for ``race`` as read, and its digest: rendered once for every stream
        whose viewer sees the same (``key``: the language, the view, the viewer's role, the
        moment's statuses), so one move costs a render per kind of viewer, not per racer
        (bench/race.py; the racer's own row is marked by the page, not the fragment)."""
        kept = self._kept.get(race.id)
        if kept is None or kept.race is not race:
            html = render()
            return html, digest(html)
        found = kept.fragments.get(key)
        if found is None:
            html = render()
            found = kept.fragments[key] = (html, digest(html))
        return found

    def forget(self, race_id: str) -> None:
        if self.signals.listeners_of(race_id) == 0:
            self._kept.pop(race_id, None)
            self._locks.pop(race_id, None)


def next_change(race: Race, now: float) -> float:
    """Seconds until the fragment changes by itself: the countdown's next second, the deal,
    the time limit, a racer whose page is away becoming gone; else the next presence mark."""
    status = race.status(now)
    wait = SEEN_EVERY_S
    if status is RaceStatus.COUNTDOWN and race.starts is not None:
        left = race.starts - now
        wait = min(wait, left - math.floor(left) or 1.0)
    elif status is RaceStatus.RUNNING:
        finish = race.finish_at(now)
        if finish is not None:
            wait = min(wait, max(finish - now, 0.05))
        for racer in race.racers:
            if racer.status(now) is RacerStatus.PLAYING and racer.seen is not None:
                wait = min(wait, racer.seen + GONE_AFTER_S - now + 0.05)
    return max(wait, 0.05)


def digest(html: str) -> str:
    return hashlib.blake2s(html.encode(), digest_size=9).hexdigest()


async def mark_seen(
    store: GameStore, signals: LocalSignals, race: Race, player: str, now: float, *, news: bool = False
) -> None:
    """The racer's page is connected (or has just closed: it was, until now). ``news``: the
    stream opened or closed, which the others should see (back, or soon gone): a signal."""
    racer = race.racer(player)
    if racer is None:
        return
    await to_thread.run_sync(lambda: store.see_racer(race.id, player, now, back=news))
    if news:
        await signals.publish(race.id)


_CLOSING: set[asyncio.Task[None]] = set()


def mark_closed(store: GameStore, signals: LocalSignals, race: Race, player: str) -> None:
    """A racer's stream has closed: keep when (they are gone :data:`GONE_AFTER_S` later unless
    back), in a task of its own, as the stream's own task is ending."""
    if race.racer(player) is None:
        return

    async def mark() -> None:
        try:
            await to_thread.run_sync(lambda: store.see_racer(race.id, player, time.time()))
            await signals.publish(race.id)
        except Exception:
            log.exception("could not keep when a racer's page closed")

    task = asyncio.get_running_loop().create_task(mark())
    _CLOSING.add(task)
    task.add_done_callback(_CLOSING.discard)
