"""Games in a SQL database: SQLite (the default) or PostgreSQL, behind the one :class:`GameStore`.

This module owns what each store method does, as a read or as a write job: the steps of a
move, a deal, a name, a cleanup, and the order its rows are locked in (player → game →
deal, so writers never deadlock). It hands every write to its backend's one write path
and every read to its reads:

* SQLite: :class:`app.store.database.sqlite.SqliteDatabase` (a write lock, no sync in the commit, a
  sync thread that covers the commits made before each sync);
* PostgreSQL: :class:`app.store.database.postgres.PostgresDatabase` (a transaction per write, on disk
  when it commits).

The statements are :mod:`app.store.database.queries`, results and records :mod:`app.store.database.records`,
the schema and its migrations :mod:`app.store.database.schema`; docs/store.md tells the whole story.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

from app.engine import Game, GameCode, Status
from app.store.answers import ANSWER_LIFETIME_S
from app.store.attempts import LEADERBOARD_SIZE, Attempt, AttemptRow, AttemptUnfinished, Leaderboard, new_row
from app.store.base import (
    DEFAULT_MAX_GAMES_PER_PLAYER,
    DealRecord,
    GameResult,
    GameStore,
    PlayerStats,
    StoredGame,
    StoreUnavailable,
    VersionConflict,
    clean_display_name,
    new_game_id,
    owns,
)
from app.store.database import daily_sql, records
from app.store.database import queries as q
from app.store.database.answers_sql import SqlAnswers
from app.store.database.identity_sql import SqlIdentities
from app.store.database.migrations import is_current, migrate
from app.store.database.postgres import PostgresDatabase, unavailable
from app.store.database.queries import Db, run
from app.store.database.race_sql import SqlRaces
from app.store.database.sqlite import BUSY_TIMEOUT_S, SYNCHRONOUS, SqliteDatabase, prepare
from app.store.database.tables_sql import SqlTables
from app.store.orders import DayOrders
from app.store.paces import Mark
from app.store.races import AttemptUnderway

T = TypeVar("T")


def database_url(url: str) -> URL:
    """The SQLAlchemy URL for a ``TRIPEAKS_DATABASE_URL``; PostgreSQL always through psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            url = "postgresql+psycopg://" + url[len(prefix) :]
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.get_driver_name() not in ("pysqlite", ""):
            raise ValueError(f"unsupported SQLite driver in {url!r}: use sqlite:///path")
    elif parsed.get_backend_name() == "postgresql":
        if parsed.get_driver_name() != "psycopg":
            raise ValueError(f"unsupported PostgreSQL driver in {url!r}: use postgresql+psycopg://")
    else:
        raise ValueError(f"unsupported database URL {url!r}: use sqlite:///path or postgresql://")
    return parsed


