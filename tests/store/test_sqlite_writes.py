"""How the SQLite store makes its writes and makes them durable (app/store/database/sqlite.py).

Every write is made under the store's write lock on its one write connection and committed
without a sync; then the store's sync thread syncs the log before the writer goes on, one
sync for every commit made before it. These tests hold that to what ``synchronous=FULL``
promised: a write that was answered is on disk; and check that the event loop never waits
for the disk or a lock.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from app.engine import Game, GameCode
from app.store.base import StoredGame, StoreUnavailable
from app.store.database import sqlite
from app.store.database.sql import SqlStore
from app.store.database.sqlite import SqliteDatabase
from tests.support.store import draw, draw_or_undo, run

CODE = GameCode.parse("TP1-E-AAAAAAB")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SqlStore]:
    # The sync thread's checkpoints would copy the log into the database file at their own moments.
    monkeypatch.setattr(sqlite, "CHECKPOINT_EVERY_S", 3600.0)
    opened = SqlStore(f"sqlite:///{tmp_path}/t.db")
    yield opened
    opened.close()


def database_of(store: SqlStore) -> SqliteDatabase:
    assert isinstance(store._db, SqliteDatabase)
    return store._db


def version_on(path: Path, game_id: str) -> int:
    with closing(sqlite3.connect(path)) as db:
        row = db.execute("SELECT version FROM tp_games WHERE id = ?", (game_id,)).fetchone()
    return int(row[0])


def test_commits_do_not_sync_and_the_store_syncs_the_log(tmp_path: Path) -> None:
    path = tmp_path / "data" / "tripeaks.db"
    store = SqlStore(f"sqlite:///{path}")
    try:
        stored = store.create(Game(CODE), None)
        assert run(store.aupdate(stored.id, draw)) is not None
        database = database_of(store)
        with closing(sqlite3.connect(path)) as raw:
            assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        writer = database._writer
        assert writer is not None
        assert writer.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL: no sync in it
        assert writer.execute("PRAGMA busy_timeout").fetchone()[0] == 0  # never waits inside
        assert store._read(lambda db: db.execute("PRAGMA busy_timeout").fetchone()[0]) == 10_000
        assert database.syncs == 2  # the create's and the move's
    finally:
        store.close()
    # Asked for NORMAL or OFF, SQLite's own setting is all there is: no sync after commits.
    for mode, value, synced in [("EXTRA", 1, True), ("NORMAL", 1, False), ("OFF", 0, False)]:
        other = SqlStore(f"sqlite:///{tmp_path}/{mode}.db?synchronous={mode}")
        try:
            other.create(Game(CODE), None)
            database = database_of(other)
            assert database.synced_after_commit is synced, mode
            assert (database.syncs == 1) is synced, mode
            assert database._writer is not None
            assert database._writer.execute("PRAGMA synchronous").fetchone()[0] == value, mode
        finally:
            other.close()


def test_an_answered_write_is_on_disk(
    store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After every answered write, the files as they were at the last sync (the "disk")
    hold it: the sync came after the commit, and the answer after the sync; a coroutine's
    move and a thread's save alike."""
    disk = tmp_path / "disk"
    disk.mkdir()
    database = Path(str(store.url.database))
    on_disk = disk / database.name

    def copy_then_sync(fd: int) -> None:
        for name in (database, database.with_name(database.name + "-wal")):
            shutil.copyfile(name, disk / name.name)
        os.fdatasync(fd)

    monkeypatch.setattr(sqlite, "_fdatasync", copy_then_sync)
    stored = store.create(Game(CODE), None)
    assert version_on(on_disk, stored.id) == 1

    async def play() -> None:
        for _ in range(6):
            moved = await store.aupdate(stored.id, draw_or_undo)
            assert moved is not None
            assert version_on(on_disk, stored.id) == moved[0].version

    run(play())
    current = store.get(stored.id)
    assert current is not None and current.version == 7
    game = current.game.copy()
    game.draw()
    saved = store.save(current, game)  # a thread's write
    assert version_on(on_disk, stored.id) == saved.version == 8


async def until(condition: Callable[[], bool], what: str, seconds: float = 60) -> int:
    """Let the event loop run until ``condition()`` holds (a deadline, not a count of ticks);
    returns how many times the loop came back to this coroutine meanwhile."""
    deadline = time.monotonic() + seconds
    ticks = 0
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        await asyncio.sleep(0.002)
        ticks += 1
    return ticks


@contextmanager
def released_after(hold: Path, seconds: float = 120) -> Iterator[None]:
    """Remove the hold file after ``seconds`` whatever happens, so a test whose event loop is
    wrongly stuck in a held sync fails instead of hanging."""
    watchdog = threading.Timer(seconds, lambda: hold.unlink(missing_ok=True))
    watchdog.start()
    try:
        yield
    finally:
        watchdog.cancel()


