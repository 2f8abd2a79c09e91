"""The store's coroutine methods (``aget``, ``aupdate``, ``aread``) on every backend.
How the SQLite store makes and syncs its writes is in test_sqlite_writes.py."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from app.engine import Game, GameCode, RefusedAction
from app.store.base import GameStore, StoredGame, StoreUnavailable
from app.store.database.sql import SqlStore
from app.store.database.sqlite import SqliteDatabase
from tests.support.store import BACKENDS, draw, run

CODE = GameCode.parse("TP1-E-AAAAAAB")
T = TypeVar("T")


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SqlStore]:
    store = SqlStore(f"sqlite:///{tmp_path}/t.db")
    yield store
    store.close()


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


def test_sqlite_sync_thread_stops_with_the_store(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path}/t.db")
    stored = store.create(Game(CODE), None)
    assert run(store.aupdate(stored.id, draw)) is not None
    database = store._db
    assert isinstance(database, SqliteDatabase)
    assert all(t.is_alive() for t in database._threads)
    assert database.syncs >= 2  # the create's, the move's
    store.close()
    assert not any(t.is_alive() for t in database._threads)
    with pytest.raises(StoreUnavailable, match="closed"):
        run(store.aupdate(stored.id, draw))
    with pytest.raises(StoreUnavailable, match="closed"):
        store.update(stored.id, draw)


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_aread_reads_on_the_loop_only_when_reads_are_local(store: GameStore) -> None:
    async def where() -> bool:
        loop_thread = threading.get_ident()
        return await store.aread(lambda: threading.get_ident() == loop_thread)

    assert run(where()) is store.local_reads
    assert store.local_reads is (not isinstance(store, SqlStore) or store.dialect == "sqlite")


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
