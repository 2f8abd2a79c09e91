"""A race's live stream: ``GET /races/{id}/events`` (server-sent events; the route is
:mod:`app.web.routes.race_live`, its plumbing :mod:`app.web.race_events`), read by the race page
through htmx 4's ``hx-sse:connect``.

Every message is the race's live part rendered whole for the racer watching (their language,
their row marked): the strip of rivals' counts, the lobby or the countdown, the finish table.
Its id is a digest of that fragment, so a reconnect that sends ``Last-Event-ID`` gets nothing
until something changed, and any other reconnect gets it whole (a full re-render; nothing to
replay). A stream with nothing to say sends a keep-alive comment every 7.5 to 15 s;
``Cache-Control: no-cache`` and ``X-Accel-Buffering: no``.

One stream waits for its race's signal (:mod:`app.web.race_signals`), or for the next moment
its fragment changes by itself (the countdown's next second, the time limit, presence); one
read of the race per signal serves every stream of it on this server (:class:`RaceReads`), and
what they send is made once for all the streams that see the same (:meth:`RaceReads.shared`).

Bounds (:class:`StreamSlots`): streams per player, per client address (behind a trusted
proxy, the address it forwards, as the rate limits count) and per server (429, 429 and 503
beyond them: fresh cookies do not take one address past its bound; the server's bound at most
what the open-file limit allows, :func:`bound_by_open_files`); the racers connected to a server
are marked seen every :data:`SEEN_EVERY_S` in one write (:class:`app.web.race_events.Presence`);
a server shutting down ends every stream (:func:`close_streams_on_shutdown`), and the browsers
reconnect elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import random
import resource
import signal
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar, cast

from anyio import to_thread
from fastapi import HTTPException

from app.i18n import N_
from app.store import GameStore
from app.store.base import StoreUnavailable
from app.store.database.race_async import PostgresRaceReader
from app.store.races import GONE_AFTER_S, Race, Racer, RacerStatus, RaceStatus
from app.web.race_events import event_bytes
from app.web.race_signals import LocalSignals

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
T = TypeVar("T")
SEATS_KEPT: Final = 20_000
"""Racers' games whose race this server remembers (about 100 bytes each)."""


class StreamSlots:
    """Streams open on this server: at most ``per_player`` for one player (tabs, a reload's
    overlap), ``per_address`` from one client address (a player is a cookie, and cookies are
    free) and ``per_server`` in all. Each costs a task, a listener and the last fragment sent
    (a few kilobytes)."""

    def __init__(
        self, per_player: int, per_server: int, signals: LocalSignals, per_address: int = 40
    ) -> None:
        self.per_player = per_player
        self.per_server = per_server
        self.per_address = per_address
        self.open = 0
        self._players: dict[str, int] = {}
        self._addresses: dict[str, int] = {}
        self._signals = signals
        self.closing = asyncio.Event()

    def close(self) -> None:
        """The server is stopping: every stream ends (each is woken to see it), and the log
        says how many (a stream's own log line is written when it opens)."""
        if not self.closing.is_set():
            log.info("race streams: the server is stopping, %d streams end", self.open)
        self.closing.set()
        self._signals.wake_all()

    def take(self, player: str, address: str = "") -> Callable[[], None]:
        """A slot for one stream (429 or 503 when there is none), and how to give it back."""
        if self.closing.is_set():
            restarting = N_("The server is restarting: try again in a moment.")
            raise HTTPException(503, restarting, {"Retry-After": "2"})
        if self.open >= self.per_server:
            busy = N_("Too many live races on this server just now.")
            raise HTTPException(503, busy, {"Retry-After": "10"})
        if self._players.get(player, 0) >= self.per_player:
            raise HTTPException(429, N_("Too many race pages open: close one."), {"Retry-After": "10"})
        if self._addresses.get(address, 0) >= self.per_address:
            busy = N_("Too many live race pages from your network just now: close some.")
            raise HTTPException(429, busy, {"Retry-After": "10"})
        self.open += 1
        _count(self._players, player, 1)
        _count(self._addresses, address, 1)
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if given_back:
                return
            given_back = True
            self.open -= 1
            _count(self._players, player, -1)
            _count(self._addresses, address, -1)

        return give_back


def _count(counts: dict[str, int], key: str, change: int) -> None:
    left = counts.get(key, 0) + change
    if left:
        counts[key] = left
    else:
        del counts[key]


FILES_SPARE: Final = 256
"""Open files kept for what is not a stream: the database, the log, the pages' requests."""


def bound_by_open_files(wanted: int, limit: int | None = None) -> int:
    """The bound on streams, at most what the open-file limit allows (each stream is a
    socket): the soft limit is raised to the hard one first (``limit``: a given soft limit, for
    tests). Past the bound a stream gets a clear 503; past the limit, the server could not even
    accept a connection to say so."""
    if limit is None:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != hard:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if limit == resource.RLIM_INFINITY or wanted <= limit - FILES_SPARE:
        return wanted
    allowed = max(1, limit - FILES_SPARE)
    log.warning(
        "race streams: %d asked (TRIPEAKS_RACE_STREAMS_PER_SERVER), %d allowed by the open-file "
        "limit (%d): raise it (docs/deploy.md, \"A big server\")", wanted, allowed, limit,
    )  # fmt: skip
    return allowed


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
    fragments: dict[Hashable, Any] = field(default_factory=dict)
    """What the streams of this read sent, by what it depends on (see :meth:`RaceReads.shared`)."""
    moment: tuple[int, Any] | None = None
    """The moment's state (:meth:`RaceReads.moment`) and when (in 20ths of a second)."""