class SqlStore(SqlRaces, SqlTables, SqlIdentities, SqlAnswers, GameStore):
    """The store on SQLite or PostgreSQL. Thread-safe; several processes may share one database."""

    def __init__(
        self,
        url: str,
        *,
        clock: Callable[[], float] = time.time,
        max_games_per_player: int = DEFAULT_MAX_GAMES_PER_PLAYER,
    ) -> None:
        self.max_games_per_player = max_games_per_player
        self._clock = clock
        self.url = database_url(url)
        self.dialect = self.url.get_backend_name()
        self.local_reads = self.dialect == "sqlite"
        self._db: SqliteDatabase | PostgresDatabase
        if self.dialect == "sqlite":
            synchronous = str(self.url.query.get("synchronous", "FULL")).upper()
            if synchronous not in SYNCHRONOUS:
                raise ValueError(f"synchronous= is for SQLite, one of {', '.join(SYNCHRONOUS)}")
            self.url = self.url.difference_update_query(["synchronous"])
            path = self.url.database
            if path in (None, "", ":memory:") or str(path).startswith("file:"):
                raise ValueError("an in-memory SQLite database is not shared: use memory:// instead")
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            self._engine = _sqlite_engine(self.url, synchronous)
        else:
            if "synchronous" in self.url.query:
                raise ValueError(f"synchronous= is for SQLite, one of {', '.join(SYNCHRONOUS)}")
            database = PostgresDatabase(self.url)
            self._engine = database.engine
        try:
            # A database already at this schema is opened without a write: one that is
            # read-only just now still serves its games (writes then answer "try again").
            with self._engine.connect() as conn:
                current = is_current(conn)
            if not current:
                with self._engine.execution_options(tripeaks_write=True).begin() as conn:
                    migrate(conn, self.dialect, clock())
        except SQLAlchemyError as error:
            self._engine.dispose()
            if unavailable(error):
                raise StoreUnavailable(f"cannot open the database: {error}") from error
            raise
        self._orders = DayOrders(
            lambda day, over: self._read(lambda db: daily_sql.order(db, day, over)),
            lambda day, over: self._read(lambda db: daily_sql.board(db, day, over)),
        )
        if self.dialect == "sqlite":
            self._db = SqliteDatabase(Path(str(self.url.database)).expanduser(), synchronous)
        else:
            self._db = database

    def close(self) -> None:
        self._db.close()
        self._engine.dispose()

    def _read(self, query: Callable[[Db], T]) -> T:
        return self._db.read(query)

    def _write(self, job: Callable[[Db], T]) -> T:
        try:
            done = self._db.write(job)
        except StoreUnavailable as error:
            self.write_failure = str(error) or type(error).__name__
            raise
        self.write_failure = None
        return done

    # -- games ------------------------------------------------------------------------------

    def create(self, game: Game, owner: str | None, *, player: str | None = None) -> StoredGame:
        game_id = new_game_id()
        values = q.columns(game)
        who = owner or player
        dealt = self.dealt_day(game.code) if who is not None else None

        def job(db: Db) -> None:
            now = self._clock()
            if who is not None and dealt is not None:
                self._deal_day(db, dealt, who, game_id, game, now)
            row: dict[str, Any] = {"b_id": game_id, "b_owner": owner, "b_code": game.code_text()}
            row.update(values, b_version=1, b_created=now, b_updated=now)
            run(db, q.NEW_GAME, row)
            if owner is not None:
                self._make_current(db, owner, game_id, now)
                self._bound(db, owner, game_id, now)

        self._write(job)
        return StoredGame(game_id, owner, game.copy(), 1)

    def _deal_day(
        self, db: Db, dealt: tuple[dt.date, bool] | None, player: str, game_id: str, game: Game, now: float
    ) -> None:
        """A game of a day's deal being dealt (in its transaction): the player's game of that
        day if they have none; refused while their ranked attempt at it is under way."""
        if dealt is not None:
            day, late = dealt
            daily_sql.deal(db, new_row(day, player, game_id, game, late=late, now=now))

    def _seat_day(self, db: Db, player: str, game_id: str, game: Game, now: float) -> None:
        """A racer's game being dealt (:meth:`SqlRaces._seat`): as :meth:`_deal_day`. The day
        is told inside the transaction: quick, as the app finds each day's deal at its start."""
        try:
            self._deal_day(db, self.dealt_day(game.code), player, game_id, game, now)
        except AttemptUnfinished as refused:
            raise AttemptUnderway(refused.day, refused.game_id) from None

    def _bound(self, db: Db, owner: str, keep: str, now: float) -> None:
        """Remove the owner's oldest games beyond the bound (not won first), results recorded.

        Runs in the create's transaction, after ``_make_current`` locked the player's row:
        two creates by one player take turns here.
        """
        if self.max_games_per_player <= 0:
            return
        (count,) = run(db, q.COUNT_OWN_GAMES, {"b_owner": owner}).fetchone()
        excess = count - self.max_games_per_player
        if excess <= 0:
            return
        params = {"b_owner": owner, "b_keep": keep, "b_limit": excess}
        for (game_id,) in run(db, q.OLDEST_GAMES, params).fetchall():
            records.record(db, game_id, None, now)
            run(db, q.DELETE_GAME, {"b_id": game_id})

    def get(self, game_id: str) -> StoredGame | None:
        row = self._read(lambda db: run(db, q.GET, {"b_id": game_id}).fetchone())
        return q.stored_of(row) if row is not None else None

    def _save_step(
        self,
        db: Db,
        game_id: str,
        version: int,
        game: Game,
        changed: list[tuple[AttemptRow, AttemptRow] | None],
    ) -> None:
        """The one way a game's step is written, in one transaction: save the game as the
        version after ``version`` (:class:`VersionConflict` if it is no longer that one), then
        the daily's progress (an attempt's row follows its game), then the result when the game
        has just ended."""
        now = self._clock()
        values = q.columns(game)
        values.update(b_id=game_id, b_version=version, b_new_version=version + 1, **q.touch(now))
        if run(db, q.SAVE, values).rowcount != 1:
            raise VersionConflict(game_id)
        changed.append(daily_sql.progress(db, game_id, game, now))
        if game.status is not Status.PLAYING:
            records.record(db, game_id, game, now)

    def save(self, stored: StoredGame, game: Game) -> StoredGame:
        def job(db: Db) -> None:
            self._save_step(db, stored.id, stored.version, game, changed)

        changed: list[tuple[AttemptRow, AttemptRow] | None] = []
        self._write(job)
        self._apply(changed)
        return StoredGame(stored.id, stored.owner, game.copy(), stored.version + 1)

    def update(
        self, game_id: str, change: Callable[[Game], T], *, owned_by: str | None = None
    ) -> tuple[StoredGame, T] | None:
        """Read, change and save the game in one transaction, its row locked: no conflicts."""
        changed: list[tuple[AttemptRow, AttemptRow] | None] = []
        done = self._write(self._update_job(game_id, change, owned_by, changed))
        self._apply(changed)
        return done

    async def aupdate(
        self, game_id: str, change: Callable[[Game], T], *, owned_by: str | None = None
    ) -> tuple[StoredGame, T] | None:
        """:meth:`update` through the backend's write path for coroutines: on SQLite made on
        the event loop, which never waits for a lock or the disk; on PostgreSQL in a thread."""
        changed: list[tuple[AttemptRow, AttemptRow] | None] = []
        try:
            done = await self._db.awrite(self._update_job(game_id, change, owned_by, changed))
        except StoreUnavailable as error:
            self.write_failure = str(error) or type(error).__name__
            raise
        self.write_failure = None
        self._apply(changed)
        return done

    def _apply(self, changed: list[tuple[AttemptRow, AttemptRow] | None]) -> None:
        """A committed change of a daily attempt, into this process's orders of its day."""
        if changed and changed[-1] is not None:
            self._orders.apply(*changed[-1])

    def _update_job(
        self,
        game_id: str,
        change: Callable[[Game], T],
        owned_by: str | None,
        changed: list[tuple[AttemptRow, AttemptRow] | None],
    ) -> Callable[[Db], tuple[StoredGame, T] | None]:
        def job(db: Db) -> tuple[StoredGame, T] | None:
            row = run(db, q.GET_FOR_UPDATE, {"b_id": game_id}).fetchone()
            if row is None:
                return None
            stored = q.stored_of(row)
            if not owns(stored, owned_by):
                return None
            game = stored.game  # decoded just now: changed in place
            value = change(game)  # may raise (a refused move): nothing written
            self._save_step(db, game_id, stored.version, game, changed)  # the row is locked: no conflict
            return StoredGame(game_id, stored.owner, game, stored.version + 1), value

        return job

    def current(self, owner: str) -> StoredGame | None:
        row = self._read(lambda db: run(db, q.CURRENT, {"b_owner": owner}).fetchone())
        return q.stored_of(row) if row is not None else None

    def find(self, owner: str, code: GameCode) -> StoredGame | None:
        params = {"b_owner": owner, "b_code": code.text()}
        row = self._read(lambda db: run(db, q.FIND, params).fetchone())
        return q.stored_of(row) if row is not None else None

    def set_current(self, owner: str, game_id: str) -> None:
        params = {"b_owner": owner, "b_game": game_id}
        if self._read(lambda db: run(db, q.IS_CURRENT, params).fetchone()) is not None:
            return  # the common case (a page view of the current game) writes nothing

        def job(db: Db) -> None:
            found = run(db, q.GAME_OWNER, {"b_id": game_id}).fetchone()
            if found is not None and found[0] == owner:
                self._make_current(db, owner, game_id, self._clock())

        self._write(job)

    def _make_current(self, db: Db, owner: str, game_id: str, now: float) -> None:
        """Point the player at ``game_id``; the game they leave gets its result recorded."""
        player = {"b_id": owner, "b_created": now, "b_updated": now}
        while True:  # (cleanup may delete an idle player's row between the two statements)
            run(db, q.NEW_PLAYER, player)
            found = run(db, q.PLAYER_TO_CHANGE, {"b_id": owner}).fetchone()
            if found is not None:
                break
        (previous,) = found
        run(db, q.MAKE_CURRENT, {"b_id": owner, "b_game": game_id, "b_updated": now})
        if previous is not None and previous != game_id:
            records.record(db, previous, None, now)

    # -- results, records, players ----------------------------------------------------------

    def record_result(self, game_id: str) -> GameResult | None:
        return self._write(lambda db: records.record(db, game_id, None, self._clock()))

    def result(self, game_id: str) -> GameResult | None:
        return self._read(lambda db: records.result(db, game_id))

    def recent_results(self, player: str, limit: int) -> list[GameResult]:
        return self._read(lambda db: records.recent_results(db, player, limit))

    def deal_record(self, code: GameCode) -> DealRecord | None:
        return self._read(lambda db: records.deal_record(db, code))

    def player_stats(self, player: str) -> list[PlayerStats]:
        return self._read(lambda db: records.player_stats(db, player))

    def display_name(self, player: str) -> str | None:
        row = self._read(lambda db: run(db, q.DISPLAY_NAME, {"b_id": player}).fetchone())
        return row[0] if row is not None else None

    def set_display_name(self, player: str, name: str | None) -> str | None:
        cleaned = clean_display_name(name) if name is not None and name.strip() else None

        def job(db: Db) -> None:
            now = self._clock()
            run(db, q.NEW_PLAYER, {"b_id": player, "b_created": now, "b_updated": now})
            run(db, q.SET_DISPLAY_NAME, {"b_id": player, "b_name": cleaned, "b_updated": now})

        self._write(job)
        self._orders.renamed(player)
        return cleaned

    # -- the daily challenge ----------------------------------------------------------------

    def now(self) -> float:
        return self._clock()

    def begin_attempt(self, day: dt.date, player: str, stored: StoredGame, *, late: bool) -> bool:
        def job(db: Db) -> bool:
            row = new_row(day, player, stored.id, stored.game, late=late, now=self._clock())
            return daily_sql.begin(db, row)

        return self._write(job)

    def end_attempt(self, day: dt.date, player: str) -> bool:
        changed = self._write(lambda db: daily_sql.end(db, day, player, self._clock()))
        self._apply([changed])
        return changed is not None

    def attempt(self, day: dt.date, player: str) -> Attempt | None:
        over = self.day_over(day)
        return self._read(lambda db: daily_sql.attempt(db, day, player, over, self._orders))

    def leaderboard(self, day: dt.date, limit: int = LEADERBOARD_SIZE) -> Leaderboard:
        over = self.day_over(day)
        return daily_sql.leaderboard(day, over, self._orders, limit)

    def player_days(self, player: str) -> list[Attempt]:
        return self._read(lambda db: daily_sql.player_days(db, player))

    def pace(self, game_id: str) -> list[Mark]:
        return self._read(lambda db: daily_sql.pace(db, game_id))

    # -- cleanup ----------------------------------------------------------------------------

    def cleanup_idle(self, older_than: dt.timedelta) -> int:
        self.forget_answers(self._clock() - ANSWER_LIFETIME_S)
        cutoff = {"b_cutoff": self._clock() - older_than.total_seconds()}
        removed = 0
        while True:
            ids = [row[0] for row in self._read(lambda db: run(db, q.IDLE_GAMES, cutoff).fetchall())]
            if not ids:
                break

            def remove(db: Db, ids: list[str] = ids) -> int:
                count = 0
                for game_id in ids:
                    # Lock the game and check it is still idle: its player may have come back.
                    if run(db, q.STILL_IDLE, {"b_id": game_id, **cutoff}).fetchone() is None:
                        continue
                    records.record(db, game_id, None, self._clock())
                    count += run(db, q.DELETE_GAME, {"b_id": game_id}).rowcount
                return count

            removed += self._write(remove)
            if len(ids) < q.CLEANUP_BATCH:
                break
        self._write(lambda db: run(db, q.FORGET_IDLE_PLAYERS, cutoff))
        return removed

    def count_games(self) -> int:
        return int(self._read(lambda db: run(db, q.COUNT_GAMES).fetchone()[0]))


def _sqlite_engine(url: URL, synchronous: str) -> Engine:
    """A SQLAlchemy engine on the SQLite file, for the schema's migrations (and tests): no pool.
    A write transaction (``tripeaks_write``) takes the write lock at ``BEGIN IMMEDIATE``;
    other statements run without ``BEGIN``, each on its own."""
    engine = create_engine(url, poolclass=NullPool, connect_args={"timeout": BUSY_TIMEOUT_S})
    commit_synchronous = "NORMAL" if synchronous in ("FULL", "EXTRA") else synchronous

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        prepare(dbapi_connection, BUSY_TIMEOUT_S, commit_synchronous)

    @event.listens_for(engine, "begin")
    def on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get("tripeaks_write", False):
            conn.connection.driver_connection.execute("BEGIN IMMEDIATE")  # type: ignore[union-attr]

    return engine
