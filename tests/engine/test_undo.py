"""Undo (SPEC section 7): what it restores, the move counter, the limit."""

from __future__ import annotations

import pytest

from app.engine import DRAW, UNDO_LIMIT, Action, Game, GameCode, Refusal, RefusedAction
from tests.support.games import new_game, snapshot, winning_line

DEAL_1 = "TP1-E-AAAAAAB"


def test_undo_a_removal() -> None:
    game = Game.from_code(DEAL_1)
    before = snapshot(game, with_moves=False)
    king = game.card_at(21)
    game.remove(21)
    assert game.undo() == Action(21)
    assert game.card_at(21) == king and not game.is_removed(21)
    assert game.waste.text() == "QC"
    assert snapshot(game, with_moves=False) == before
    assert game.moves == 1


def test_undo_a_draw_puts_the_card_back_on_top_of_the_stock() -> None:
    game = new_game(DEAL_1, [21, DRAW, DRAW])
    second = game.waste
    assert game.undo() == Action(None)
    assert game.stock_count == 22 and game.waste == game.deal.stock[0]
    game.draw()
    assert game.waste == second
    game.undo()
    game.undo()
    assert game.waste.text() == "KC" and game.stock_count == 23
    game.undo()
    assert game.waste.text() == "QC"
    assert game.moves == 4


def test_the_move_counter_never_goes_down() -> None:
    game = Game.from_code(DEAL_1)
    seen = [game.moves]
    for action in winning_line(DEAL_1)[:20]:
        game.replay([action])
        seen.append(game.moves)
        game.undo()
        seen.append(game.moves)
        game.replay([action])
        seen.append(game.moves)
    assert seen == sorted(seen)
    assert game.moves == 40 and len(game.line) == 20


def test_nothing_to_undo_at_the_start() -> None:
    game = Game.from_code(DEAL_1)
    before = snapshot(game)
    assert game.refusal_for_undo() is Refusal.NOTHING_TO_UNDO
    with pytest.raises(RefusedAction) as caught:
        game.undo()
    assert caught.value.refusal is Refusal.NOTHING_TO_UNDO
    assert snapshot(game) == before


def test_undo_limit_default() -> None:
    assert UNDO_LIMIT == 100
    assert Game.from_code(DEAL_1).undo_limit == 100


def test_small_undo_limit() -> None:
    game = Game(GameCode.parse(DEAL_1), undo_limit=3)
    for _ in range(4):
        game.draw()
    assert game.undo_available == 3
    for _ in range(3):
        game.undo()
    assert game.drawn == 1 and game.undo_available == 0
    before = snapshot(game)
    with pytest.raises(RefusedAction) as caught:
        game.undo()
    assert caught.value.refusal is Refusal.NOTHING_TO_UNDO
    assert snapshot(game) == before
    assert game.moves == 4


def test_small_undo_limit_counts_the_latest_actions() -> None:
    game = Game(GameCode.parse(DEAL_1), undo_limit=3)
    game.replay([21, DRAW, DRAW, DRAW])  # four actions: three may be undone
    game.undo()
    game.draw()  # the line is 21, draw, draw, draw again
    assert game.undo_available == 3
    for _ in range(3):
        game.undo()
    assert game.line == (Action(21),)
    assert game.refusal_for_undo() is Refusal.NOTHING_TO_UNDO
    game.draw()
    assert game.undo_available == 1


def test_default_limit_is_never_reached_in_real_play() -> None:
    # A line holds at most 51 actions (28 removals, 23 draws) and the 51st wins
    # the game, after which nothing can be undone: the longest undoable line is 50.
    line = winning_line(DEAL_1, 23)[:-1]
    assert len(line) == 50
    game = new_game(DEAL_1, line)
    assert game.undo_available == 50
    for _ in range(3):  # over 100 moves in all: every action in effect stays undoable
        for _ in range(50):
            game.undo()
        assert game.refusal_for_undo() is Refusal.NOTHING_TO_UNDO
        game.replay(line)
        assert game.undo_available == 50
    assert game.moves == 200
    for _ in range(50):
        game.undo()
    assert game.moves == 200 and game.line == ()
    before = snapshot(game)
    with pytest.raises(RefusedAction) as caught:
        game.undo()
    assert caught.value.refusal is Refusal.NOTHING_TO_UNDO
    assert snapshot(game) == before
    assert snapshot(game, with_moves=False) == snapshot(Game.from_code(DEAL_1), with_moves=False)


def test_undo_step_by_step_along_a_whole_game() -> None:
    line = winning_line(DEAL_1, 23)
    game = Game.from_code(DEAL_1)
    states = [snapshot(game, with_moves=False)]
    for action in line[:-1]:
        game.replay([action])
        states.append(snapshot(game, with_moves=False))
    for expected in reversed(states[:-1]):
        game.undo()
        assert snapshot(game, with_moves=False) == expected
