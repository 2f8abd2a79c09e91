"""Each result keeps its game's line (for its review), on every backend; recent results."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from app.engine import Game, GameCode
from app.engine.line import Line
from app.store.base import GameStore
from app.store.results import line_text
from tests.support.store import BACKENDS, SQL_BACKENDS, Clock, greedy


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_a_result_keeps_the_line_of_its_game(store: GameStore, clock: Clock) -> None:
    codes = [GameCode.parse("TP1-E-AAAAAAB"), GameCode.parse("TP1-C-AAAAAAD")]
    ids = []
    for code in codes:
        ended = greedy(code, prefer_draw=False)
        stored = store.create(Game(code), "p1")
        saved = store.save(stored, ended)  # the game ends: its result is recorded
        ids.append(saved.id)
        result = store.result(saved.id)
        assert result is not None and result.line == Line.of(ended).text() == line_text(ended)
        assert Line.parse(result.line).games(code)[-1].removed_mask == ended.removed_mask
        clock.advance(10)
    recent = store.recent_results("p1", 10)
    assert [r.game_id for r in recent] == ids[::-1]  # newest first
    assert [r.game_id for r in store.recent_results("p1", 1)] == ids[-1:]
    assert store.recent_results("nobody", 10) == []


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_a_version_1_database_gets_the_line_column(database_url: str) -> None:
    from app.store.database.sql import SqlStore

    store = SqlStore(database_url)
    code = GameCode.parse("TP1-E-AAAAAAB")
    ended = greedy(code, prefer_draw=False)
    before = store.save(store.create(Game(code), "p1"), ended)
    with store._engine.begin() as conn:  # as a release before this step left it
        for column in ("longest_run", "seconds", "line"):  # the columns step 2 adds
            conn.execute(text(f"ALTER TABLE tp_results DROP COLUMN {column}"))
        conn.execute(text("UPDATE tp_schema SET version = 1"))
    store.close()
    store = SqlStore(database_url)
    try:
        old = store.result(before.id)
        assert old is not None and old.line == ""  # kept before lines were
        after = store.save(store.create(Game(code), "p1"), ended)
        new = store.result(after.id)
        assert new is not None and new.line == Line.of(ended).text()
    finally:
        store.close()