@dataclass(slots=True)
class _Told:
    """The race's rivals' news as last announced on this server (:meth:`RaceReads.news`)."""

    said: dict[str, tuple[RacerStatus, int]] = field(default_factory=dict)
    at: float = 0.0
    version: int = 0
    changed: tuple[tuple[Racer, RacerStatus], ...] = ()


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
    _told: dict[str, _Told] = field(default_factory=dict)

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

    def fragment(self, race: Race, key: Hashable, render: Callable[[], str]) -> tuple[bytes, str]:
        """The live part for ``race`` as read, as the event that sends it, and its digest (the
        event's id): rendered once for every stream whose viewer sees the same (``key``: the
        language, the view, the viewer's role, the moment's statuses), so one move costs a
        render per kind of viewer, not per racer (bench/race.py; the racer's own row is marked
        by the page, not the fragment). Only the event is kept, not the rendered string."""

        def make() -> tuple[bytes, str]:
            html = render()
            mark = digest(html)
            return event_bytes(html, mark), mark

        return self.shared(race, ("fragment", key), make)

    def shared(self, race: Race, key: Hashable, make: Callable[[], T]) -> T:
        """What ``make`` gives for ``race`` as read, made once for all the streams of the read
        (the live part, the event's bytes, the news: 2,000 spectators share one of each)."""
        kept = self._kept.get(race.id)
        if kept is None or kept.race is not race:
            return make()
        found = kept.fragments.get(key, _NONE)
        if found is _NONE:
            found = kept.fragments[key] = make()
        return cast(T, found)

    def moment(self, race: Race, now: float, make: Callable[[], T]) -> T:
        """What the race is at ``now`` (its status, the countdown, each racer's status), made
        once per read and 20th of a second for all its streams."""
        kept = self._kept.get(race.id)
        tick = int(now * 20)
        if kept is None or kept.race is not race:
            return make()
        if kept.moment is None or kept.moment[0] != tick:
            kept.moment = (tick, make())
        return cast(T, kept.moment[1])

    def news(self, race: Race, now: float) -> tuple[int, tuple[tuple[Racer, RacerStatus], ...]]:
        """The rivals' news on this server: which racers changed (won, blocked, gone, their
        cards left) since the last announcement, at most every :data:`ANNOUNCE_EVERY_S`, and
        its number. One announcement a race for all its streams; each says it in its own
        language, leaving out its own racer."""
        told = self._told.get(race.id)
        if told is None:
            told = self._told[race.id] = _Told()
        if now - told.at < ANNOUNCE_EVERY_S:
            return told.version, told.changed
        changed = []
        for racer in race.racers:
            status = racer.status(now)
            before = told.said.get(racer.player)
            if before == (status, racer.cards_left):
                continue
            told.said[racer.player] = (status, racer.cards_left)
            dealt = racer.cards_left == race.game_code.layout.count
            if before is None and status is RacerStatus.PLAYING and dealt:
                continue  # nothing to say yet
            changed.append((racer, status))
        if changed:
            told.version, told.at, told.changed = told.version + 1, now, tuple(changed)
        return told.version, told.changed

    def forget(self, race_id: str) -> None:
        if self.signals.listeners_of(race_id) == 0:
            self._kept.pop(race_id, None)
            self._locks.pop(race_id, None)
            self._told.pop(race_id, None)


_NONE: Final = object()


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


def idle_wait() -> float:
    """How long a stream with nothing due waits before it looks at its race again: between
    half of :data:`SEEN_EVERY_S` and all of it, at random. Streams opened in one burst (2,000 in
    a second or two) would otherwise all wake in the same instant every 15 s, each rendering its
    part on the event loop, and every move in that instant would wait behind them
    (bench/stream_bound.py, docs/performance.md)."""
    return SEEN_EVERY_S * random.uniform(0.5, 1.0)


def stream_lost(race_id: str, error: Exception) -> None:
    """A stream ended by the store being away (a database outage): it ends as any stream
    does, whole, and the browser reconnects after :data:`RETRY_MS`; a line in the log, no
    traceback (nothing is wrong with the code)."""
    log.warning("race %s: a stream ended, the store is unavailable: %s", race_id, error)


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
        except StoreUnavailable as error:
            log.warning("could not keep when a racer's page closed: %s", error)
        except Exception:
            log.exception("could not keep when a racer's page closed")

    task = asyncio.get_running_loop().create_task(mark())
    _CLOSING.add(task)
    task.add_done_callback(_CLOSING.discard)


async def read_race(store: GameStore, race_id: str, reader: PostgresRaceReader | None = None) -> Race | None:
    """The room now (through ``reader`` where there is one); a round seen finished for the
    first time is kept as finished."""
    if reader is not None:
        race = await reader.race(race_id)
    else:
        race = await store.aread(lambda: store.race(race_id))
    if race is None:
        return None
    now = time.time()
    finish = race.finish_at(now)
    if race.ended is None and finish is not None and race.status(now) is RaceStatus.FINISHED:
        await to_thread.run_sync(store.settle_race, race_id, finish)
    return race
