"""The race's fan-out: a small "this race changed" signal, from the server that saw a move to
every server with a racer's stream open; each server then renders for its own streams.

* SQLite or memory: one server, so the signal stays in this process (:class:`LocalSignals`).
* PostgreSQL: ``NOTIFY tripeaks_races, '<server>:<race ids>'``; every server ``LISTEN``s on one
  connection of its own (:class:`PostgresSignals`, psycopg 3's async notifications).
* Redis, where ``TRIPEAKS_RACE_SIGNALS_URL`` names one: ``PUBLISH`` on ``tripeaks:races``
  (:class:`RedisSignals`, redis-py's async pub/sub).

A signal carries only race ids: nothing to render from, nothing secret. The local
listeners are woken at once by the server that publishes; the others when the signal
reaches them. A move does not wait for the network: a sender task sends what was published
since its last send as one message, ``<server>:<id>,<id>…``, each race named once however
often it changed meanwhile. When a listening connection is lost, every local listener is
woken once it is back (a signal may have been missed meanwhile), and they render afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Any, Final

from app.store.database.race_async import conninfo_of

log = logging.getLogger("tripeaks.races")

CHANNEL: Final = "tripeaks_races"
REDIS_CHANNEL: Final = "tripeaks:races"
RECONNECT_S: Final = (0.2, 0.5, 1.0, 2.0, 5.0)
PAYLOAD_MOST: Final = 4000


class Listener:
    """One stream's subscription to one race: woken (``changed``) at every signal. Lean (a
    flag, and a future only while its stream waits): 10,000 of them on one server."""

    __slots__ = ("_waiter", "changed", "ended", "race_id")

    def __init__(self, race_id: str) -> None:
        self.race_id = race_id
        self.changed = False
        self.ended = False
        """Its stream's client went away (:class:`app.web.race_events.EventStream`)."""
        self._waiter: asyncio.Future[None] | None = None

    def wake(self) -> None:
        self.changed = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, seconds: float) -> None:
        """Until woken (at once if woken since the last wait), or ``seconds`` passed; then
        ``changed`` is cleared: a signal while the stream reads and renders wakes the next wait."""
        if not self.changed:
            loop = asyncio.get_running_loop()
            self._waiter = waiter = loop.create_future()
            timer = loop.call_later(seconds, _settle, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                self._waiter = None
        self.changed = False


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class LocalSignals:
    """Signals within this process (one server on SQLite or memory)."""

    def __init__(self, poll_s: float | None = None) -> None:
        self.poll_s = poll_s
        """Several worker processes on one SQLite file and no Redis: a signal reaches only its own
        process, so streams also look at their race this often."""
        self._listeners: dict[str, set[Listener]] = {}
        self._versions: dict[str, int] = {}
        self.server = secrets.token_hex(6)
        self.delivered = 0
        """Listeners woken so far (for the bench's CPU per delivered update)."""

    async def start(self) -> None:
        """Connect to whatever carries the signals between servers (nothing here)."""

    async def close(self) -> None:
        """Let go of it."""

    def listen(self, race_id: str) -> Listener:
        listener = Listener(race_id)
        self._listeners.setdefault(race_id, set()).add(listener)
        return listener

    def stop_listening(self, listener: Listener) -> None:
        found = self._listeners.get(listener.race_id)
        if found is not None:
            found.discard(listener)
            if not found:
                del self._listeners[listener.race_id]
                self._versions.pop(listener.race_id, None)

    def listeners(self) -> int:
        return sum(len(found) for found in self._listeners.values())

    def listeners_of(self, race_id: str) -> int:
        return len(self._listeners.get(race_id, ()))

    def version(self, race_id: str) -> int:
        """How many signals of this race this server has had (while it had listeners)."""
        return self._versions.get(race_id, 0)

    async def publish(self, race_id: str) -> None:
        """The race changed: wake this server's listeners (the only ones here)."""
        self.wake(race_id)

    def wake(self, race_id: str) -> None:
        found = self._listeners.get(race_id)
        if not found:
            return
        self._versions[race_id] = self._versions.get(race_id, 0) + 1
        for listener in found:
            listener.wake()
        self.delivered += len(found)

    def wake_all(self) -> None:
        for race_id in list(self._listeners):
            self.wake(race_id)

    def received(self, payload: str) -> None:
        """A signal from the channel: ``<server>:<race id>,<race id>…``; our own were
        delivered already."""
        server, _, race_ids = payload.partition(":")
        if server != self.server:
            for race_id in race_ids.split(","):
                if race_id:
                    self.wake(race_id)


def payloads(server: str, race_ids: list[str], most: int = PAYLOAD_MOST) -> list[str]:
    """``<server>:<id>,<id>…`` messages naming every race in ``race_ids``, each at most
    ``most`` characters (PostgreSQL's NOTIFY takes under 8,000 bytes)."""
    found: list[str] = []
    chunk: list[str] = []
    size = len(server) + 1
    for race_id in race_ids:
        if chunk and size + len(race_id) + 1 > most:
            found.append(f"{server}:{','.join(chunk)}")
            chunk, size = [], len(server) + 1
        chunk.append(race_id)
        size += len(race_id) + 1
    if chunk:
        found.append(f"{server}:{','.join(chunk)}")
    return found


class _RemoteSignals(LocalSignals):
    """Signals through a server between the app's servers: a task listens, with reconnects."""

    def __init__(self) -> None:
        super().__init__()
        self._task: asyncio.Task[None] | None = None
        self._sender: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        self._outbox: dict[str, None] = {}
        """Races published since the last send, in order, each once."""
        self._outbox_filled = asyncio.Event()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen_forever(), name="tripeaks-race-signals")
        self._sender = asyncio.create_task(self._send_forever(), name="tripeaks-race-signals-sender")
        with contextlib.suppress(TimeoutError):  # not reachable now: the task keeps trying
            await asyncio.wait_for(self._connected.wait(), 5)

    async def close(self) -> None:
        for task in (self._task, self._sender):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self._send_outbox()  # what was published last, once more before letting go
        await self._close_sender()

    async def publish(self, race_id: str) -> None:
        """Wake this server's listeners now; the sender task tells the other servers."""
        self.wake(race_id)
        self._outbox[race_id] = None
        self._outbox_filled.set()

    async def _send_forever(self) -> None:
        while True:
            await self._outbox_filled.wait()
            try:
                await self._send_outbox()
            except Exception:  # one send lost (the others' streams still render at their next
                log.exception("race signals: a send failed")  # signal); the sender goes on

    async def _send_outbox(self) -> None:
        self._outbox_filled.clear()
        race_ids = list(self._outbox)
        self._outbox.clear()
        for payload in payloads(self.server, race_ids):
            await self._send(payload)

    async def _listen_forever(self) -> None:
        failures = 0
        while True:
            try:
                await self._listen(self._on_connected)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the connection was lost: reconnect, then wake all
                log.warning("race signals: listening stopped (%s); reconnecting", error)
            if self._connected.is_set():  # it was listening: an outage starts, the waits anew
                failures = 0
            self._connected.clear()
            await asyncio.sleep(RECONNECT_S[min(failures, len(RECONNECT_S) - 1)])
            failures += 1

    def _on_connected(self) -> None:
        if not self._connected.is_set():
            self._connected.set()
            self.wake_all()  # what was missed while not listening: render afresh

    async def _listen(self, connected: Callable[[], None]) -> None:
        raise NotImplementedError

    async def _send(self, payload: str) -> None:
        raise NotImplementedError

    async def _close_sender(self) -> None:
        raise NotImplementedError


