"""Moves and the end of the game (SPEC sections 4 and 5)."""

from __future__ import annotations

import pytest

from app.engine import (
    DRAW,
    Action,
    Game,
    GameCode,
    PositionError,
    Refusal,
    RefusedAction,
    Rules,
    Status,
    ranks_adjacent,
)
from app.engine.words import describe_board
from tests.support.games import new_game, snapshot, winning_line
from tests.support.three_peaks import COVERED_BY

# TP1-E-AAAAAAB: waste QC; bottom row 2C AD 6S KC KH 10H 10S JS 10D 8S (positions 18-27).
DEAL_1 = "TP1-E-AAAAAAB"


def spec_exposed(game: Game, position: int) -> bool:
    return not game.is_removed(position) and all(game.is_removed(q) for q in COVERED_BY[position])


def test_new_game() -> None:
    game = Game.from_code(DEAL_1)
    assert game.code == GameCode.parse(DEAL_1)
    assert game.rules is Rules.EASY
    assert game.waste.text() == "QC"
    assert game.stock_count == 23 and game.drawn == 0
    assert game.moves == 0 and game.score == 500
    assert game.status is Status.PLAYING and not game.is_over
    assert game.line == () and game.undo_available == 0
    assert game.cards_left() == 28
    assert [p for p in range(28) if game.is_exposed(p)] == list(range(18, 28))
    assert [p for p in range(28) if game.is_face_up(p)] == list(range(18, 28))
    assert game.playable_positions() == [21, 22, 25]  # KC, KH, JS on the QC


def test_remove_puts_the_card_on_the_waste() -> None:
    game = Game.from_code(DEAL_1)
    king = game.card_at(21)
    game.remove(21)
    assert game.waste == king
    assert game.card_at(21) is None and game.is_removed(21)
    assert not game.is_exposed(21)
    assert game.cards_left() == 27
    assert game.moves == 1 and game.score == 499
    assert game.line == (Action(21),)


def test_remove_any_suit_one_above_or_below() -> None:
    game = Game.from_code(DEAL_1)  # waste queen of clubs
    assert game.refusal_for_remove(22) is None  # king of hearts: other colour, one above
    assert game.refusal_for_remove(25) is None  # jack of spades: one below
    assert game.refusal_for_remove(23) is Refusal.RANK_MISMATCH  # 10 of hearts
    assert game.refusal_for_remove(18) is Refusal.RANK_MISMATCH  # 2 of clubs


def test_ranks_adjacent_table() -> None:
    for rules in Rules:
        for a in range(1, 14):
            for b in range(1, 14):
                expected = abs(a - b) == 1 or (rules is Rules.EASY and {a, b} == {1, 13})
                assert ranks_adjacent(a, b, rules) is expected, (a, b, rules)
    # Q-K-A-2 is a run in easy rules only.
    assert ranks_adjacent(12, 13, Rules.EASY) and ranks_adjacent(13, 1, Rules.EASY)
    assert ranks_adjacent(1, 2, Rules.EASY)
    assert not ranks_adjacent(13, 1, Rules.CLASSIC) and not ranks_adjacent(1, 13, Rules.CLASSIC)
    assert ranks_adjacent(12, 13, Rules.CLASSIC) and ranks_adjacent(1, 2, Rules.CLASSIC)


@pytest.mark.parametrize(
    ("letters", "waste", "position", "card"),
    [
        ("AAAAAAT", "KD", 21, "AC"),  # an ace on a king
        ("AAAAAAO", "AH", 19, "KD"),  # a king on an ace
    ],
)
def test_king_and_ace_easy_against_classic(letters: str, waste: str, position: int, card: str) -> None:
    easy = Game.from_code(f"TP1-E-{letters}")
    classic = Game.from_code(f"TP1-C-{letters}")
    assert easy.waste.text() == classic.waste.text() == waste
    assert easy.card_at(position).text() == card  # type: ignore[union-attr]
    assert easy.is_exposed(position) and classic.is_exposed(position)
    before = snapshot(classic)
    with pytest.raises(RefusedAction) as caught:
        classic.remove(position)
    assert caught.value.refusal is Refusal.RANK_MISMATCH
    assert snapshot(classic) == before
    assert position not in classic.playable_positions()
    assert position in easy.playable_positions()
    easy.remove(position)
    assert easy.waste.text() == card


def test_draw_turns_the_top_stock_card() -> None:
    game = Game.from_code(DEAL_1)
    stock = game.deal.stock
    game.draw()
    assert game.waste == stock[0]
    assert game.stock_count == 22 and game.drawn == 1
    game.draw()
    assert game.waste == stock[1]
    assert game.line == (Action(None), Action(None))
    assert game.moves == 2 and game.score == 498


def test_draw_is_allowed_when_a_removal_is_possible() -> None:
    game = Game.from_code(DEAL_1)
    assert game.playable_positions()
    assert game.can_draw() and game.refusal_for_draw() is None
    game.draw()
    assert game.waste == game.deal.stock[0]


def test_one_pass_through_the_stock() -> None:
    game = Game.from_code(DEAL_1)
    for i in range(23):
        assert game.stock_count == 23 - i
        game.draw()
        assert game.waste == game.deal.stock[i]
    assert game.stock_count == 0 and not game.can_draw()
    assert game.refusal_for_draw() is Refusal.STOCK_EMPTY
    before = snapshot(game)
    with pytest.raises(RefusedAction) as caught:
        game.draw()
    assert caught.value.refusal is Refusal.STOCK_EMPTY
    assert snapshot(game) == before


