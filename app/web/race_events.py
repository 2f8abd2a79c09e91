"""The race stream's plumbing, lean enough for 10,000 streams on one worker (issue 40).

* :class:`EventStream`: a ``text/event-stream`` response that is one coroutine a stream: it
  sends the bytes an async generator yields (pre-encoded, shared between the streams that
  see the same), and a small task waits for the client to go (``http.disconnect``) and wakes
  the stream. FastAPI's ``EventSourceResponse`` took five tasks, two memory streams and a
  ``fail_after`` a stream, 80 KiB of the server's memory and most of a spectator's update's
  CPU (docs/performance.md).
* :func:`event_bytes`: the wire format of one event (``data:`` lines, its ``id:``), made once
  per read of the race for all the streams it serves (:meth:`RaceReads.fragment`), and kept
  only as that: not as the rendered string too (a racer's stream, 0.8 KiB less).
* :class:`Presence`: the racers whose stream is open on this server, marked seen in one write
  every :data:`SEEN_EVERY_S` for them all, instead of one write a stream (at 10,000 streams,
  667 writes a second that fell behind, and every racer counted as gone).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator
from typing import Final

from anyio import to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from app.i18n import use_locale
from app.store import GameStore
from app.store.base import StoreUnavailable
from app.web.race_signals import Listener

log = logging.getLogger("tripeaks.races")

KEEP_ALIVE: Final = b": ping\n\n"
"""A comment: what keeps a proxy from closing a quiet stream (nginx: 60 s by default)."""
HEADERS: Final = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),  # nginx: not buffered
]


def event_bytes(data: str, event_id: str | None = None) -> bytes:
    """One server-sent event: every line of ``data`` a ``data:`` line, then its ``id:``."""
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    body = "".join(f"data: {line}\n" for line in lines)
    if event_id is not None:
        body += f"id: {event_id}\n"
    return (body + "\n").encode()


def with_news(event: bytes, news: str) -> bytes:
    """``event`` (:func:`event_bytes`, with an id) with ``news``'s ``data:`` lines after its
    own: the live part is kept once, as its event, and the news put in when there is any."""
    cut = event.rindex(b"id: ")
    return event[:cut] + event_bytes(news)[:-1] + event[cut:]


def comment_bytes(comment: str, retry_ms: int | None = None) -> bytes:
    said = f": {comment}\n" + (f"retry: {retry_ms}\n" if retry_ms is not None else "")
    return (said + "\n").encode()


class EventStream:
    """Sends what ``chunks`` yields, each as it comes, until the generator ends or the client
    goes (then the generator is closed: its ``finally`` gives back what the stream held).

    :meth:`start` sends the head and the first event through the middlewares (their headers,
    the player's cookie, the log line); :meth:`run` the rest, from :class:`StreamsFront` once
    the middlewares have returned (else from the route itself)."""

    __slots__ = ("_chunks", "_listener")

    def __init__(self, chunks: AsyncGenerator[bytes, None], listener: Listener) -> None:
        self._chunks = chunks
        self._listener = listener

    async def start(self, send: Send) -> None:
        """The head and the first event (the generator runs to its first ``yield``: from then
        on, closing it runs its ``finally``)."""
        first = await self._chunks.__anext__()
        await send({"type": "http.response.start", "status": 200, "headers": list(HEADERS)})
        await send({"type": "http.response.body", "body": first, "more_body": True})

    async def run(self, receive: Receive, send: Send) -> None:
        watcher = asyncio.get_running_loop().create_task(self._until_gone(receive))
        try:
            async for chunk in self._chunks:
                if self._listener.ended:
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if not self._listener.ended:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            await self._chunks.aclose()

    async def close(self) -> None:
        await self._chunks.aclose()

    async def _until_gone(self, receive: Receive) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        self._listener.ended = True
        self._listener.wake()


STREAM: Final = "tripeaks.stream"
"""In ``scope["state"]``: a stream whose head was sent, for :class:`StreamsFront` to run."""
FRONT: Final = "tripeaks.streams_front"


class StreamsFront:
    """The outermost middleware: a race stream's head goes through every middleware as any
    answer does (the player, the language, the security headers, the cookie, the log line), and
    then its body runs from here, once they have all returned: a stream held for an hour holds
    three coroutines, not the twenty of the middlewares and the router around it (and their
    ``send`` wrappers, which only touch the head). The language is set again around it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state[FRONT] = True
        try:
            await self.app(scope, receive, send)
        except BaseException:
            stream = state.pop(STREAM, None)
            if stream is not None:
                await stream.close()
            raise
        stream = state.pop(STREAM, None)
        if stream is None:
            return
        for key in [key for key in scope if key.startswith("fastapi_") and key.endswith("astack")]:
            del scope[key]  # FastAPI's exit stacks, closed: not kept for the stream's life
        if scope["method"] == "HEAD":
            await stream.close()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        with use_locale(state["locale"]):
            await stream.run(receive, send)


async def serve_stream(stream: EventStream, scope: Scope, receive: Receive, send: Send) -> None:
    """From a route: the head now; the rest from :class:`StreamsFront` (else here)."""
    await stream.start(send)
    state = scope.setdefault("state", {})
    if state.get(FRONT):
        state[STREAM] = stream
    else:
        await stream.run(receive, send)


class Presence:
    """The racers whose stream is open on this server, by race: :meth:`run` marks them all seen
    every ``every`` seconds in one write (:meth:`GameStore.see_racers`). A stream's opening and
    closing are still marked at once, by the stream (they are news to the other racers)."""

    def __init__(self, store: GameStore, every: float) -> None:
        self.store = store
        self.every = every
        self._open: dict[str, dict[str, int]] = {}
        self.writes = 0

    def here(self, race_id: str, player: str) -> None:
        players = self._open.setdefault(race_id, {})
        players[player] = players.get(player, 0) + 1

    def gone(self, race_id: str, player: str) -> None:
        players = self._open.get(race_id)
        if players is None or player not in players:
            return
        players[player] -= 1
        if not players[player]:
            del players[player]
            if not players:
                del self._open[race_id]

    def connected(self) -> dict[str, list[str]]:
        return {race_id: list(players) for race_id, players in self._open.items()}

    async def mark(self) -> None:
        """One write: every racer connected here is seen now."""
        seen = self.connected()
        if seen:
            now = time.time()
            await to_thread.run_sync(lambda: self.store.see_racers(seen, now))
            self.writes += 1

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.mark()
            except StoreUnavailable as error:
                log.warning("racers' presence not marked, the store is unavailable: %s", error)
            except Exception:
                log.exception("racers' presence not marked")
