"""The store's coroutine methods (``aget``, ``asave``, ``aupdate``, ``aread``) on every backend,
and how the SQLite store commits what coroutines await: in its commit thread, in batches,
without holding up the event loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Coroutine, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from app.engine import Game, GameCode, RefusedAction
from app.store import sql
from app.store.base import GameStore, StoredGame, StoreUnavailable, VersionConflict
from app.store.sql import SqlStore, _Pending
from tests.store.conftest import BACKENDS

CODE = GameCode.parse("TP1-E-AAAAAAB")
T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: this one may hold another loop (the browser
    tests' Playwright keeps one running for the session)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SqlStore]:
    store = SqlStore(f"sqlite:///{tmp_path}/t.db")
    yield store
    store.close()


def drawn(stored: StoredGame) -> Game:
    game = stored.game.copy()
    game.draw()
    return game


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_asave_and_aget_are_save_and_get(store: GameStore) -> None:
    stored = store.create(Game(CODE), "alice-player-id-0000000001")

    async def play() -> tuple[StoredGame, StoredGame | None, StoredGame | None]:
        saved = await store.asave(stored, drawn(stored))
        return saved, await store.aget(stored.id), await store.aget("no-such-game")

    saved, got, unknown = run(play())
    assert saved.version == 2 and saved.game.moves == 1
    assert got == saved and store.get(stored.id) == saved
    assert unknown is None


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_a_stale_asave_conflicts_and_changes_nothing(store: GameStore) -> None:
    stored = store.create(Game(CODE), None)
    first = store.save(stored, drawn(stored))
    with pytest.raises(VersionConflict):
        run(store.asave(stored, drawn(stored)))
    assert store.get(stored.id) == first


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_aupdate_applies_or_refuses_as_update_does(store: GameStore) -> None:
    stored = store.create(Game(CODE), None)

    def take_back(game: Game) -> None:
        game.undo()

    async def play() -> tuple[object, object]:
        updated = await store.aupdate(stored.id, lambda game: game.draw())
        with pytest.raises(RefusedAction):
            await store.aupdate(stored.id, lambda game: game.remove(0))  # covered: refused
        await store.aupdate(stored.id, take_back)
        return updated, await store.aupdate("no-such-game", take_back)

    updated, unknown = run(play())
    assert updated is not None and updated[0].version == 2  # type: ignore[index]
    assert unknown is None
    expected = Game(CODE)
    expected.draw()
    expected.undo()
    after = store.get(stored.id)
    assert after is not None and after.version == 3 and after.game == expected


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_many_coroutines_save_at_once_and_nothing_is_lost(store: GameStore) -> None:
    games = [store.create(Game(CODE), f"player-{i:03d}-xxxxxxxxxxxxxxx") for i in range(20)]

    async def player(stored: StoredGame) -> StoredGame:
        for _ in range(5):
            stored = await store.asave(stored, drawn(stored))
        return stored

    async def everyone() -> list[StoredGame]:
        return await asyncio.gather(*(player(g) for g in games))

    finals = run(everyone())
    for final in finals:
        assert final.version == 6
        assert store.get(final.id) == final


def test_sqlite_group_commits_what_coroutines_await(sqlite_store: SqlStore) -> None:
    """Writes awaited together are made in shared transactions (fewer syncs to disk than
    writes), and a thread writing for itself meanwhile shares the same queue."""
    store = sqlite_store
    batches: list[int] = []
    run_batch = store._run_batch

    def counted(batch: Sequence[_Pending]) -> None:
        batches.append(len(batch))
        run_batch(batch)

    store._run_batch = counted  # type: ignore[method-assign]
    games = [store.create(Game(CODE), f"player-{i:03d}-xxxxxxxxxxxxxxx") for i in range(40)]
    by_thread = store.create(Game(CODE), None)
    batches.clear()
    thread_saves: list[StoredGame] = []

    def thread_player() -> None:
        current = by_thread
        for _ in range(10):
            current = store.save(current, drawn(current))
        thread_saves.append(current)

    async def everyone() -> list[StoredGame]:
        worker = threading.Thread(target=thread_player)
        worker.start()
        saved = await asyncio.gather(*(store.asave(g, drawn(g)) for g in games))
        await asyncio.to_thread(worker.join)
        return saved

    saved = run(everyone())
    assert [s.version for s in saved] == [2] * 40
    assert thread_saves and store.get(by_thread.id) == thread_saves[0]
    assert sum(batches) == 40 + 10
    assert len(batches) < 40, f"no batching: {batches}"


def test_sqlite_awaits_its_commit_without_holding_up_the_loop(sqlite_store: SqlStore) -> None:
    store = sqlite_store
    stored = store.create(Game(CODE), None)
    release = threading.Event()
    holding = threading.Event()

    def hold_the_commit_lock() -> None:  # as a long commit would
        with store._commit_lock:
            holding.set()
            release.wait(10)

    async def scenario() -> tuple[int, bool, StoredGame]:
        holder = threading.Thread(target=hold_the_commit_lock)
        holder.start()
        await asyncio.to_thread(holding.wait, 10)
        save = asyncio.ensure_future(store.asave(stored, drawn(stored)))
        ticks = 0
        for _ in range(50):  # the loop keeps running other work meanwhile
            await asyncio.sleep(0.002)
            ticks += 1
        waiting = not save.done()
        release.set()
        saved = await save
        await asyncio.to_thread(holder.join)
        return ticks, waiting, saved

    ticks, waiting, saved = run(scenario())
    assert ticks == 50 and waiting
    assert saved.version == 2 and store.get(stored.id) == saved


def test_sqlite_asave_when_locked_is_store_unavailable_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql, "SQLITE_BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "t.db"
    store = SqlStore(f"sqlite:///{path}")
    try:
        stored = store.create(Game(CODE), None)
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            with pytest.raises(StoreUnavailable):
                run(store.asave(stored, drawn(stored)))
            assert store.get(stored.id) == stored
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert run(store.asave(stored, drawn(stored))).version == 2
    finally:
        store.close()


def test_sqlite_commit_thread_stops_with_the_store(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path}/t.db")
    stored = store.create(Game(CODE), None)
    assert store._committer is not None and store._committer.is_alive()
    store.close()
    assert not store._committer.is_alive()
    with pytest.raises(StoreUnavailable):
        run(store.asave(stored, drawn(stored)))


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_aread_reads_on_the_loop_only_when_reads_are_local(store: GameStore) -> None:
    async def where() -> bool:
        loop_thread = threading.get_ident()
        return await store.aread(lambda: threading.get_ident() == loop_thread)

    assert run(where()) is store.local_reads
    assert store.local_reads is (not isinstance(store, SqlStore) or store.dialect == "sqlite")


def test_sqlite_log_starts_over_although_writes_never_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit thread copies the tail of the write-ahead log between two batches, so the
    next transaction starts the log over: under steady writing the log does not grow for ever
    (the checkpoint thread alone never quite catches up with it)."""
    monkeypatch.setattr(sql, "SQLITE_CHECKPOINT_EVERY_S", 3600.0)  # neither runs by itself
    path = tmp_path / "t.db"
    store = SqlStore(f"sqlite:///{path}")

    def log_restarts() -> int:
        """The log's checkpoint sequence number: its header counts each time it starts over
        (https://www.sqlite.org/fileformat2.html#walformat)."""
        header = path.with_name(path.name + "-wal").read_bytes()[:32]
        return int.from_bytes(header[12:16], "big")

    try:
        stored = store.create(Game(CODE), None)

        async def play(moves: int) -> None:
            nonlocal stored
            for _ in range(moves):
                game = stored.game.copy()
                game.draw() if game.can_draw() else game.undo()
                stored = await store.asave(stored, game)

        run(play(100))
        before = log_restarts()
        run(play(10))
        assert log_restarts() == before  # no checkpoint ran: the log only grew
        store._next_tail_checkpoint = 0.0  # due now: after the next batch
        run(play(2))  # the tail is copied after the first; the second starts over
        assert log_restarts() > before
    finally:
        store.close()