def test_exposure_and_face_up_follow_removals_and_undo() -> None:
    line = winning_line(DEAL_1)
    game = Game.from_code(DEAL_1)
    turned_up_seen = 0
    for action in line[:-1]:
        hidden_before = {p for p in range(28) if not game.is_removed(p) and not game.is_face_up(p)}
        before = snapshot(game, with_moves=False)
        game.replay([action])
        for p in range(28):
            assert game.is_exposed(p) == game.is_face_up(p) == spec_exposed(game, p)
        turned_up = {p for p in hidden_before if game.is_face_up(p)}
        if action == DRAW:
            assert not turned_up
        else:
            # Exactly the cards the removed card covered and that are now free turn up.
            assert turned_up == {p for p in range(28) if action in COVERED_BY[p] and spec_exposed(game, p)}
            for p in turned_up:
                assert game.card_at(p).words() in describe_board(game)  # type: ignore[union-attr]
        turned_up_seen += len(turned_up)
        # Undo turns them back down, and everything is as it was.
        undone = game.copy()
        undone.undo()
        for p in turned_up:
            assert not undone.is_face_up(p)
        assert snapshot(undone, with_moves=False) == before
        assert undone.moves == game.moves
    assert turned_up_seen == 18  # every card above the bottom row turns up before the win


def test_a_covered_card_turns_up_when_both_covers_are_gone() -> None:
    game = Game.from_code(DEAL_1)
    game.replay([21, 19, 18])  # KC, AD, 2C: 9 (covered by 18, 19) turns up
    assert game.is_exposed(9) and game.is_face_up(9)
    assert not game.is_exposed(10)  # 10 is covered by 19 and 20; 20 is still there
    assert not game.is_exposed(12)  # 12 is covered by 21 and 22
    game.undo()
    assert not game.is_exposed(9) and not game.is_face_up(9)
    assert "row 3: hidden card, hidden card" in describe_board(game)


def test_won_with_stock_left() -> None:
    code = "TP1-E-AAAAAAC"
    line = winning_line(code)
    assert line.count(DRAW) < 23
    game = new_game(code, line[:-1])
    assert game.status is Status.PLAYING and game.cards_left() == 1
    game.replay(line[-1:])
    assert game.status is Status.WON and game.is_over
    assert game.cards_left() == 0 and game.stock_count == 23 - line.count(DRAW) > 0
    assert game.playable_positions() == [] and not game.can_draw()


def test_won_game_refuses_everything() -> None:
    game = new_game(DEAL_1, winning_line(DEAL_1))
    assert game.status is Status.WON
    before = snapshot(game)
    for position in range(28):
        assert game.refusal_for_remove(position) is Refusal.GAME_OVER
        with pytest.raises(RefusedAction) as caught:
            game.remove(position)
        assert caught.value.refusal is Refusal.GAME_OVER
    for act in (game.draw, game.undo):
        with pytest.raises(RefusedAction) as caught:
            act()
        assert caught.value.refusal is Refusal.GAME_OVER
    assert game.refusal_for_draw() is Refusal.GAME_OVER
    assert game.refusal_for_undo() is Refusal.GAME_OVER
    assert snapshot(game) == before


def test_blocked_when_stock_empty_and_nothing_playable() -> None:
    game = Game.from_code("TP1-E-AAAAAAA")  # waste QH; nothing on the board fits until the end
    for _ in range(22):
        game.draw()
        assert game.status is Status.PLAYING
    game.draw()
    assert game.stock_count == 0 and game.playable_positions() == []
    assert game.status is Status.BLOCKED and not game.is_over
    # Undo is still allowed from a blocked game.
    assert game.refusal_for_undo() is None
    game.undo()
    assert game.status is Status.PLAYING and game.stock_count == 1


def test_not_blocked_while_a_card_can_be_played() -> None:
    line = winning_line(DEAL_1, 23)
    game = Game.from_code(DEAL_1)
    for action in line[:-1]:
        game.replay([action])
        if game.stock_count == 0:
            assert game.playable_positions()
            assert game.status is Status.PLAYING


def test_play_and_action_parse() -> None:
    game = Game.from_code(DEAL_1)
    game.play(Action.parse("21"))
    game.play(Action.parse("draw"))
    assert [a.text() for a in game.line] == ["21", "draw"]
    assert Action.parse("draw").is_draw and not Action.parse("0").is_draw
    assert eval(repr(Action.parse("27")), {"Action": Action}) == Action(27)
    for bad in ("28", "-1", "Draw", "", "3.0", "\u0663"):
        with pytest.raises(ValueError):
            Action.parse(bad)


@pytest.mark.parametrize("position", [-1, 28, 100, 2.0, "3", None, True])
def test_positions_off_the_board(position: object) -> None:
    game = Game.from_code(DEAL_1)
    before = snapshot(game)
    for method in (
        game.remove,
        game.card_at,
        game.is_removed,
        game.is_exposed,
        game.refusal_for_remove,
    ):
        with pytest.raises(PositionError):
            method(position)  # type: ignore[operator]
    assert issubclass(PositionError, ValueError)
    assert snapshot(game) == before


def test_copy_is_independent() -> None:
    game = new_game(DEAL_1, [21, DRAW])
    other = game.copy()
    assert other == game and describe_board(other) == describe_board(game)
    other.undo()
    assert other != game
    assert game.line == (Action(21), Action(None))
