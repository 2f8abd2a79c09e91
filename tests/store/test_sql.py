"""What only the SQL store has: URLs, the SQLite settings, the versioned schema, failures."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from app.engine import DRAW, Game, GameCode
from app.store.base import StoredGame, StoreUnavailable
from app.store.database import sqlite
from app.store.database.migrations import SchemaTooNew, migrate
from app.store.database.schema import SCHEMA_VERSION
from app.store.database.sql import SqlStore, database_url
from app.store.database.sqlite import SqliteDatabase
from app.store.factory import open_store
from app.store.memory import MemoryStore
from tests.support.store import SQL_BACKENDS, run

CODE = GameCode.parse("TP1-E-AAAAAAB")
ALICE = "alice-player-id-0000000001"


def test_urls() -> None:
    assert database_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert database_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert database_url("postgresql+psycopg://u@h/db").drivername == "postgresql+psycopg"
    assert database_url("sqlite:///./data/x.db").database == "./data/x.db"
    for bad in ["mysql://h/db", "postgresql+psycopg2://h/db", "sqlite+aiosqlite:///x.db"]:
        with pytest.raises(ValueError, match="unsupported"):
            database_url(bad)
    with pytest.raises(ValueError, match="synchronous"):
        SqlStore("sqlite:///x.db?synchronous=SOMETIMES")
    for in_memory in ["sqlite://", "sqlite:///:memory:"]:
        with pytest.raises(ValueError, match="memory://"):
            SqlStore(in_memory)


def test_factory(tmp_path: Path) -> None:
    assert isinstance(open_store("memory://"), MemoryStore)
    store = open_store(f"sqlite:///{tmp_path}/a/b/c.db")
    try:
        assert isinstance(store, SqlStore)
        assert (tmp_path / "a" / "b" / "c.db").exists()  # parent folders made
    finally:
        store.close()


def test_stored_game_is_small(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path}/t.db")
    try:
        stored = store.create(Game(CODE), ALICE)
        game = stored.game.copy()
        for _ in range(23):
            game.draw()
        store.save(stored, game)
        with store._engine.connect() as conn:
            size = conn.exec_driver_sql(
                "SELECT length(id) + length(owner) + length(code) + length(state) + 64"
                " FROM tp_games"
            ).scalar_one()
        assert size < 4096
    finally:
        store.close()


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_schema_is_versioned(database_url: str) -> None:
    store = SqlStore(database_url)
    stored = store.create(Game(CODE), ALICE)
    store.close()
    store = SqlStore(database_url)  # opening again keeps everything
    try:
        assert store.get(stored.id) == stored
        with store._engine.connect() as conn:
            assert (
                conn.execute(text("SELECT version FROM tp_schema")).scalar_one() == SCHEMA_VERSION
            )
            conn.execute(text("UPDATE tp_schema SET version = :v"), {"v": SCHEMA_VERSION + 1})
            conn.commit()
    finally:
        store.close()
    with pytest.raises(SchemaTooNew, match="schema version"):
        SqlStore(database_url)


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_migrations_run_in_order(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SqlStore(database_url)
    store.close()
    ran: list[int] = []

    following = SCHEMA_VERSION + 1

    def step(conn: Connection) -> None:
        ran.append(following)
        conn.execute(text("ALTER TABLE tp_players ADD COLUMN note VARCHAR(10)"))

    monkeypatch.setattr("app.store.database.migrations.SCHEMA_VERSION", following)
    monkeypatch.setitem(migrate.__globals__["MIGRATIONS"], following, step)
    store = SqlStore(database_url)
    try:
        with store._engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM tp_schema")).scalar_one() == following
            conn.execute(text("SELECT note FROM tp_players"))
    finally:
        store.close()
    SqlStore(database_url).close()
    assert ran == [following]  # once


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_several_processes_start_at_once(database_url: str) -> None:
    """Several stores opening a fresh database together: one creates the schema, all work."""
    stores: list[SqlStore] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def open_one() -> None:
        try:
            barrier.wait()
            stores.append(SqlStore(database_url))
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert not errors
        ids = [s.create(Game(CODE), None).id for s in stores]
        assert all(stores[0].get(i) is not None for i in ids)
    finally:
        for s in stores:
            s.close()


def test_postgres_unreachable_is_store_unavailable() -> None:
    with pytest.raises(StoreUnavailable):
        SqlStore("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")


@pytest.mark.parametrize("caller", ["thread", "coroutine"])
def test_sqlite_locked_is_store_unavailable_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caller: str
) -> None:
    """A thread that waits for the lock, or a coroutine that backs off: both give up in time."""
    monkeypatch.setattr(sqlite, "BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "t.db"
    store = SqlStore(f"sqlite:///{path}")

    def draw() -> StoredGame:
        if caller == "thread":
            game = stored.game.copy()
            game.draw()
            return store.save(stored, game)
        updated = run(store.aupdate(stored.id, lambda game: game.draw()))
        assert updated is not None
        return updated[0]

    try:
        stored = store.create(Game(CODE), ALICE)
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            with pytest.raises(StoreUnavailable):
                draw()
            assert store.get(stored.id) == stored  # reads still work (WAL)
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert draw().version == 2  # and writes work again after
    finally:
        store.close()


def test_a_write_that_fails_after_it_wrote_writes_nothing(tmp_path: Path) -> None:
    """Each write is a transaction of its own: one that fails is rolled back, alone."""
    store = SqlStore(f"sqlite:///{tmp_path}/t.db")
    try:
        a = store.create(Game(CODE), None)

        def broken(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE tp_games SET moves = 99 WHERE id = ?", (a.id,))
            raise RuntimeError("a bug after a write")

        database = store._db
        assert isinstance(database, SqliteDatabase)
        with pytest.raises(RuntimeError, match="a bug"):
            database.write(broken)
        drawn = a.game.copy()
        drawn.draw()
        saved = store.save(a, drawn)  # the next write goes on
        got = store.get(a.id)
        assert got is not None and got == saved and got.game.moves == 1  # not 99
    finally:
        store.close()


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_many_threads_many_games(database_url: str) -> None:
    """Concurrent players on their own games: every save lands, in order, nothing lost."""
    store = SqlStore(database_url)
    try:
        games = [store.create(Game(CODE), f"player-{i:03d}-xxxxxxxxxxxx") for i in range(12)]
        errors: list[BaseException] = []

        def player(stored: object) -> None:
            try:
                current = stored
                for _ in range(15):
                    game = current.game.copy()  # type: ignore[attr-defined]
                    game.replay([DRAW])
                    current = store.save(current, game)  # type: ignore[arg-type]
            except BaseException as error:  # pragma: no cover - reported below
                errors.append(error)

        threads = [threading.Thread(target=player, args=(g,)) for g in games]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        for g in games:
            got = store.get(g.id)
            assert got is not None and got.version == 16 and got.game.moves == 15
    finally:
        store.close()


def test_sqlite_checkpoints_run_in_the_background_and_stop_with_the_store(tmp_path: Path) -> None:
    """The write-ahead log is copied into the database file by the store's sync thread, not
    by whichever commit crosses SQLite's threshold (which is set far above this test)."""
    path = tmp_path / "games.db"
    store = SqlStore(f"sqlite:///{path}")
    try:
        before = path.stat().st_size
        for number in range(200):
            store.create(Game(GameCode.parse("TP1-E-AAAAAAB")), f"player-{number:04d}-xxxxxxxx")
        wal = path.with_name(path.name + "-wal")
        assert wal.stat().st_size > 0
        deadline = time.monotonic() + 60  # the thread checkpoints every second
        while path.stat().st_size <= before and time.monotonic() < deadline:
            time.sleep(0.1)  # waits for the store's sync thread
        assert path.stat().st_size > before, "no checkpoint copied the log into the database file"
    finally:
        store.close()
    assert isinstance(store._db, SqliteDatabase) and not any(t.is_alive() for t in store._db._threads)
