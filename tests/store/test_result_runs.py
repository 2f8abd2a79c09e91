"""Each result keeps its game's longest run and time; statistics show the longest run and the
fastest win per rule set; the schema step that added them keeps the results made before."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import text

from app.engine import DRAW, Game, GameCode, Rules, Status
from app.store.base import GameStore, StoredGame
from app.store.database.schema import SCHEMA_VERSION
from app.store.database.sql import SqlStore
from tests.support.deals import won_deal
from tests.support.store import SQL_BACKENDS, Clock

ALICE = "alice-player-id-0000000001"
BOB = "bob-player-id-00000000000002"


def play_timed(
    store: GameStore, clock: Clock, owner: str | None, code: GameCode, line: tuple[int, ...], *, step: float
) -> StoredGame:
    """Play a line through the store, one action every ``step`` seconds, telling the game the time."""
    stored = store.create(Game(code), owner)
    for action in line:
        clock.advance(step)

        def act(game: Game, action: int = action) -> None:
            game.replay([action])
            game.note_time(clock())

        updated = store.update(stored.id, act)
        assert updated is not None
        stored = updated[0]
    return stored


def longest_run_of(line: tuple[int, ...]) -> int:
    longest = run = 0
    for action in line:
        run = 0 if action == DRAW else run + 1
        longest = max(longest, run)
    return longest


def test_a_won_result_keeps_its_longest_run_and_time(store: GameStore, clock: Clock) -> None:
    code, line = won_deal(Rules.EASY)
    stored = play_timed(store, clock, ALICE, code, line, step=2.0)
    assert stored.game.status is Status.WON
    result = store.result(stored.id)
    assert result is not None and result.won
    assert result.longest_run == longest_run_of(line) == stored.game.longest_run
    assert result.seconds == pytest.approx(2.0 * (len(line) - 1))
    # What the store reads back is what it wrote (the SQL stores: from their columns).
    assert store.result(stored.id) == result


def test_a_game_left_unfinished_keeps_its_run_but_no_time(store: GameStore, clock: Clock) -> None:
    code, line = won_deal(Rules.EASY)
    stored = play_timed(store, clock, ALICE, code, line[:5], step=1.0)
    store.create(Game(code), ALICE)  # leave it
    result = store.result(stored.id)
    assert result is not None and not result.won
    assert result.longest_run == longest_run_of(line[:5])
    assert result.seconds is None  # it never ended: no time to compare


def test_stats_show_longest_run_and_fastest_win_per_rule_set(store: GameStore, clock: Clock) -> None:
    code, line = won_deal(Rules.EASY)
    classic_code, classic_line = won_deal(Rules.CLASSIC)
    fresh = store.player_stats(ALICE)
    assert all(s.longest_run is None and s.fastest_win is None for s in fresh)

    play_timed(store, clock, ALICE, code, line, step=3.0)
    play_timed(store, clock, ALICE, code, line, step=1.5)  # faster
    play_timed(store, clock, ALICE, code, line, step=4.0)
    play_timed(store, clock, ALICE, classic_code, classic_line, step=5.0)
    play_timed(store, clock, BOB, code, line, step=0.5)  # someone else's is not Alice's
    easy, classic = store.player_stats(ALICE)
    assert easy.won == 3
    assert easy.longest_run == longest_run_of(line)
    assert easy.fastest_win == pytest.approx(1.5 * (len(line) - 1))
    assert classic.longest_run == longest_run_of(classic_line)
    assert classic.fastest_win == pytest.approx(5.0 * (len(classic_line) - 1))


def test_an_unfinished_run_counts_for_the_longest_run_not_for_the_fastest_win(
    store: GameStore, clock: Clock
) -> None:
    code, line = won_deal(Rules.EASY)
    first_draw = line.index(DRAW) if DRAW in line else len(line) - 1
    play_timed(store, clock, ALICE, code, line[:first_draw], step=0.1)
    store.create(Game(code), ALICE)  # leave it: a result without a win, counted once it is gone
    assert store.player_stats(ALICE)[0].played == 0
    clock.advance(31 * 86400)
    store.cleanup_idle(dt.timedelta(days=30))
    easy, _ = store.player_stats(ALICE)
    assert easy.played == 1 and easy.won == 0
    assert easy.longest_run == first_draw
    assert easy.fastest_win is None


def test_untimed_wins_do_not_count_as_fastest(store: GameStore) -> None:
    code, line = won_deal(Rules.EASY)
    stored = store.create(Game(code), ALICE)
    game = stored.game.copy()
    game.replay(line)  # never told the time
    store.save(stored, game)
    easy, _ = store.player_stats(ALICE)
    assert easy.won == 1 and easy.fastest_win is None
    assert easy.longest_run == longest_run_of(line)


@pytest.mark.parametrize("database_url", SQL_BACKENDS, indirect=True)
def test_schema_step_2_adds_the_columns_and_keeps_older_results(database_url: str) -> None:
    """A database made by the release before (schema 1) opens, gains the columns, and its
    results read back with no run or time; new results then keep theirs."""
    code, line = won_deal(Rules.EASY)
    clock = Clock()
    store = SqlStore(database_url, clock=clock)
    old = play_timed(store, clock, ALICE, code, line, step=1.0)
    with store._engine.begin() as conn:  # back to schema 1: as the release before left it
        for column in ("longest_run", "seconds", "line"):  # the columns step 2 adds
            conn.execute(text(f"ALTER TABLE tp_results DROP COLUMN {column}"))
        conn.execute(text("UPDATE tp_schema SET version = 1"))
    store.close()

    store = SqlStore(database_url, clock=clock)
    try:
        with store._engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM tp_schema")).scalar_one() == SCHEMA_VERSION
            assert conn.execute(text("SELECT longest_run, seconds FROM tp_results")).all() == [(None, None)]
        result = store.result(old.id)
        assert result is not None and result.won and result.longest_run is None and result.seconds is None
        assert store.player_stats(ALICE)[0].fastest_win is None
        new = play_timed(store, clock, ALICE, code, line, step=2.0)
        result = store.result(new.id)
        assert result is not None and result.seconds == pytest.approx(2.0 * (len(line) - 1))
        easy = store.player_stats(ALICE)[0]
        assert easy.played == 2 and easy.longest_run == longest_run_of(line)
        assert easy.fastest_win == pytest.approx(2.0 * (len(line) - 1))
    finally:
        store.close()
