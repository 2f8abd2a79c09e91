"""The store's coroutine methods (``aget``, ``aupdate``, ``aread``) on every backend,
and how the SQLite store commits what coroutines await: in its commit thread, in batches,
without holding up the event loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from app.engine import Game, GameCode, RefusedAction
from app.store import sql
from app.store.base import GameStore, StoredGame, StoreUnavailable
from app.store.sql import SqlStore, _Pending
from tests.store.conftest import BACKENDS
from tests.store.helpers import run

CODE = GameCode.parse("TP1-E-AAAAAAB")
T = TypeVar("T")


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SqlStore]:
    store = SqlStore(f"sqlite:///{tmp_path}/t.db")
    yield store
    store.close()


def draw(game: Game) -> None:
    game.draw()


def draw_or_undo(game: Game) -> None:
    game.draw() if game.can_draw() else game.undo()


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_aget_is_get(store: GameStore) -> None:
    stored = store.create(Game(CODE), None)

    async def read() -> tuple[StoredGame | None, StoredGame | None]:
        return await store.aget(stored.id), await store.aget("no-such-game")

    assert run(read()) == (stored, None)


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_aupdate_checks_whose_game_it_is(store: GameStore) -> None:
    """With ``owned_by``, someone else's game is as good as none: nothing is changed."""
    stored = store.create(Game(CODE), "alice-player-id-0000000001")
    assert run(store.aupdate(stored.id, draw, owned_by="bob-player-id-00000000001")) is None
    assert store.get(stored.id) == stored
    mine = run(store.aupdate(stored.id, draw, owned_by="alice-player-id-0000000001"))
    assert mine is not None and mine[0].version == 2 and store.get(stored.id) == mine[0]


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
            updated = await store.aupdate(stored.id, draw)
            assert updated is not None
            stored = updated[0]
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
            game = current.game.copy()
            game.draw()
            current = store.save(current, game)
        thread_saves.append(current)

    async def everyone() -> list[StoredGame]:
        worker = threading.Thread(target=thread_player)
        worker.start()
        updated = await asyncio.gather(*(store.aupdate(g.id, draw) for g in games))
        await asyncio.to_thread(worker.join)
        return [u[0] for u in updated if u is not None]

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

    async def scenario() -> tuple[int, bool, tuple[StoredGame, None] | None]:
        holder = threading.Thread(target=hold_the_commit_lock)
        holder.start()
        await asyncio.to_thread(holding.wait, 10)
        save = asyncio.ensure_future(store.aupdate(stored.id, draw))
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
    assert saved is not None and saved[0].version == 2 and store.get(stored.id) == saved[0]


def test_sqlite_commit_thread_stops_with_the_store(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path}/t.db")
    stored = store.create(Game(CODE), None)
    assert store._committer is not None and store._committer.is_alive()
    store.close()
    assert not store._committer.is_alive()
    with pytest.raises(StoreUnavailable):
        run(store.aupdate(stored.id, draw))


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
        game_id = store.create(Game(CODE), None).id

        async def play(moves: int) -> None:
            for _ in range(moves):
                await store.aupdate(game_id, draw_or_undo)

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