class PostgresSignals(_RemoteSignals):
    """``LISTEN``/``NOTIFY`` on the game's own PostgreSQL database."""

    def __init__(self, conninfo: str) -> None:
        super().__init__()
        self._conninfo = conninfo
        self._notifier: Any = None

    async def _listen(self, connected: Callable[[], None]) -> None:
        import psycopg

        async with await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True) as conn:
            await conn.execute(f"LISTEN {CHANNEL}")
            connected()
            async for notice in conn.notifies():
                self.received(notice.payload)

    async def _send(self, payload: str) -> None:
        import psycopg

        for attempt in (1, 2):
            try:
                if self._notifier is None or self._notifier.closed:
                    self._notifier = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
                await self._notifier.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
                return
            except psycopg.Error as error:
                self._notifier = None
                if attempt == 2:
                    log.warning("race signals: cannot notify (%s)", error)

    async def _close_sender(self) -> None:
        if self._notifier is not None:
            await self._notifier.close()


class RedisSignals(_RemoteSignals):
    """Redis pub/sub (``TRIPEAKS_RACE_SIGNALS_URL=redis://host:6379/0``)."""

    def __init__(self, url: str) -> None:
        super().__init__()
        import redis.asyncio as redis

        self._redis = redis.from_url(url)

    async def _listen(self, connected: Callable[[], None]) -> None:
        pubsub = self._redis.pubsub()
        try:
            await pubsub.subscribe(REDIS_CHANNEL)
            connected()
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    data = message["data"]
                    self.received(data.decode() if isinstance(data, bytes) else str(data))
        finally:
            await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _send(self, payload: str) -> None:
        try:
            await self._redis.publish(REDIS_CHANNEL, payload)
        except Exception as error:  # the local listeners were woken; the others at reconnect
            log.warning("race signals: cannot publish (%s)", error)

    async def _close_sender(self) -> None:
        await self._redis.aclose()


POLL_S: Final = 0.5


def open_signals(database_url: str, signals_url: str | None, workers: int = 1) -> LocalSignals:
    """Redis where configured, else PostgreSQL's own when the games live there, else local (with
    several worker processes on SQLite, local and a look every :data:`POLL_S`)."""
    if signals_url:
        if not signals_url.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("TRIPEAKS_RACE_SIGNALS_URL: a redis:// URL")
        return RedisSignals(signals_url)
    conninfo = conninfo_of(database_url)
    if conninfo is not None:
        return PostgresSignals(conninfo)
    return LocalSignals(POLL_S if workers > 1 else None)
