"""Race reads on PostgreSQL without a thread: psycopg 3's async connections, on the event loop.

Every move of a racer is checked against its race, and every signal of a race is read once
by each server with a stream of it (:class:`app.web.race_stream.RaceReads`). Through the
store, each such read is a worker thread's job: SQLAlchemy and the driver, in Python, beside
the event loop's own work. At 200 racers on one PostgreSQL server those jobs queued up: a
thread that does nothing took 240 ms to get to at the 90th percentile (bench/race.py). Here
the same two statements of :mod:`app.store.database.race_sql` run on a few connections of
the event loop's own, and the rows become a :class:`Race` as the store makes them.

Only reads: every change to a race stays a transaction of the store. A kept connection that
fails (the server restarted) is dropped with every other kept one, and the read is made again
on a new connection; a new connection that fails answers :class:`StoreUnavailable`.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final

from sqlalchemy.dialects import postgresql as pg_dialect

from app.store.base import StoreUnavailable
from app.store.database.race_sql import RACERS, ROOM, ROOM_OF_GAME, race_of_rows
from app.store.races import Race

CONNECTIONS: Final = 8
"""Connections a server keeps for these reads: each read holds one for its two or three round
trips, each of which waits for the event loop's next turn."""

_SQL: Final = {
    statement: str(statement.compile(dialect=pg_dialect.psycopg.dialect()))  # type: ignore[no-untyped-call]
    for statement in (ROOM, RACERS, ROOM_OF_GAME)
}


def conninfo_of(database_url: str) -> str | None:
    """The libpq URL of a PostgreSQL ``TRIPEAKS_DATABASE_URL`` (``None``: not PostgreSQL)."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if database_url.startswith(prefix):
            return "postgresql://" + database_url[len(prefix) :]
    return None


class PostgresRaceReader:
    """Reads of race rooms, each on one of at most :data:`CONNECTIONS` async connections."""

    def __init__(self, conninfo: str, connections: int = CONNECTIONS) -> None:
        self._conninfo = conninfo
        self._idle: list[Any] = []
        self._slots = asyncio.Semaphore(connections)

    async def race(self, race_id: str) -> Race | None:
        return await self._read(self._race, race_id)

    async def race_of_game(self, game_id: str) -> Race | None:
        """The race whose current round ``game_id`` is a racer's game of (as the store's)."""

        async def find(conn: Any, game_id: str) -> Race | None:
            seat = await _one(conn, ROOM_OF_GAME, {"b_game": game_id})
            if seat is None:
                return None
            race = await self._race(conn, seat[0])
            return race if race is not None and race.round == seat[1] else None

        return await self._read(find, game_id)

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.close()

    @staticmethod
    async def _race(conn: Any, race_id: str) -> Race | None:
        room = await _one(conn, ROOM, {"b_id": race_id})
        if room is None:
            return None
        found = await conn.execute(_SQL[RACERS], {"b_id": race_id, "b_round": room[3]})
        return race_of_rows(room, await found.fetchall())

    async def _read(self, query: Any, key: str) -> Race | None:
        import psycopg

        async with self._slots:
            conn = self._idle.pop() if self._idle else None
            for attempt in (1, 2):
                reused = conn is not None and not conn.closed
                try:
                    if not reused:
                        conn = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
                    race: Race | None = await query(conn, key)
                except BaseException as error:  # lost, or cancelled mid-read: not used again
                    await _drop(conn)
                    if not isinstance(error, psycopg.Error):
                        raise
                    if reused and attempt == 1:  # the server restarted since: so did the rest
                        await self.close()
                        conn = None
                        continue
                    raise StoreUnavailable(str(error)) from error
                self._idle.append(conn)
                return race
        raise AssertionError("unreachable")  # pragma: no cover


async def _drop(conn: Any) -> None:
    if conn is not None:
        with contextlib.suppress(BaseException):
            await conn.close()


async def _one(conn: Any, statement: Any, params: dict[str, Any]) -> Any:
    found = await conn.execute(_SQL[statement], params)
    return await found.fetchone()
