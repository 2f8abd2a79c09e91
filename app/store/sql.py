"""Games in a SQL database through SQLAlchemy 2 Core: SQLite (the default) or PostgreSQL.

``SqlStore("sqlite:///./data/tripeaks.db")`` or
``SqlStore("postgresql+psycopg://user@host/db")`` (``postgresql://`` and
``postgres://`` mean psycopg 3 too). The schema is created or migrated when the
store opens (see :mod:`app.store.schema` and ``docs/store.md``).

Durability: every write commits before the method returns, and a commit is on
disk when it returns (PostgreSQL: its default ``synchronous_commit=on``; SQLite: WAL,
as durable as ``synchronous=FULL``: the commit itself does not sync, and the log is
synced right after it, see :mod:`app.store.logsync`).

Concurrency: :meth:`save` is ``UPDATE … WHERE id = ? AND version = ?``, so of two
saves of one version exactly one wins and the other raises
:class:`VersionConflict`. On SQLite, a move (:meth:`SqlStore.aupdate`) is made on the
event loop, on a connection of the store's own that never waits for the write lock (the
coroutine sleeps and retries instead). The writes of threads are *group-committed*: the
writes that queue up while a batch is made and synced are made together in the next
transaction and synced once (a write that fails is made again on its own, so it does not
undo the others); the store's commit thread makes the moves that failed on the loop for
another reason than the lock, and says what went wrong. Every caller returns only after
the sync that covers its commit. Several processes on one SQLite file take turns
(``BEGIN IMMEDIATE`` and a busy timeout); for several machines, use PostgreSQL, where
row locks order the writers.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar, cast

from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    case,
    create_engine,
    delete,
    event,
    exists,
    func,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    DisconnectionError,
    IntegrityError,
    ProgrammingError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.engine import Game, GameCode, Rules, Status
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
    game_outcome,
    improves,
    line_text,
    new_game_id,
    owns,
    player_stats_of,
    run_and_time,
)
from app.store.deals import (
    DealRow,
    epoch_to_datetime,
    feats_from_text,
    feats_text,
    merge,
    to_record,
)
from app.store.logsync import LogSync
from app.store.schema import DEAL_FIELDS, deals, games, is_current, migrate, players, results

T = TypeVar("T")

Db = Connection | sqlite3.Connection
"""Where a write job runs: a SQLAlchemy connection, or on SQLite the event loop's own writer."""

SQLITE_BUSY_TIMEOUT_S: Final = 10.0
"""How long a SQLite writer waits for another process's write lock before giving up."""
SQLITE_SYNCHRONOUS: Final = ("FULL", "EXTRA", "NORMAL", "OFF")
SQLITE_READERS_KEPT: Final = 16
SQLITE_CHECKPOINT_EVERY_S: Final = 1.0
SQLITE_BACKSTOP_CHECKPOINT_PAGES: Final = 20_000
"""About 80 MB of log: reached only if the checkpoint thread falls far behind."""
SQLITE_RESTART_LOG_FRAMES: Final = 256
"""A log this long (about 1 MB) is started over by the checkpoint thread once it is copied."""

log = logging.getLogger("tripeaks.store")
_COMPACT_JSON: Final = json.JSONEncoder(separators=(",", ":"))
CLEANUP_BATCH: Final = 200
GAME_TOUCH_EVERY_S: Final = 600.0
"""A save moves a game's ``updated`` time only when it is older than this."""
GAMES_SEEN: Final = 4096
"""How many decoded games a store keeps by id and version, to skip replaying a game's line."""


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


def unavailable(error: BaseException) -> bool:
    """Whether a database error means "cannot reach or write the database now" (not a bug)."""
    if isinstance(error, (PoolTimeout, DisconnectionError)):
        return True
    if isinstance(error, sqlite3.Error):  # raised by the raw BEGIN IMMEDIATE
        return isinstance(error, (sqlite3.OperationalError, sqlite3.InternalError))
    return isinstance(error, DBAPIError) and not isinstance(
        error, (IntegrityError, ProgrammingError, DataError)
    )


SQLITE_READONLY: Final = 8
SQLITE_BUSY: Final = 5
SQLITE_LOOP_RETRY_FIRST_S: Final = 0.0002
SQLITE_LOOP_RETRY_MOST_S: Final = 0.02


