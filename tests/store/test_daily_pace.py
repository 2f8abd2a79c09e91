"""The pace of a daily attempt (issue 39, the runs to beat): each action's strip figures and
its time on the game's clock, kept while the attempt runs, on every backend; schema step 11."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, text

from app.engine import DRAW, Action, Game, Rules, Status
from app.store.base import GameStore
from app.store.database.schema import SCHEMA_VERSION
from tests.support.attempts import begin, blocked_line, today
from tests.support.store import BACKENDS, SQL_BACKENDS, Clock, play_timed, two_wins


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_an_attempt_keeps_each_action_and_its_time_and_no_more(store: GameStore, clock: Clock) -> None:
    code, _, _ = two_wins(Rules.EASY)
    line = blocked_line(code)
    stored, began = begin(store, clock, "ann", code)
    assert began and store.pace(stored.id) == []
    stored = play_timed(store, clock, stored, line[:3], step=2.5, hints_at=[1])  # a hint is no action
    stored = play_timed(store, clock, stored, line[3:], step=1.5)
    assert stored.game.status is Status.BLOCKED
    marks = store.pace(stored.id)
    assert [m.n for m in marks] == list(range(len(line)))
    expected = [0.0, 2.5, 5.0, *(5.0 + 1.5 * i for i in range(1, len(line) - 2))]
    assert [m.after for m in marks] == pytest.approx(expected)
    replay = Game(code)
    for mark, position in zip(marks, line, strict=True):
        replay.play(Action(None if position == DRAW else position))
        assert (mark.cards_left, mark.score, mark.stock_left) == (replay.cards_left(), replay.score, replay.stock_count)
    assert marks[-1].after == store.attempt(today(clock), "ann").seconds  # type: ignore[union-attr]
    # Played on after its end (an undo after the block): practice, not in its pace
    store.update(stored.id, lambda g: g.undo())
    assert len(store.pace(stored.id)) == len(line)
    # A practice game of the deal keeps no pace
    practice = store.create(Game(code), "ann")
    play_timed(store, clock, practice, line[:2])
    assert store.pace(practice.id) == []


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_a_database_before_step_11_gains_the_pace_table(database_url: str) -> None:
    from app.store.database.sql import SqlStore

    store = SqlStore(database_url)
    with store._engine.begin() as conn:
        conn.execute(text("DROP TABLE tp_daily_pace"))
        conn.execute(text("UPDATE tp_schema SET version = 8"))
    store.close()
    store = SqlStore(database_url)
    try:
        with store._engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM tp_schema")).scalar_one() == SCHEMA_VERSION
            assert inspect(conn).get_pk_constraint("tp_daily_pace")["constrained_columns"] == ["game_id", "n"]
    finally:
        store.close()
