"""The run counter and the game clock: shown beside the score, never part of it."""

from __future__ import annotations

import json

import pytest

from app.engine import DRAW, Game, StateError, Status
from app.engine.state import game_from_state, state_of
from tests.support.games import new_game, winning_line

DEAL_1 = "TP1-E-AAAAAAB"
T0 = 1_800_000_000.0


def runs_by_hand(line: list[int]) -> list[tuple[int, int]]:
    """(run, longest run) after each action, counted the plain way."""
    out, run, longest = [], 0, 0
    for action in line:
        run = 0 if action == DRAW else run + 1
        longest = max(longest, run)
        out.append((run, longest))
    return out


# -- the run -------------------------------------------------------------------------------


def test_a_new_game_has_no_run() -> None:
    game = Game.from_code(DEAL_1)
    assert (game.run, game.longest_run) == (0, 0)


def test_run_grows_with_removals_and_a_draw_ends_it() -> None:
    line = winning_line(DEAL_1, 23)
    game = Game.from_code(DEAL_1)
    for action, expected in zip(line, runs_by_hand(line), strict=True):
        score, peaks = game.score, sum(game.peaks_cleared)
        game.replay([action])
        assert (game.run, game.longest_run) == expected
        # Display only: the score moves by the SPEC's -1 (and +100 a peak), whatever the run.
        assert game.score == score - 1 + 100 * (sum(game.peaks_cleared) - peaks)
    assert game.status is Status.WON
    assert game.longest_run == max(r for r, _ in runs_by_hand(line))
    assert game.longest_run >= 1


def test_score_does_not_depend_on_the_run() -> None:
    line = winning_line(DEAL_1, 23)
    game = new_game(DEAL_1, line)
    assert game.score == 500 - len(line) + 300


def test_undo_restores_run_and_longest_run_exactly() -> None:
    line = winning_line(DEAL_1, 23)[:-1]  # short of the win, so every step can be undone
    game = Game.from_code(DEAL_1)
    seen = [(game.run, game.longest_run, game.score)]
    for action in line:
        game.replay([action])
        seen.append((game.run, game.longest_run, game.score))
    for expected in reversed(seen[:-1]):
        game.undo()
        assert (game.run, game.longest_run, game.score) == expected
    assert (game.run, game.longest_run) == (0, 0)


def test_longest_run_counts_the_line_in_effect_not_undone_actions() -> None:
    line = winning_line(DEAL_1, 23)
    first_draw = line.index(DRAW)
    assert first_draw >= 2, "the test wants a run of two before the first draw"
    game = new_game(DEAL_1, line[:first_draw])
    assert game.run == game.longest_run == first_draw
    for _ in range(first_draw):
        game.undo()
    game.draw()
    assert (game.run, game.longest_run) == (0, 0)


def test_run_survives_a_round_trip_through_to_dict() -> None:
    line = winning_line(DEAL_1, 23)
    game = new_game(DEAL_1, line[:20])
    back = game_from_state(json.loads(json.dumps(state_of(game))))
    assert (back.run, back.longest_run) == (game.run, game.longest_run)


# -- the clock -----------------------------------------------------------------------------


def test_clock_starts_with_the_first_action_not_the_deal() -> None:
    game = Game.from_code(DEAL_1)
    game.note_time(T0)
    assert game.started_at is None and game.elapsed(T0 + 5) is None
    game.draw()
    game.note_time(T0 + 7)
    assert game.started_at == T0 + 7
    assert game.elapsed(T0 + 7) == 0
    assert game.elapsed(T0 + 72.5) == 65.5
    game.draw()
    game.note_time(T0 + 80)  # later actions do not move the start
    assert game.started_at == T0 + 7


def test_a_game_never_told_the_time_has_no_clock() -> None:
    game = new_game(DEAL_1, winning_line(DEAL_1, 23))
    assert game.status is Status.WON
    assert game.started_at is None and game.ended_after is None and game.elapsed(T0) is None
    assert "started" not in state_of(game) and "ended_after" not in state_of(game)


def test_clock_stops_when_the_game_is_won() -> None:
    line = winning_line(DEAL_1, 23)
    game = Game.from_code(DEAL_1)
    for i, action in enumerate(line):
        game.replay([action])
        game.note_time(T0 + 10 * i)
    assert game.status is Status.WON
    took = 10 * (len(line) - 1)
    assert game.ended_after == took
    assert game.elapsed(T0 + 10**6) == took
    game.note_time(T0 + 10**6)  # an ended clock stays as it stopped
    assert game.ended_after == took


def test_blocked_stops_the_clock_and_undo_starts_it_again() -> None:
    game = Game.from_code("TP1-E-AAAAAAA")
    for i in range(23):
        game.draw()
        game.note_time(T0 + i)
    assert game.status is Status.BLOCKED
    assert game.ended_after == 22
    assert game.elapsed(T0 + 500) == 22
    game.undo()
    assert game.ended_after is None
    assert game.started_at == T0
    assert game.elapsed(T0 + 500) == 500
    assert game_from_state(state_of(game)) == game  # a stopped clock undone is a valid state


def test_undo_keeps_the_clock_running_from_the_first_action() -> None:
    game = Game.from_code(DEAL_1)
    game.draw()
    game.note_time(T0)
    game.undo()
    game.note_time(T0 + 3)
    assert game.started_at == T0 and game.elapsed(T0 + 3) == 3


def test_clock_round_trips_and_old_states_without_it_load() -> None:
    game = Game.from_code(DEAL_1)
    game.draw()
    game.note_time(T0 + 0.25)
    data = json.loads(json.dumps(state_of(game)))
    assert data["started"] == T0 + 0.25
    back = game_from_state(data)
    assert back == game and back.started_at == T0 + 0.25
    assert state_of(back) == state_of(game)
    old = {"code": DEAL_1, "line": [-1], "moves": 1, "undo": 1}  # saved before the clock
    loaded = game_from_state(old)
    assert loaded.started_at is None and loaded.elapsed(T0) is None
    assert (loaded.run, loaded.longest_run) == (0, 0)


def test_an_ended_games_clock_round_trips() -> None:
    game = Game.from_code("TP1-E-AAAAAAA")
    for i in range(23):
        game.draw()
        game.note_time(T0 + 2 * i)
    back = game_from_state(json.loads(json.dumps(state_of(game))))
    assert back.ended_after == 44 and back.started_at == T0 and back == game


@pytest.mark.parametrize(
    "clock",
    [
        {"started": "yesterday"},
        {"started": -1},
        {"started": True},
        {"started": float("inf")},
        {"started": T0, "ended_after": float("nan")},
        {"ended_after": 5},  # stopped without a start
        {"started": T0, "ended_after": 5},  # stopped while the game still plays
    ],
)
def test_forged_clocks_are_refused(clock: dict[str, object]) -> None:
    data = {"code": DEAL_1, "line": [-1], "moves": 1, "undo": 1, **clock}
    with pytest.raises(StateError):
        game_from_state(data)


def test_copies_keep_the_clock_apart() -> None:
    game = Game.from_code(DEAL_1)
    game.draw()
    game.note_time(T0)
    other = game.copy()
    assert other == game and other.started_at == T0
    other.draw()
    other.note_time(T0 + 1)
    assert game.moves == 1 and other != game
