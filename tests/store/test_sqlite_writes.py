"""How the SQLite store makes the writes coroutines await, and makes them durable.

A move (``aupdate``) is made on the event loop, on a connection of the store's own, and
committed without a sync; then the log is synced, by a helper process for a coroutine
(app/store/logsync.py) or by the writing thread itself, before the writer goes on. These
tests hold that to what ``synchronous=FULL`` promised: a write that was answered is on disk.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from app.engine import Game, GameCode
from app.store import logsync, sql
from app.store.base import StoredGame, StoreUnavailable
from app.store.sql import SqlStore
from tests.store.helpers import draw, draw_or_undo, run

CODE = GameCode.parse("TP1-E-AAAAAAB")

# A helper that copies the database and its log aside before it answers: what a power cut
# right after that sync would leave on disk (the test's "disk"), had only synced data lasted.
COPYING_HELPER = r"""
import os, shutil, sys
log, disk = sys.argv[1], os.environ["TRIPEAKS_TEST_DISK"]
while os.read(0, 1):
    for name in (log[: -len("-wal")], log):
        shutil.copyfile(name, os.path.join(disk, os.path.basename(name)))
    os.fdatasync(os.open(log, os.O_RDONLY))
    os.write(1, b".")
"""

# A helper that does not answer while the file TRIPEAKS_TEST_HOLD exists: a sync that takes long.
HOLDING_HELPER = r"""
import os, sys, time
hold = os.environ["TRIPEAKS_TEST_HOLD"]
while os.read(0, 1):
    while os.path.exists(hold):
        time.sleep(0.002)  # a helper process of its own: waits for the test to remove the file
    os.write(1, b".")
"""

# A helper whose every sync fails, as on a disk that is full or gone.
FAILING_HELPER = r"""
import os
while os.read(0, 1):
    os.write(1, b"![Errno 28] No space left on device\n")
"""


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SqlStore]:
    # The checkpoint thread would copy the log into the database file at its own moments.
    monkeypatch.setattr(sql, "SQLITE_CHECKPOINT_EVERY_S", 3600.0)
    opened = SqlStore(f"sqlite:///{tmp_path}/t.db")
    yield opened
    opened.close()


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
        with closing(sqlite3.connect(path)) as raw:
            assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        with store._engine.connect() as conn:  # the pool's connections (threads' writes, reads)
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10_000
        loop_writer = store._loop_writer
        assert loop_writer is not None
        assert loop_writer.execute("PRAGMA synchronous").fetchone()[0] == 1
        assert loop_writer.execute("PRAGMA busy_timeout").fetchone()[0] == 0  # never waits
        assert store._log is not None and store._log.syncs == 1
    finally:
        store.close()
    # Asked for NORMAL or OFF, SQLite's own setting is all there is: no sync after commits.
    for mode, value, synced in [("EXTRA", 1, True), ("NORMAL", 1, False), ("OFF", 0, False)]:
        other = SqlStore(f"sqlite:///{tmp_path}/{mode}.db?synchronous={mode}")
        try:
            assert (other._log is not None) is synced, mode
            with other._engine.connect() as conn:
                assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == value, mode
        finally:
            other.close()


def test_an_answered_write_is_on_disk(
    store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After every answered write, the files as they were at the last sync (the "disk")
    hold it: the sync came after the commit, and the answer after the sync. Moves are synced
    by the helper process, a thread's saves by the thread."""
    disk = tmp_path / "disk"
    disk.mkdir()
    monkeypatch.setenv("TRIPEAKS_TEST_DISK", str(disk))
    monkeypatch.setattr(logsync, "HELPER", COPYING_HELPER)
    database = Path(str(store.url.database))
    on_disk = disk / database.name

    def copy_then_sync(fd: int) -> None:
        for name in (database, database.with_name(database.name + "-wal")):
            shutil.copyfile(name, disk / name.name)
        os.fdatasync(fd)

    monkeypatch.setattr(logsync, "_fdatasync", copy_then_sync)
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
    saved = store.save(current, game)  # a thread's write: the thread syncs
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


