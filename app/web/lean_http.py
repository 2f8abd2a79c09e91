"""uvicorn's httptools protocol, lighter by 2 KiB a connection: what ``tripeaks serve`` runs.

uvicorn keeps three ``collections.deque`` a connection (its pipeline of requests, and the
waiters of two ``asyncio.Event``: a request's messages, the socket's room to write), and a
deque costs 760 bytes even empty: a held race stream cost the server 21.6 KiB with them, 19.0
without (bench/streams.py, docs/performance.md, issue 40: the target is 20). Here each is a
list (56 bytes empty): the same calls, the same order. Nothing else of uvicorn changes;
``tests/web/test_lean_http.py`` fails if a uvicorn release moves what this replaces (uvicorn is
pinned in constraints.txt).
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class Waits:
    """An ``asyncio.Event`` as uvicorn uses it (``set``, ``clear``, ``is_set``, ``wait``), its
    waiters in a list: a connection has one waiter at most."""

    __slots__ = ("_set", "_waiters")

    def __init__(self, is_set: bool = False) -> None:
        self._set = is_set
        self._waiters: list[asyncio.Future[Literal[True]]] = []

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        if not self._set:
            self._set = True
            for waiter in self._waiters:
                if not waiter.done():
                    waiter.set_result(True)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> Literal[True]:
        if self._set:
            return True
        waiter: asyncio.Future[Literal[True]] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            return await waiter
        finally:
            self._waiters.remove(waiter)


class Pipeline(list[Any]):
    """uvicorn's queue of pipelined requests (``appendleft`` and ``pop``), as a list."""

    __slots__ = ()

    def appendleft(self, item: Any) -> None:
        self.insert(0, item)


class LeanHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` with :class:`Pipeline` and :class:`Waits` for its deques."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pipeline = Pipeline()  # type: ignore[assignment]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.flow._is_writable_event = Waits(self.flow._is_writable_event.is_set())  # type: ignore[assignment]

    def on_headers_complete(self) -> None:
        before = self.cycle
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None and cycle is not before:  # a request's cycle, just made: nothing waits on it yet
            cycle.message_event = Waits(cycle.message_event.is_set())  # type: ignore[assignment]


SERVED_WITH = f"{__name__}:{LeanHttpToolsProtocol.__name__}"
"""uvicorn's ``http`` option (``--http``) for this protocol: ``tripeaks serve``, the tests' live
servers and the benches all give it."""
