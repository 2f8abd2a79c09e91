"""Refused actions (SPEC section 4): the reason, the message, and no change at all."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.engine import DRAW, Game, Refusal, RefusedAction
from tests.support.games import new_game, snapshot, winning_line

DEAL_1 = "TP1-E-AAAAAAB"  # waste QC; position 18 is 2C, 21 KC, 19 AD


def won_game() -> Game:
    return new_game(DEAL_1, winning_line(DEAL_1))


CASES: list[tuple[str, Callable[[], Game], Callable[[Game], object], Refusal]] = [
    ("wrong rank", lambda: Game.from_code(DEAL_1), lambda g: g.remove(18), Refusal.RANK_MISMATCH),
    ("covered", lambda: Game.from_code(DEAL_1), lambda g: g.remove(9), Refusal.CARD_BLOCKED),
    ("face down top", lambda: Game.from_code(DEAL_1), lambda g: g.remove(0), Refusal.CARD_BLOCKED),
    ("half covered", lambda: new_game(DEAL_1, [21, 19]), lambda g: g.remove(10), Refusal.CARD_BLOCKED),
    ("removed", lambda: new_game(DEAL_1, [21]), lambda g: g.remove(21), Refusal.NO_CARD),
    ("stock empty", lambda: new_game(DEAL_1, [DRAW] * 23), lambda g: g.draw(), Refusal.STOCK_EMPTY),
    ("no undo", lambda: Game.from_code(DEAL_1), lambda g: g.undo(), Refusal.NOTHING_TO_UNDO),
    ("won: remove", won_game, lambda g: g.remove(5), Refusal.GAME_OVER),
    ("won: draw", won_game, lambda g: g.draw(), Refusal.GAME_OVER),
    ("won: undo", won_game, lambda g: g.undo(), Refusal.GAME_OVER),
]


@pytest.mark.parametrize(("make", "act", "refusal"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refusal_changes_nothing(
    make: Callable[[], Game], act: Callable[[Game], object], refusal: Refusal
) -> None:
    game = make()
    before = snapshot(game)
    with pytest.raises(RefusedAction) as caught:
        act(game)
    assert caught.value.refusal is refusal
    assert str(caught.value) == refusal.message
    assert snapshot(game) == before
    # And the game plays on as before.
    assert game == make()


def test_refusal_words_and_messages() -> None:
    assert [r.value for r in Refusal] == [
        "rank_mismatch",
        "card_blocked",
        "no_card",
        "stock_empty",
        "nothing_to_undo",
        "game_over",
    ]
    assert Refusal.RANK_MISMATCH.message == "Rank must be one higher or lower"
    assert Refusal.CARD_BLOCKED.message == "This card is blocked"
    for refusal in Refusal:
        assert refusal.message and refusal.message[0].isupper()
    assert issubclass(RefusedAction, ValueError)


def test_asking_does_not_act() -> None:
    game = Game.from_code(DEAL_1)
    before = snapshot(game)
    assert game.refusal_for_remove(18) is Refusal.RANK_MISMATCH
    assert game.refusal_for_remove(0) is Refusal.CARD_BLOCKED
    assert game.refusal_for_remove(21) is None
    assert game.refusal_for_draw() is None
    assert game.refusal_for_undo() is Refusal.NOTHING_TO_UNDO
    assert snapshot(game) == before


def test_every_refusal_of_every_position() -> None:
    game = new_game(DEAL_1, [21, 19, 18, DRAW])
    for position in range(28):
        refusal = game.refusal_for_remove(position)
        before = snapshot(game)
        if refusal is None:
            assert position in game.playable_positions()
            continue
        with pytest.raises(RefusedAction) as caught:
            game.remove(position)
        assert caught.value.refusal is refusal
        assert snapshot(game) == before
        if position in (18, 19, 21):
            assert refusal is Refusal.NO_CARD
        elif not game.is_exposed(position):
            assert refusal is Refusal.CARD_BLOCKED
        else:
            assert refusal is Refusal.RANK_MISMATCH