def sqlite_read_only(error: BaseException) -> bool:
    """Whether SQLite refused a write because the database (file or folder) is read-only."""
    cause = error.orig if isinstance(error, DBAPIError) else error
    code = getattr(cause, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF == SQLITE_READONLY


class _Pending:
    """One write waiting for a group commit; ``future`` is set when a coroutine awaits it.

    ``done`` once its batch has been made and its commit is on disk (or failed).
    """

    __slots__ = ("done", "error", "future", "job", "value")

    def __init__(
        self, job: Callable[[Connection], Any], future: asyncio.Future[Any] | None = None
    ) -> None:
        self.job = job
        self.future = future
        self.done = False
        self.value: Any = None
        self.error: BaseException | None = None


def _settle(batch: Sequence[_Pending], error: BaseException | None = None) -> None:
    """Let the writers of a committed (or failed) batch go on: ``error`` when its sync failed."""
    by_loop: dict[asyncio.AbstractEventLoop, list[_Pending]] = {}
    for pending in batch:
        if error is not None and pending.error is None:
            pending.value, pending.error = None, error
        if pending.future is not None:
            by_loop.setdefault(pending.future.get_loop(), []).append(pending)
    for loop, waiting in by_loop.items():
        with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
            loop.call_soon_threadsafe(_resolve, waiting)


def _resolve(waiting: list[_Pending]) -> None:
    for pending in waiting:
        future = pending.future
        if future is None or future.done():  # the request was cancelled; its write stands
            continue
        if pending.error is not None:
            future.set_exception(pending.error)
        else:
            future.set_result(pending.value)


class _Raised:
    """An exception from a caller's function, carried out of a write job that wrote nothing."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


# The statements of the frequent requests, compiled once (see _execute): SQLAlchemy's building
# of a statement costs several times running it. (Dealing a game took 1.2 ms of CPU with
# them built anew each time.) Results and records: a game ends every few dozen moves.
_GAME_COLUMNS: Final = (
    "id", "owner", "code", "version", "created", "updated", "state", "status", "moves", "score",
    "cards_left",
)  # fmt: skip
_NEW_GAME = insert(games).values({name: bindparam("b_" + name) for name in _GAME_COLUMNS})
_STORED_COLUMNS: Final = (games.c.id, games.c.owner, games.c.state, games.c.version)
_CURRENT = (
    select(*_STORED_COLUMNS)
    .join(players, players.c.current_game_id == games.c.id)
    .where(players.c.id == bindparam("b_owner"))
)
_FIND = (
    select(*_STORED_COLUMNS)
    .where(games.c.owner == bindparam("b_owner"), games.c.code == bindparam("b_code"))
    .order_by(games.c.seq.desc())
    .limit(1)
)
_IS_CURRENT = select(players.c.id).where(
    players.c.id == bindparam("b_owner"), players.c.current_game_id == bindparam("b_game")
)
_GAME_OWNER = select(games.c.owner).where(games.c.id == bindparam("b_id"))
_COUNT_GAMES = select(func.count()).select_from(games).where(games.c.owner == bindparam("b_owner"))
_PLAYER_TO_CHANGE = (
    select(players.c.current_game_id).where(players.c.id == bindparam("b_id")).with_for_update()
)
_MAKE_CURRENT = (
    update(players)
    .where(players.c.id == bindparam("b_id"))
    .values(current_game_id=bindparam("b_game"), updated=bindparam("b_updated"))
)
_GET = select(*_STORED_COLUMNS).where(games.c.id == bindparam("b_id"))
_GET_FOR_UPDATE = _GET.with_for_update()
_SAVE = (
    update(games)
    .where(games.c.id == bindparam("b_id"), games.c.version == bindparam("b_version"))
    .values(
        version=bindparam("b_new_version"),
        state=bindparam("b_state"),
        status=bindparam("b_status"),
        moves=bindparam("b_moves"),
        score=bindparam("b_score"),
        cards_left=bindparam("b_cards_left"),
        # When it was last played, to within GAME_TOUCH_EVERY_S (idle cleanup counts in
        # days): most saves then leave the (updated) index alone, a page less to write.
        updated=case(
            (games.c.updated < bindparam("b_touch_before"), bindparam("b_updated")),
            else_=games.c.updated,
        ),
    )
)
_GAME_TO_RECORD = (
    select(games.c.seq, games.c.owner, games.c.state)
    .where(games.c.id == bindparam("b_id"))
    .with_for_update()
)
_RESULT = select(
    results.c.game_id,
    results.c.player,
    results.c.code,
    results.c.won,
    results.c.score,
    results.c.cards_left,
    results.c.moves,
    results.c.feats,
    results.c.at,
    results.c.longest_run,
    results.c.seconds,
    results.c.line,
).where(results.c.game_id == bindparam("b_id"))
_DEAL = select(*(deals.c[name] for name in DEAL_FIELDS)).where(deals.c.code == bindparam("b_code"))
_DEAL_TO_RECORD = _DEAL.with_for_update()
_HOLDER_NAMES = select(players.c.id, players.c.display_name).where(
    players.c.id.in_([bindparam("b_first"), bindparam("b_best"), bindparam("b_unfinished")])
)
_SAVE_DEAL = (
    update(deals)
    .where(deals.c.code == bindparam("b_code"))
    .values({name: bindparam("b_" + name) for name in DEAL_FIELDS})
)
_RESULT_FIELDS: Final = (
    "won", "score", "cards_left", "moves", "feats", "at", "longest_run", "seconds", "line",
)  # fmt: skip
_INSERT_RESULT = insert(results).values(
    {
        name: bindparam("b_" + name)
        for name in ("game_id", "game_seq", "player", "code", "rules", *_RESULT_FIELDS)
    }
)
_UPDATE_RESULT = (
    update(results)
    .where(results.c.game_id == bindparam("b_game_id"))
    .values({name: bindparam("b_" + name) for name in _RESULT_FIELDS})
)


class SqlStore(GameStore):
    """The store on SQLite or PostgreSQL. Thread-safe; several processes may share one database."""

    def __init__(
        self,
        url: str,
        *,
        clock: Callable[[], float] = time.time,
        max_games_per_player: int = DEFAULT_MAX_GAMES_PER_PLAYER,
    ) -> None:
        self.max_games_per_player = max_games_per_player
        self.url = database_url(url)
        self.synchronous = "FULL"
        if "synchronous" in self.url.query:  # sqlite:///path?synchronous=NORMAL (see docs/store.md)
            self.synchronous = str(self.url.query["synchronous"]).upper()
            if (
                self.synchronous not in SQLITE_SYNCHRONOUS
                or self.url.get_backend_name() != "sqlite"
            ):
                raise ValueError(
                    f"synchronous= is for SQLite, one of {', '.join(SQLITE_SYNCHRONOUS)}"
                )
            self.url = self.url.difference_update_query(["synchronous"])
        self._clock = clock
        self.dialect = self.url.get_backend_name()
        # Commits do not sync the log themselves: the store syncs it right after them (see
        # app/store/logsync.py), FULL's durability without holding the write lock, or the
        # event loop, across a sync.
        self._log: LogSync | None = None
        self._commit_synchronous = self.synchronous
        if self.dialect == "sqlite" and self.synchronous in ("FULL", "EXTRA"):
            self._commit_synchronous = "NORMAL"
        self._engine = self._make_engine()
        self._write_engine = self._engine.execution_options(tripeaks_write=True)
        self._read_engine = (
            self._engine.execution_options(isolation_level="AUTOCOMMIT")
            if self.dialect == "postgresql"
            else self._engine
        )
        self._new_player = self._insert_ignore(
            players, id=bindparam("b_id"), created=bindparam("b_created"), updated=bindparam("b_updated")
        )
        self._new_deal = self._insert_ignore(
            deals, code=bindparam("b_code"), wins=literal_column("0"), finished=literal_column("0")
        )
        self._games_seen: OrderedDict[str, StoredGame] = OrderedDict()
        self._games_seen_lock = threading.Lock()
        self._sqlite_sql: dict[Any, tuple[str, dict[str, Any]]] = {}
        self._queue: list[_Pending] = []
        self._queue_lock = threading.Lock()
        self._commit_lock = threading.Lock()
        self._writer: Connection | None = None
        self._loop_writer: sqlite3.Connection | None = None
        self._loop_writer_generation = -1
        self._loop_writer_lock = threading.Lock()
        self._readers: list[Connection] = []
        self._readers_lock = threading.Lock()
        self._readers_generation = 0
        self._closed = False
        try:
            # A database already at this schema is opened without a write: one that is
            # read-only just now still serves its games (writes then answer "try again").
            with self._engine.connect() as conn:
                current = is_current(conn)
            if not current:
                with self._write_engine.begin() as conn:
                    migrate(conn, self.dialect, clock())
        except (SQLAlchemyError, sqlite3.Error) as error:
            self._engine.dispose()
            if unavailable(error):
                raise StoreUnavailable(f"cannot open the database: {error}") from error
            raise
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        self._writes_waiting = threading.Event()
        self._committer: threading.Thread | None = None
        self.local_reads = self.dialect == "sqlite"
        if self.dialect == "sqlite":
            if self._commit_synchronous != self.synchronous:
                self._log = LogSync(self._sqlite_path(), on_error=self._sync_failed)
            self._checkpointer = threading.Thread(
                target=self._checkpoint_loop, name="tripeaks-sqlite-checkpoint", daemon=True
            )
            self._checkpointer.start()
            self._committer = threading.Thread(
                target=self._commit_loop, name="tripeaks-sqlite-commit", daemon=True
            )
            self._committer.start()

    def _sqlite_path(self) -> Path:
        return Path(str(self.url.database)).expanduser()

    def _sync_failed(self, error: OSError) -> StoreUnavailable:
        return StoreUnavailable(f"cannot sync the database's log to disk: {error}")

    def _checkpoint_loop(self) -> None:
        """Every second, off the request path: :meth:`_checkpoint`."""
        while not self._stop.wait(SQLITE_CHECKPOINT_EVERY_S):
            self._checkpoint()

    def _checkpoint(self) -> None:
        """Copy the write-ahead log into the database file, and start the log over when it has grown.

        A PASSIVE checkpoint never blocks readers or writers; what it cannot copy now is
        copied next time. But under steady writing it never quite catches up, and SQLite
        starts the log over from its beginning only after a checkpoint that copied all of it:
        the log would grow and grow (17 MB after 6 s of writing, once), and every commit would
        extend the file. So once the log is longer than ``SQLITE_RESTART_LOG_FRAMES``, this
        process's writers are held off for a moment (its commit lock, and the loop's writer,
        whose moves sleep and retry meanwhile: the loop itself never waits), the little that
        is left is copied, and a write here starts the log over. Starting over writes and syncs
        the new log's header: in this thread, not in a move's commit on the event loop. (Held
        off by SQLite's own lock instead, a waiting thread would sleep in SQLite's busy handler
        for up to 25 ms at a time.)
        """
        # A connection of its own each time, never one from the pool: one opened while
        # the file was read-only would stay read-only, and a writer might get it.
        try:
            with contextlib.closing(
                sqlite3.connect(self._sqlite_path(), timeout=1, isolation_level=None)
            ) as db:
                db.execute(f"PRAGMA synchronous={self._commit_synchronous}")
                _, frames, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if frames < SQLITE_RESTART_LOG_FRAMES:
                    return
                with self._commit_lock, self._loop_writer_lock:
                    busy, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if busy or copied < frames:  # another process writes, or a reader holds on
                        return
                    # Any write now starts the log over: this one rewrites the header's
                    # user_version with its own value, which changes nothing.
                    db.execute("BEGIN IMMEDIATE")
                    try:
                        (user_version,) = db.execute("PRAGMA user_version").fetchone()
                        db.execute(f"PRAGMA user_version={int(user_version)}")
                        db.execute("COMMIT")
                    except BaseException:
                        db.execute("ROLLBACK")
                        raise
        except sqlite3.Error as error:  # busy, read-only, disk full: try again later
            log.debug("checkpoint skipped: %s", error)

    # -- engine, transactions -------------------------------------------------------------

    def _make_engine(self) -> Engine:
        if self.dialect == "postgresql":
            return create_engine(
                self.url, pool_size=5, max_overflow=15, pool_timeout=15, pool_pre_ping=True
            )
        path = self.url.database
        if path in (None, "", ":memory:") or str(path).startswith("file:"):
            raise ValueError("an in-memory SQLite database is not shared: use memory:// instead")
        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            self.url,
            pool_size=8,
            max_overflow=56,
            pool_timeout=30,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S},
        )

        @event.listens_for(engine, "connect")
        def on_connect(dbapi_connection: Any, _record: Any) -> None:
            self._prepare_sqlite(dbapi_connection, SQLITE_BUSY_TIMEOUT_S)

        @event.listens_for(engine, "begin")
        def on_begin(conn: Connection) -> None:
            # A writer takes the write lock at BEGIN: it waits (busy timeout) instead of
            # failing later when a read transaction would have to become a write one.
            # Reads run without BEGIN: each SELECT is then its own read transaction.
            if conn.get_execution_options().get("tripeaks_write", False):
                conn.connection.driver_connection.execute("BEGIN IMMEDIATE")  # type: ignore[union-attr]

        return engine

    def _prepare_sqlite(self, connection: sqlite3.Connection, busy_timeout_s: float) -> None:
        """The settings of every connection to the SQLite file."""
        # Let SQLAlchemy (or the store's own BEGIN), not the sqlite3 module, say when
        # transactions begin.
        connection.isolation_level = None
        cursor = connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        cursor.execute(f"PRAGMA synchronous={self._commit_synchronous}")
        # Checkpoints run in a thread of their own (see _checkpoint_loop), not in the
        # commit that happens to cross SQLite's threshold: that commit would wait for the
        # database file's sync. A large threshold stays as a backstop.
        cursor.execute(f"PRAGMA wal_autocheckpoint={SQLITE_BACKSTOP_CHECKPOINT_PAGES}")
        # WAL is a property of the file, set once. Switching to it needs the database to
        # itself, and SQLite reports "locked" at once rather than wait: retry a while.
        deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_S
        while cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            try:
                cursor.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        cursor.close()

    def close(self) -> None:
        self._stop.set()
        self._writes_waiting.set()
        for thread in (self._checkpointer, self._committer):
            if thread is not None:
                thread.join(timeout=5)
        with self._commit_lock:
            self._drop_writer()
        self._drop_loop_writer()
        if self._log is not None:
            self._log.close()
        with self._readers_lock:
            readers, self._readers, self._closed = self._readers, [], True
        for conn in readers:
            conn.close()
        self._engine.dispose()

    def _read(self, query: Callable[[Connection], T]) -> T:
        try:
            if self.dialect == "postgresql":
                with self._read_engine.connect() as conn:
                    return query(conn)
            # SQLite: reads run without BEGIN, so a connection can be reused as it is;
            # keeping a few skips the pool's checkout and reset on every read.
            with self._readers_lock:
                kept = self._readers.pop() if self._readers else None
                generation = self._readers_generation
            conn = kept if kept is not None else self._engine.connect()
            try:
                value = query(conn)
            except BaseException:
                conn.close()
                raise
            with self._readers_lock:
                keep = (
                    len(self._readers) < SQLITE_READERS_KEPT
                    and not self._closed
                    and generation == self._readers_generation
                )
                if keep:
                    self._readers.append(conn)
            if not keep:
                conn.close()
            return value
        except (SQLAlchemyError, sqlite3.Error) as error:
            if unavailable(error):
                raise StoreUnavailable(str(error)) from error
            raise

    def _write(self, job: Callable[[Connection], T]) -> T:
        """Run ``job`` in a write transaction; returns once that transaction is committed.

        On SQLite, a write refused because the file was read-only is tried once more on
        fresh connections (it may have become writable since they were opened); nothing of
        the refused one was written.
        """
        retried = False
        while True:
            try:
                if self.dialect == "postgresql":
                    with self._write_engine.begin() as conn:
                        return job(conn)
                return cast(T, self._group_commit(job))
            except (SQLAlchemyError, sqlite3.Error) as error:
                self._write_failed(error, retried)
                retried = True

    async def _awrite(self, job: Callable[[Connection], T]) -> T:
        """:meth:`_write` on SQLite for a coroutine: the commit thread makes it, no thread waits."""
        retried = False
        while True:
            if self._stop.is_set():
                raise StoreUnavailable("the store is closed")
            future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            with self._queue_lock:
                self._queue.append(_Pending(job, future))
            self._writes_waiting.set()
            try:
                return await future
            except (SQLAlchemyError, sqlite3.Error) as error:
                self._write_failed(error, retried)
                retried = True

    def _write_failed(self, error: SQLAlchemyError | sqlite3.Error, retried: bool) -> None:
        """After a failed write: return to try it once more, or raise what the caller should."""
        if not unavailable(error):
            raise error
        if self.dialect == "sqlite":
            self._reopen_sqlite()
            if not retried and sqlite_read_only(error):
                return
        raise StoreUnavailable(str(error)) from error

    def _reopen_sqlite(self) -> None:
        """After a failed write, close every connection so that the next ones open the file afresh.

        SQLite shares one view of a file among the connections of a process: once a file was
        opened read-only (its mode, or a read-only volume), writes keep failing until every
        connection to it is closed, even after the file became writable again. The writer
        was dropped by the failed batch; kept readers go now (those in use when they return).
        """
        with self._readers_lock:
            readers, self._readers = self._readers, []
            self._readers_generation += 1
        for conn in readers:
            conn.close()
        self._drop_loop_writer()
        self._engine.dispose()

    def _group_commit(self, job: Callable[[Connection], Any]) -> Any:
        pending = _Pending(job)
        with self._queue_lock:
            self._queue.append(pending)
        with self._commit_lock:
            if not pending.done:
                self._commit_queued()
        if pending.error is not None:
            raise pending.error
        return pending.value

    def _commit_queued(self) -> None:
        """Make every queued write in one batch. The caller holds the commit lock."""
        with self._queue_lock:
            batch, self._queue = self._queue, []
        if batch:
            self._run_batch(batch)

    def _commit_loop(self) -> None:
        """The writes queued for it (:meth:`_awrite`: a move that failed on the event loop for
        another reason than the lock), group-committed by this thread. A thread that writes
        for itself (:meth:`_group_commit`) makes whatever is queued too, so the two kinds of
        writers share batches and the one connection.
        """
        while True:
            self._writes_waiting.wait()
            self._writes_waiting.clear()
            with self._commit_lock:
                self._commit_queued()
                if self._stop.is_set():
                    return

    def _run_batch(self, batch: Sequence[_Pending]) -> None:
        """Make a batch of writes in one transaction (one sync to disk).

        A job either raises :class:`VersionConflict` before it writes anything (that
        job alone fails) or succeeds; if a job fails any other way, the transaction
        is rolled back and each job of the batch is made again on its own. The writers
        go on once the commit is on disk: this thread syncs the log after the commit (the
        database's write lock is free again by then), unless SQLite synced it in the commit.
        """
        committed = True
        try:
            if self._writer is None:  # one connection for all writes, kept while it works
                self._writer = self._write_engine.connect()
            conn = self._writer
            try:
                with conn.begin():
                    for pending in batch:
                        try:
                            pending.value = pending.job(conn)
                        except VersionConflict as conflict:
                            pending.error = conflict
                return
            except Exception as error:
                database_down = isinstance(error, (SQLAlchemyError, sqlite3.Error)) and unavailable(error)
                if len(batch) == 1 or database_down:
                    raise
            for pending in batch:
                pending.value, pending.error = None, None
                try:
                    with conn.begin():
                        pending.value = pending.job(conn)
                except Exception as error:
                    pending.error = error
        except Exception as error:  # no write of the batch happened
            committed = False
            for pending in batch:
                pending.error, pending.value = error, None
            self._drop_writer()
        finally:
            synced: BaseException | None = None
            if committed and self._log is not None:
                try:
                    self._log.sync()
                except StoreUnavailable as error:
                    synced = error
            for pending in batch:
                pending.done = True
            _settle(batch, synced)

    def _drop_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            except SQLAlchemyError:  # pragma: no cover - the connection is gone anyway
                writer.invalidate()

    def _remember(self, stored: StoredGame) -> None:
        """Keep the latest decoded game by id (a version's state never changes: reuse it)."""
        kept = StoredGame(stored.id, stored.owner, stored.game.copy(), stored.version)
        with self._games_seen_lock:
            seen = self._games_seen.get(stored.id)
            if seen is None or seen.version < stored.version:  # a slow reader's older one: no
                self._games_seen[stored.id] = kept
            self._games_seen.move_to_end(stored.id)
            if len(self._games_seen) > GAMES_SEEN:
                self._games_seen.popitem(last=False)

    # -- games ----------------------------------------------------------------------------

    def _stored(self, row: Any) -> StoredGame:
        """The stored game of a row of (id, owner, state, version)."""
        game_id, owner, state, version = row
        with self._games_seen_lock:
            seen = self._games_seen.get(game_id)
        if seen is not None and seen.version == version:
            return StoredGame(game_id, owner, seen.game.copy(), version)
        stored = StoredGame(game_id, owner, Game.from_dict(json.loads(state)), version)
        self._remember(stored)
        return stored

    def _execute(self, conn: Db, statement: Any, params: dict[str, Any]) -> Any:
        """Run one of the statements of every move; what it returns has ``fetchone`` and ``rowcount``.

        On SQLite it goes straight to the driver, compiled once: SQLAlchemy's own execute
        costs several times the query itself (about 60 µs against 10 µs for a game's row).
        ``conn`` is a SQLAlchemy connection, or on SQLite the event loop's own writer.
        """
        if isinstance(conn, sqlite3.Connection):
            driver = conn
        elif self.dialect != "sqlite":
            return conn.execute(statement, params)
        else:
            driver = conn.connection.driver_connection  # type: ignore[assignment]
        compiled = self._sqlite_sql.get(statement)
        if compiled is None:
            done = statement.compile(dialect=sqlite_dialect.dialect(paramstyle="named"))
            # Values the statement carries itself (a LIMIT, say), under names SQLAlchemy chose.
            own = {name: value for name, value in done.params.items() if not name.startswith("b_")}
            compiled = self._sqlite_sql[statement] = (str(done), own)
        sql, own = compiled
        return driver.execute(sql, {**own, **params} if own else params)

    @staticmethod
    def _columns(game: Game) -> dict[str, Any]:
        """The game's columns, as the statements' parameters (``b_state``, ``b_status``, …)."""
        return {
            "b_state": _COMPACT_JSON.encode(game.to_dict()),
            "b_status": game.status.value,
            "b_moves": game.moves,
            "b_score": game.score,
            "b_cards_left": game.cards_left(),
        }

    def create(self, game: Game, owner: str | None) -> StoredGame:
        game_id = new_game_id()
        values = self._columns(game)

        def job(conn: Connection) -> None:
            now = self._clock()
            row: dict[str, Any] = {"b_id": game_id, "b_owner": owner, "b_code": game.code_text()}
            row.update(values, b_version=1, b_created=now, b_updated=now)
            self._execute(conn, _NEW_GAME, row)
            if owner is not None:
                self._make_current(conn, owner, game_id, now)
                self._bound(conn, owner, game_id)

        self._write(job)
        return StoredGame(game_id, owner, game.copy(), 1)

    def _bound(self, conn: Connection, owner: str, keep: str) -> None:
        """Remove the owner's oldest games beyond the bound (not won first), results recorded.

        Runs in the create's transaction, after ``_make_current`` locked the player's row:
        two creates by one player take turns here.
        """
        if self.max_games_per_player <= 0:
            return
        (count,) = self._execute(conn, _COUNT_GAMES, {"b_owner": owner}).fetchone()
        excess = count - self.max_games_per_player
        if excess <= 0:
            return
        won_last = case((games.c.status == Status.WON.value, 1), else_=0)
        oldest = conn.execute(
            select(games.c.id)
            .where(games.c.owner == owner, games.c.id != keep)
            .order_by(won_last, games.c.seq)
            .limit(excess)
        ).scalars()
        for game_id in list(oldest):
            self._record(conn, game_id, None)
            conn.execute(delete(games).where(games.c.id == game_id))

    def get(self, game_id: str) -> StoredGame | None:
        row = self._read(lambda conn: self._execute(conn, _GET, {"b_id": game_id}).fetchone())
        return self._stored(row) if row is not None else None

    def _touch(self) -> dict[str, float]:
        now = self._clock()
        return {"b_updated": now, "b_touch_before": now - GAME_TOUCH_EVERY_S}

    def save(self, stored: StoredGame, game: Game) -> StoredGame:
        values = self._columns(game)
        values.update(b_id=stored.id, b_version=stored.version, b_new_version=stored.version + 1)
        status = game.status

        def job(conn: Connection) -> None:
            values.update(self._touch())
            if self._execute(conn, _SAVE, values).rowcount != 1:
                raise VersionConflict(stored.id)
            if status is not Status.PLAYING:
                self._record(conn, stored.id, game)

        self._write(job)
        return self._saved(stored, game)

    def _saved(self, stored: StoredGame, game: Game, *, ours: bool = False) -> StoredGame:
        """The saved game, remembered. ``ours``: ``game`` is the store's own copy (an update's),
        so it is returned as it is; a caller's game is copied, so that changing it later
        changes nothing here."""
        saved = StoredGame(stored.id, stored.owner, game, stored.version + 1)
        self._remember(saved)
        return saved if ours else StoredGame(stored.id, stored.owner, game.copy(), stored.version + 1)

    def update(
        self, game_id: str, change: Callable[[Game], T], *, owned_by: str | None = None
    ) -> tuple[StoredGame, T] | None:
        """Read, change and save the game in one transaction, its row locked: no conflicts."""
        return self._updated(game_id, self._write(self._update_job(game_id, change, owned_by)))

    async def aupdate(
        self, game_id: str, change: Callable[[Game], T], *, owned_by: str | None = None
    ) -> tuple[StoredGame, T] | None:
        """On SQLite the whole step (read the row, check whose game it is, change, write, commit)
        is made right here on the event loop, on a connection of its own: tens of
        microseconds, as the commit does not sync. Then the sync of the log is awaited (see
        :mod:`app.store.logsync`). When SQLite's write lock is taken just then (by another
        process, a thread of this one, or the checkpoint thread starting the log over), the
        coroutine sleeps a moment and tries again, up to the busy timeout: the event loop never
        waits for the lock. A write that fails any other way is made again by the commit
        thread, which says what went wrong."""
        if self.dialect != "sqlite":
            return await super().aupdate(game_id, change, owned_by=owned_by)
        job = self._update_job(game_id, change, owned_by)
        try:
            (out,) = await self._write_on_loop(job)
        except sqlite3.Error:
            out = await self._awrite(job)
        else:
            if isinstance(out, tuple) and self._log is not None:  # it wrote: wait for the disk
                await self._log.synced()
        return self._updated(game_id, out)

    async def _write_on_loop(self, job: Callable[[sqlite3.Connection], T]) -> tuple[T]:
        """Make ``job`` in one transaction on the loop's writer, once SQLite's write lock is free.

        While the lock is taken this sleeps and tries again (0.2 ms, then twice as long each
        time up to 20 ms), up to the busy timeout, then raises :class:`StoreUnavailable`.
        A ``sqlite3.Error`` means the write failed and nothing of it was written. The
        commit is not synced yet when this returns.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SQLITE_BUSY_TIMEOUT_S
        pause = SQLITE_LOOP_RETRY_FIRST_S
        while True:
            if self._stop.is_set():
                raise StoreUnavailable("the store is closed")
            made = self._try_on_loop(job)
            if made is not None:
                return made
            if loop.time() + pause > deadline:
                raise StoreUnavailable("the database is locked (another process is writing)")
            await asyncio.sleep(pause)
            pause = min(pause * 2, SQLITE_LOOP_RETRY_MOST_S)

    def _try_on_loop(self, job: Callable[[sqlite3.Connection], T]) -> tuple[T] | None:
        """One try of :meth:`_write_on_loop`; ``None`` when the write lock is taken."""
        if not self._loop_writer_lock.acquire(blocking=False):
            return None  # another thread's event loop is writing with it this moment
        try:
            conn = self._loop_writer
            if conn is None or self._loop_writer_generation != self._readers_generation:
                conn = self._open_loop_writer()
            try:
                conn.execute("BEGIN IMMEDIATE")  # busy timeout 0: fails at once if taken
            except sqlite3.OperationalError as error:
                if getattr(error, "sqlite_errorcode", 0) & 0xFF == SQLITE_BUSY:
                    return None
                raise
            try:
                value = job(conn)
                conn.execute("COMMIT")
            except BaseException as error:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                if isinstance(error, sqlite3.Error):  # start afresh next time
                    self._close_loop_writer()
                raise
            return (value,)
        finally:
            self._loop_writer_lock.release()

    def _open_loop_writer(self) -> sqlite3.Connection:
        """The event loop's own writing connection: it never waits for the write lock."""
        self._close_loop_writer()
        generation = self._readers_generation
        conn = sqlite3.connect(
            self._sqlite_path(), timeout=0, isolation_level=None, check_same_thread=False
        )
        try:
            self._prepare_sqlite(conn, busy_timeout_s=0)
        except BaseException:
            conn.close()
            raise
        self._loop_writer, self._loop_writer_generation = conn, generation
        return conn

    def _close_loop_writer(self) -> None:
        """Close the loop's writer (the caller holds its lock)."""
        conn, self._loop_writer = self._loop_writer, None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()

    def _drop_loop_writer(self) -> None:
        with self._loop_writer_lock:
            self._close_loop_writer()

    def _update_job(
        self, game_id: str, change: Callable[[Game], T], owned_by: str | None
    ) -> Callable[[Db], tuple[StoredGame, Game, T] | _Raised | None]:
        def job(conn: Db) -> tuple[StoredGame, Game, T] | _Raised | None:
            row = self._execute(conn, _GET_FOR_UPDATE, {"b_id": game_id}).fetchone()
            if row is None:
                return None
            stored = self._stored(row)
            if not owns(stored, owned_by):
                return None
            game = stored.game  # a copy already (see _stored): changed in place
            try:
                value = change(game)
            except Exception as error:  # nothing written: the rest of a batch goes on
                return _Raised(error)
            values = self._columns(game)
            values.update(
                b_id=game_id,
                b_version=stored.version,
                b_new_version=stored.version + 1,
                **self._touch(),
            )
            if self._execute(conn, _SAVE, values).rowcount != 1:  # pragma: no cover - row locked
                raise VersionConflict(game_id)
            if game.status is not Status.PLAYING:
                self._record(conn, game_id, game)
            return stored, game, value

        return job

    def _updated(
        self, game_id: str, out: tuple[StoredGame, Game, T] | _Raised | None
    ) -> tuple[StoredGame, T] | None:
        if out is None:
            return None
        if isinstance(out, _Raised):
            raise out.error
        stored, game, value = out
        return self._saved(stored, game, ours=True), value

    def current(self, owner: str) -> StoredGame | None:
        row = self._read(lambda conn: self._execute(conn, _CURRENT, {"b_owner": owner}).fetchone())
        return self._stored(row) if row is not None else None

    def find(self, owner: str, code: GameCode) -> StoredGame | None:
        params = {"b_owner": owner, "b_code": code.text()}
        row = self._read(lambda conn: self._execute(conn, _FIND, params).fetchone())
        return self._stored(row) if row is not None else None

    def set_current(self, owner: str, game_id: str) -> None:
        params = {"b_owner": owner, "b_game": game_id}
        if self._read(lambda conn: self._execute(conn, _IS_CURRENT, params).fetchone()) is not None:
            return  # the common case (a page view of the current game) writes nothing

        def job(conn: Connection) -> None:
            found = self._execute(conn, _GAME_OWNER, {"b_id": game_id}).fetchone()
            if found is not None and found[0] == owner:
                self._make_current(conn, owner, game_id, self._clock())

        self._write(job)

    def _insert_ignore(self, table: Any, **values: Any) -> Any:
        dialect = pg_dialect if self.dialect == "postgresql" else sqlite_dialect
        return dialect.insert(table).values(**values).on_conflict_do_nothing()

    def _make_current(self, conn: Connection, owner: str, game_id: str, now: float) -> None:
        """Point the player at ``game_id``; the game they leave gets its result recorded."""
        player = {"b_id": owner, "b_created": now, "b_updated": now}
        while True:  # (cleanup may delete an idle player's row between the two statements)
            self._execute(conn, self._new_player, player)
            found = self._execute(conn, _PLAYER_TO_CHANGE, {"b_id": owner}).fetchone()
            if found is not None:
                break
        (previous,) = found
        self._execute(conn, _MAKE_CURRENT, {"b_id": owner, "b_game": game_id, "b_updated": now})
        if previous is not None and previous != game_id:
            self._record(conn, previous, None)

    # -- results and records --------------------------------------------------------------

    def record_result(self, game_id: str) -> GameResult | None:
        return self._write(lambda conn: self._record(conn, game_id, None))

    def _record(self, conn: Db, game_id: str, game: Game | None) -> GameResult | None:
        """Record (or improve) a game's result and its deal's record, in the caller's tx."""
        row = self._execute(conn, _GAME_TO_RECORD, {"b_id": game_id}).fetchone()
        if row is None:
            return None
        seq, owner, state = row
        if game is None:
            game = Game.from_dict(json.loads(state))
        outcome = game_outcome(game)
        if outcome is None:
            return None
        won, score, cards_left, moves = outcome
        line = line_text(game)
        previous = self._result(conn, game_id)
        if not improves(won, cards_left, previous):
            return None
        code = game.code_text()
        now = self._clock()
        self._execute(conn, self._new_deal, {"b_code": code})
        deal_row = self._execute(conn, _DEAL_TO_RECORD, {"b_code": code}).fetchone()
        deal = DealRow(code, **dict(zip(DEAL_FIELDS, deal_row, strict=True)))
        feats = merge(
            deal,
            game_id=game_id,
            player=owner,
            won=won,
            score=score,
            cards_left=cards_left,
            at=now,
            first_result=previous is None,
        )
        deal_values = {"b_" + name: getattr(deal, name) for name in DEAL_FIELDS}
        self._execute(conn, _SAVE_DEAL, {"b_code": code, **deal_values})
        values = {
            "b_game_id": game_id,
            "b_won": won,
            "b_score": score,
            "b_cards_left": cards_left,
            "b_moves": moves,
            "b_feats": feats_text(feats),
            "b_at": now,
            "b_line": line,
        }
        longest_run, seconds = run_and_time(game)
        values.update(b_longest_run=longest_run, b_seconds=seconds)
        if previous is None:
            values.update(b_game_seq=seq, b_player=owner, b_code=code, b_rules=game.rules.letter)
            self._execute(conn, _INSERT_RESULT, values)
        else:
            self._execute(conn, _UPDATE_RESULT, values)
        return GameResult(
            game_id, owner, code, won, score, cards_left, moves, feats, epoch_to_datetime(now),
            longest_run, seconds, line,
        )  # fmt: skip

    def _result(self, conn: Db, game_id: str) -> GameResult | None:
        row = self._execute(conn, _RESULT, {"b_id": game_id}).fetchone()
        if row is None:
            return None
        return _result_of(row)

    def result(self, game_id: str) -> GameResult | None:
        return self._read(lambda conn: self._result(conn, game_id))

    def recent_results(self, player: str, limit: int) -> list[GameResult]:
        query = (
            select(*_RESULT.selected_columns)
            .where(results.c.player == player)
            .order_by(results.c.at.desc(), results.c.game_seq.desc())
            .limit(limit)
        )
        rows = self._read(lambda conn: conn.execute(query).all())
        return [_result_of(row) for row in rows]

    def deal_record(self, code: GameCode) -> DealRecord | None:
        text = code.text()

        def query(conn: Connection) -> DealRecord | None:
            found = self._execute(conn, _DEAL, {"b_code": text}).fetchone()
            if found is None:
                return None
            row = DealRow(text, **dict(zip(DEAL_FIELDS, found, strict=True)))
            holders = (row.first_player, row.best_player, row.unfinished_player)
            names: dict[str, str | None] = {}
            if any(holders):
                first, best, unfinished = holders
                found_names = self._execute(
                    conn, _HOLDER_NAMES, {"b_first": first, "b_best": best, "b_unfinished": unfinished}
                ).fetchall()
                names = {player_id: name for player_id, name in found_names}
            return to_record(row, lambda player: names.get(player) if player is not None else None)

        return self._read(query)

    def player_stats(self, player: str) -> list[PlayerStats]:
        query = (
            select(
                results.c.rules, results.c.won, results.c.score, results.c.longest_run, results.c.seconds
            )
            .where(results.c.player == player)
            .order_by(results.c.game_seq)
        )
        rows = self._read(lambda conn: conn.execute(query).all())
        return [
            player_stats_of(
                rules,
                [
                    (bool(r.won), r.score, r.longest_run, r.seconds)
                    for r in rows
                    if r.rules == rules.letter
                ],
            )
            for rules in Rules
        ]

    # -- players --------------------------------------------------------------------------

    def display_name(self, player: str) -> str | None:
        query = select(players.c.display_name).where(players.c.id == player)
        return self._read(lambda conn: conn.execute(query).scalar_one_or_none())

    def set_display_name(self, player: str, name: str | None) -> str | None:
        cleaned = clean_display_name(name) if name is not None and name.strip() else None

        def job(conn: Connection) -> None:
            now = self._clock()
            conn.execute(self._insert_ignore(players, id=player, created=now, updated=now))
            conn.execute(
                update(players)
                .where(players.c.id == player)
                .values(display_name=cleaned, updated=now)
            )

        self._write(job)
        return cleaned

    # -- cleanup --------------------------------------------------------------------------

    def cleanup_idle(self, older_than: dt.timedelta) -> int:
        cutoff = self._clock() - older_than.total_seconds()
        idle = (games.c.updated < cutoff) & (games.c.status != Status.WON.value)
        removed = 0
        find_idle = select(games.c.id).where(idle).limit(CLEANUP_BATCH)
        while True:
            ids: list[str] = self._read(lambda conn: list(conn.execute(find_idle).scalars()))
            if not ids:
                break

            def remove(conn: Connection, ids: list[str] = ids) -> int:
                return self._remove_games(conn, ids, idle)

            removed += self._write(remove)
            if len(ids) < CLEANUP_BATCH:
                break

        def forget_players(conn: Connection) -> None:
            conn.execute(
                delete(players).where(
                    players.c.display_name.is_(None),
                    players.c.updated < cutoff,
                    ~exists().where(games.c.owner == players.c.id),
                    ~exists().where(results.c.player == players.c.id),
                )
            )

        self._write(forget_players)
        return removed

    def _remove_games(self, conn: Connection, ids: Iterable[str], idle: Any) -> int:
        removed = 0
        for game_id in ids:
            # Lock the game and check it is still idle: a player may have come back to it.
            still_idle = conn.execute(
                select(games.c.id).where(games.c.id == game_id, idle).with_for_update()
            ).first()
            if still_idle is None:
                continue
            self._record(conn, game_id, None)
            removed += conn.execute(delete(games).where(games.c.id == game_id)).rowcount
        return removed

    # -- figures --------------------------------------------------------------------------

    def count_games(self) -> int:
        return self._read(
            lambda conn: conn.execute(select(func.count()).select_from(games)).scalar_one()
        )


def _result_of(row: Any) -> GameResult:
    """A result from a row of :data:`_RESULT`'s columns."""
    found_id, player, code, won, score, cards_left, moves, feats, at, longest_run, seconds, line = row
    return GameResult(
        found_id,
        player,
        code,
        bool(won),
        score,
        cards_left,
        moves,
        feats_from_text(feats),
        epoch_to_datetime(at),
        longest_run,
        seconds,
        line,
    )