def test_a_slow_sync_holds_the_move_not_the_loop_and_covers_every_commit_meanwhile(
    store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold = tmp_path / "hold"
    monkeypatch.setenv("TRIPEAKS_TEST_HOLD", str(hold))
    monkeypatch.setattr(logsync, "HELPER", HOLDING_HELPER)
    games = [store.create(Game(CODE), None) for _ in range(20)]
    path = Path(str(store.url.database))
    hold.touch()

    async def scenario() -> tuple[bool, list[tuple[StoredGame, None] | None]]:
        first = asyncio.ensure_future(store.aupdate(games[0].id, draw))
        # The loop runs on while the first move, committed, waits for its sync...
        await until(lambda: version_on(path, games[0].id) == 2, "the first move is committed")
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
    assert store._log is not None and store._log.syncs == 2


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


def test_a_write_lock_held_past_the_busy_timeout_is_store_unavailable(
    store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql, "SQLITE_BUSY_TIMEOUT_S", 0.3)
    stored = store.create(Game(CODE), None)
    other = sqlite3.connect(Path(str(store.url.database)), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="locked"):
            run(store.aupdate(stored.id, draw))
        # It waited the busy timeout first (less the last pause between tries, at most 20 ms).
        assert time.monotonic() - started >= 0.3 - sql.SQLITE_LOOP_RETRY_MOST_S
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.get(stored.id) == stored  # nothing was changed


def test_the_sync_helper_is_started_again_when_it_dies(
    store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = store.create(Game(CODE), None)
    assert run(store.aupdate(stored.id, draw)) is not None
    assert store._log is not None and store._log._helper is not None
    first = store._log._helper
    first.send_signal(signal.SIGKILL)
    first.wait()
    moved = run(store.aupdate(stored.id, draw))  # between two moves: started again
    assert moved is not None and moved[0].version == 3
    second = store._log._helper
    assert second is not None and second.pid != first.pid and second.poll() is None

    # Dying while a sync is asked of it: another helper is asked, and the move is answered.
    hold = tmp_path / "hold"
    monkeypatch.setenv("TRIPEAKS_TEST_HOLD", str(hold))
    monkeypatch.setattr(logsync, "HELPER", HOLDING_HELPER)
    second.send_signal(signal.SIGKILL)
    second.wait()
    hold.touch()

    async def scenario() -> tuple[StoredGame, None] | None:
        move = asyncio.ensure_future(store.aupdate(stored.id, draw))
        log = store._log
        assert log is not None
        await until(lambda: log._helper not in (None, second), "a third helper is started")
        assert not move.done()  # it holds the sync
        third = log._helper
        assert third is not None
        third.send_signal(signal.SIGKILL)
        hold.unlink()
        return await move

    with released_after(hold):
        moved = run(scenario())
    assert moved is not None and moved[0].version == 4 and store.get(stored.id) == moved[0]


def test_the_helper_ignores_ctrl_c_and_ends_with_the_store(tmp_path: Path) -> None:
    """Ctrl-C in a terminal goes to the whole process group: the server shuts down (and closes
    the store), and the helper must not die first or print a traceback of its own."""
    store = SqlStore(f"sqlite:///{tmp_path}/t.db")
    stored = store.create(Game(CODE), None)
    assert run(store.aupdate(stored.id, draw)) is not None
    assert store._log is not None and store._log._helper is not None
    helper = store._log._helper
    helper.send_signal(signal.SIGINT)
    # The signal is handled before the helper reads its next request: had it killed the helper,
    # this sync would be made by a new one.
    moved = run(store.aupdate(stored.id, draw))
    assert moved is not None and moved[0].version == 3 and store._log._helper is helper
    assert helper.poll() is None
    store.close()
    assert helper.returncode == 0


def test_a_helper_that_cannot_run_is_given_up_and_threads_sync(
    store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logsync, "HELPER", "import sys; sys.exit(3)")  # dies as it starts
    synced_in_threads: list[int] = []

    def sync_file(fd: int) -> None:
        synced_in_threads.append(threading.get_ident())
        os.fdatasync(fd)

    monkeypatch.setattr(logsync, "_fdatasync", sync_file)
    stored = store.create(Game(CODE), None)
    synced_in_threads.clear()

    async def play() -> tuple[StoredGame, None] | None:
        moved = None
        for _ in range(5):
            moved = await store.aupdate(stored.id, draw)
        return moved

    moved = run(play())
    assert moved is not None and moved[0].version == 6
    assert store._log is not None and store._log._deaths >= logsync.HELPER_DEATHS
    assert store._log._helper is None  # not started again
    assert len(synced_in_threads) >= 5  # every move's commit was synced, in worker threads


def test_a_failed_sync_is_store_unavailable(store: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
    stored = store.create(Game(CODE), None)
    monkeypatch.setattr(logsync, "HELPER", FAILING_HELPER)
    with pytest.raises(StoreUnavailable, match="No space left on device"):
        run(store.aupdate(stored.id, draw))

    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(logsync, "_fdatasync", failing)
    game = stored.game.copy()
    game.draw()
    current = store.get(stored.id)
    assert current is not None
    with pytest.raises(StoreUnavailable, match="Input/output error"):
        store.save(current, game)


def test_coroutines_on_two_event_loops_at_once(store: SqlStore) -> None:
    """Two loops in two threads (two TestClients on one store, say): one has the helper, the
    other's syncs are made in worker threads; they share the loop writer, taking turns."""
    games = [store.create(Game(CODE), None) for _ in range(8)]

    async def play(mine: list[StoredGame]) -> list[int]:
        for _ in range(15):
            for stored in mine:
                assert await store.aupdate(stored.id, draw_or_undo) is not None
        return [store.get(stored.id).version for stored in mine]  # type: ignore[union-attr]

    elsewhere: list[list[int]] = []
    thread = threading.Thread(target=lambda: elsewhere.append(asyncio.run(play(games[:4]))))
    thread.start()
    here = run(play(games[4:]))
    thread.join()
    assert here == [16] * 4 and elsewhere == [[16] * 4]


def test_the_log_starts_over_although_writes_never_pause(store: SqlStore) -> None:
    """Under steady writing a PASSIVE checkpoint never copies all of the log, and SQLite
    starts the log over only after one that did: the checkpoint thread copies the rest once the
    log is long (holding writers off for that moment) and starts it over with a write of its
    own, so that no move's commit on the event loop has to sync the new log's header."""
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

    run(play(sql.SQLITE_RESTART_LOG_FRAMES))  # at least a frame a move
    before = log_restarts()
    run(play(10))
    assert log_restarts() == before  # no checkpoint ran: the log only grew
    store._checkpoint()
    assert log_restarts() == before + 1  # started over by the checkpoint itself, no move since
    size = wal.stat().st_size
    for _ in range(3):
        run(play(sql.SQLITE_RESTART_LOG_FRAMES))
        store._checkpoint()
    assert log_restarts() == before + 4  # once a round, each by the checkpoint
    assert wal.stat().st_size < 2 * size  # the log is reused from its start, not grown
    current = store.get(game_id)
    assert current is not None and current.version == 1 + 4 * sql.SQLITE_RESTART_LOG_FRAMES + 10