def test_sqlite_aupdate_applies_on_top_of_what_another_process_saved(tmp_path: Path) -> None:
    """What a store last saw of a game may be old: another process (another store on the same
    file) may have saved it since. The move lands on the fresh state, and a refusal is
    decided on the fresh state too."""
    url = f"sqlite:///{tmp_path}/t.db"
    here, there = SqlStore(url), SqlStore(url)
    try:
        game_id = here.create(Game(CODE), None).id

        def draw(game: Game) -> None:
            game.draw()

        def undo(game: Game) -> None:
            game.undo()

        expected = Game(CODE)
        assert run(here.aupdate(game_id, draw)) is not None  # here knows version 2
        expected.draw()
        there.update(game_id, draw)  # version 3, behind its back
        expected.draw()
        moved = run(here.aupdate(game_id, draw))
        expected.draw()
        assert moved is not None and moved[0].version == 4 and moved[0].game == expected

        for _ in range(3):  # elsewhere, every draw is taken back: nothing left to undo
            there.update(game_id, undo)
        with pytest.raises(RefusedAction):  # though here the last known state could undo
            run(here.aupdate(game_id, undo))
        there.update(game_id, draw)  # and now there is something to undo again
        undone = run(here.aupdate(game_id, undo))  # though here it last saw nothing to undo
        assert undone is not None and undone[0].version == 9
        assert here.get(game_id) == there.get(game_id) == undone[0]
    finally:
        here.close()
        there.close()