class HeldSync:
    """A sync that does not end while the file ``hold`` exists: a slow disk. ``began`` is set
    when a sync begins: the sync thread has taken whoever waited then, and whoever commits
    from now on waits for the next sync."""

    def __init__(self, hold: Path) -> None:
        self.hold = hold
        self.began = threading.Event()

    def __call__(self, fd: int) -> None:
        self.began.set()
        while self.hold.exists():
            time.sleep(0.002)  # in the store's sync thread: waits for the test to remove the file
        os.fdatasync(fd)


def test_a_slow_sync_holds_the_move_not_the_loop_and_covers_every_commit_meanwhile(
    store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold = tmp_path / "hold"
    sync = HeldSync(hold)
    monkeypatch.setattr(sqlite, "_fdatasync", sync)
    games = [store.create(Game(CODE), None) for _ in range(20)]
    path = Path(str(store.url.database))
    syncs = database_of(store).syncs
    sync.began.clear()
    hold.touch()

    async def scenario() -> tuple[bool, list[tuple[StoredGame, None] | None]]:
        first = asyncio.ensure_future(store.aupdate(games[0].id, draw))
        # The loop runs on while the first move, committed, waits for its sync (begun: on a
        # busy machine the sync thread may take a while to take it)...
        await until(lambda: version_on(path, games[0].id) == 2 and sync.began.is_set(),
                    "the first move is committed and its sync begun")
        rest = [asyncio.ensure_future(store.aupdate(g.id, draw)) for g in games[1:]]
        # ...and commits nineteen more meanwhile, which wait for the next sync.
        await until(lambda: all(version_on(path, g.id) == 2 for g in games[1:]), "19 commits")
        waiting = not first.done() and not any(r.done() for r in rest)
        hold.unlink()
        return waiting, await asyncio.gather(first, *rest)

    with released_after(hold):
        waiting, moved = run(scenario())
    assert waiting
    assert all(m is not None and m[0].version == 2 for m in moved)
    # One sync for the first move, one for the nineteen committed while it ran.
    assert database_of(store).syncs == syncs + 2


def test_threads_that_commit_during_a_sync_share_the_next_one(
    store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Group commit for threads too: eight saves made while a sync is under way wait for the
    next sync, and that one sync answers them all."""
    hold = tmp_path / "hold"
    sync = HeldSync(hold)
    monkeypatch.setattr(sqlite, "_fdatasync", sync)
    games = [store.create(Game(CODE), None) for _ in range(9)]
    path = Path(str(store.url.database))
    syncs = database_of(store).syncs
    sync.began.clear()
    hold.touch()
    saved: list[StoredGame] = []

    def save(stored: StoredGame) -> None:
        game = stored.game.copy()
        game.draw()
        saved.append(store.save(stored, game))

    threads = [threading.Thread(target=save, args=(g,)) for g in games]
    with released_after(hold):
        threads[0].start()
        deadline = time.monotonic() + 60
        while version_on(path, games[0].id) != 2 or not sync.began.is_set():  # committed, its sync held
            assert time.monotonic() < deadline
            time.sleep(0.002)
        for thread in threads[1:]:
            thread.start()
        while not all(version_on(path, g.id) == 2 for g in games[1:]):
            assert time.monotonic() < deadline
            time.sleep(0.002)
        assert not saved  # nobody answered before the sync
        hold.unlink()
        for thread in threads:
            thread.join()
    assert sorted(s.id for s in saved) == sorted(g.id for g in games)
    assert database_of(store).syncs == syncs + 2


def test_a_write_lock_held_elsewhere_holds_the_move_not_the_loop(store: SqlStore) -> None:
    stored = store.create(Game(CODE), None)
    other = sqlite3.connect(Path(str(store.url.database)), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process writing, say

    async def scenario() -> tuple[int, bool, tuple[StoredGame, None] | None]:
        move = asyncio.ensure_future(store.aupdate(stored.id, draw))
        ticks = 0
        for _ in range(50):  # the loop comes back here while the move waits for the lock
            await asyncio.sleep(0.002)
            ticks += 1
        waiting = not move.done()
        other.execute("COMMIT")
        return ticks, waiting, await move

    try:
        ticks, waiting, moved = run(scenario())
    finally:
        other.close()
    assert ticks == 50 and waiting
    assert moved is not None and moved[0].version == 2 and store.get(stored.id) == moved[0]


def test_a_file_held_whole_elsewhere_while_the_writer_opens_is_waited_for(store: SqlStore) -> None:
    """The write connection is opened at its first write (and again after a failure); its
    settings read the schema, which another process holding the whole file refuses at once
    (as one recovering the log does when a server starts beside another). That is a lock to
    wait for, like a write lock, not a failed write (CI met it as a logged traceback from the
    idle cleanup at a container's start)."""
    stored = store.create(Game(CODE), None)
    database = database_of(store)
    with database._write_lock:
        database._reopen()  # the next write opens its connection afresh
    other = sqlite3.connect(Path(str(store.url.database)), isolation_level=None, check_same_thread=False)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    other.execute("COMMIT")  # in exclusive locking mode it keeps the file until it closes
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        database.connect(busy_timeout_s=0)  # what the writer meets while the file is held
    releasing = threading.Timer(0.2, other.close)
    releasing.start()
    try:
        moved = store.update(stored.id, draw)
    finally:
        releasing.join()
    assert moved is not None and moved[0].version == 2 and store.get(stored.id) == moved[0]


def test_a_write_lock_held_past_the_busy_timeout_is_store_unavailable(
    store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite, "BUSY_TIMEOUT_S", 0.3)
    stored = store.create(Game(CODE), None)
    other = sqlite3.connect(Path(str(store.url.database)), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="locked"):
            run(store.aupdate(stored.id, draw))
        # It waited the busy timeout first (less the last pause between tries, at most 20 ms).
        assert time.monotonic() - started >= 0.3 - sqlite.RETRY_MOST_S
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.get(stored.id) == stored  # nothing was changed


def test_a_write_lock_held_by_a_thread_holds_the_move_not_the_loop(store: SqlStore) -> None:
    """A thread of this process writing (its transaction under the store's write lock): the
    move on the loop backs off and is made once the lock is free."""
    stored = store.create(Game(CODE), None)
    lock = database_of(store)._write_lock

    async def scenario() -> tuple[int, bool, tuple[StoredGame, None] | None]:
        move = asyncio.ensure_future(store.aupdate(stored.id, draw))
        ticks = 0
        for _ in range(20):
            await asyncio.sleep(0.002)
            ticks += 1
        waiting = not move.done()
        lock.release()
        return ticks, waiting, await move

    lock.acquire()
    ticks, waiting, moved = run(scenario())
    assert ticks == 20 and waiting
    assert moved is not None and moved[0].version == 2


def test_a_failed_sync_is_store_unavailable_and_the_next_one_works(
    store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = store.create(Game(CODE), None)

    def failing(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sqlite, "_fdatasync", failing)
    with pytest.raises(StoreUnavailable, match="No space left on device"):
        run(store.aupdate(stored.id, draw))
    current = store.get(stored.id)
    assert current is not None and current.version == 2  # made, but not known to be on disk
    game = current.game.copy()
    game.draw()
    with pytest.raises(StoreUnavailable, match="No space left on device"):
        store.save(current, game)
    monkeypatch.setattr(sqlite, "_fdatasync", os.fdatasync)
    moved = run(store.aupdate(stored.id, draw))
    assert moved is not None and moved[0].version == 4


def test_coroutines_on_two_event_loops_at_once(store: SqlStore) -> None:
    """Two loops in two threads (two TestClients on one store, say): they share the write
    connection, taking turns, and each is answered on its own loop."""
    games = [store.create(Game(CODE), None) for _ in range(8)]

    async def play(mine: list[StoredGame]) -> list[int]:
        for _ in range(15):
            for stored in mine:
                assert await store.aupdate(stored.id, draw_or_undo) is not None
        return [store.get(stored.id).version for stored in mine]  # type: ignore[union-attr]

    elsewhere: list[list[int]] = []
    thread = threading.Thread(target=lambda: elsewhere.append(asyncio.run(play(games[:4]))))  # noqa: TID251 (a thread of its own)
    thread.start()
    here = run(play(games[4:]))
    thread.join()
    assert here == [16] * 4 and elsewhere == [[16] * 4]


def test_the_log_starts_over_although_writes_never_pause(store: SqlStore) -> None:
    """Under steady writing a PASSIVE checkpoint never copies all of the log, and SQLite
    starts the log over only after one that did: the sync thread's checkpoint copies the rest
    once the log is long (holding writers off for that moment) and starts it over with a write
    of its own, so that no move's commit on the event loop has to sync the new log's header."""
    path = Path(str(store.url.database))
    wal = path.with_name(path.name + "-wal")
    game_id = store.create(Game(CODE), None).id

    def log_restarts() -> int:
        """The log header's salt-1, one more each time the log starts over, whichever
        connection starts it over (https://www.sqlite.org/fileformat2.html#walformat)."""
        return int.from_bytes(wal.read_bytes()[16:20], "big")

    async def play(moves: int) -> None:
        for _ in range(moves):
            await store.aupdate(game_id, draw_or_undo)

    run(play(sqlite.RESTART_LOG_FRAMES))  # at least a frame a move
    before = log_restarts()
    run(play(10))
    assert log_restarts() == before  # no checkpoint ran: the log only grew
    database_of(store)._checkpoint()
    assert log_restarts() == before + 1  # started over by the checkpoint itself, no move since
    size = wal.stat().st_size
    for _ in range(3):
        run(play(sqlite.RESTART_LOG_FRAMES))
        database_of(store)._checkpoint()
    assert log_restarts() == before + 4  # once a round, each by the checkpoint
    assert wal.stat().st_size < 2 * size  # the log is reused from its start, not grown
    current = store.get(game_id)
    assert current is not None and current.version == 1 + 4 * sqlite.RESTART_LOG_FRAMES + 10
