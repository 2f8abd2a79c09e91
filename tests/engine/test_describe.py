"""The board in words (SPEC section 9)."""

from __future__ import annotations

import re

from app.engine import DRAW, Card, Game, describe_board
from tests.support.games import new_game, winning_line

DEAL_1 = "TP1-E-AAAAAAB"
H = "hidden card"


def test_the_board_at_the_deal() -> None:
    assert describe_board(Game.from_code(DEAL_1)) == (
        "Stock: 23 cards; waste: queen of clubs. "
        f"Peak tops: {', '.join([H] * 3)}; "
        f"row 2: {', '.join([H] * 6)}; "
        f"row 3: {', '.join([H] * 9)}; "
        "bottom row: 2 of clubs, ace of diamonds, 6 of spades, king of clubs, king of hearts, "
        "10 of hearts, 10 of spades, jack of spades, 10 of diamonds, 8 of spades"
    )


def test_shape_for_every_deal_position() -> None:
    shape = re.compile(
        r"Stock: (\d+) cards?; waste: [a-z0-9]+ of [a-z]+\."
        r"( [A-Z][a-z0-9 ]+: [a-z0-9 ,]+(; [a-z0-9 ]+: [a-z0-9 ,]+)*)?"
    )
    game = Game.from_code(DEAL_1)
    for action in winning_line(DEAL_1):
        text = describe_board(game)
        match = shape.fullmatch(text)
        assert match, text
        assert int(match.group(1)) == game.stock_count
        game.replay([action])
    assert describe_board(game) == "Stock: 1 card; waste: 7 of diamonds."  # won: no board left


def test_removed_cards_are_left_out_and_turned_cards_named() -> None:
    game = new_game(DEAL_1, [21, 19, 18])  # king of clubs, ace of diamonds, 2 of clubs
    text = describe_board(game)
    assert text.startswith("Stock: 23 cards; waste: 2 of clubs. ")
    assert "king of clubs" not in text and "ace of diamonds" not in text
    assert f"row 3: jack of clubs, {', '.join([H] * 8)}; " in text
    assert text.endswith(
        "bottom row: 6 of spades, king of hearts, 10 of hearts, 10 of spades, jack of spades, "
        "10 of diamonds, 8 of spades"
    )
    assert text.count(H) == 3 + 6 + 8


def test_a_row_with_no_card_left_is_left_out() -> None:
    line = winning_line(DEAL_1)
    game = Game.from_code(DEAL_1)
    for action in line:
        game.replay([action])
        if all(game.is_removed(p) for p in range(18, 28)):
            break
    assert "bottom row" not in describe_board(game)


def test_stock_count_words() -> None:
    game = new_game(DEAL_1, [DRAW] * 21)
    assert describe_board(game).startswith("Stock: 2 cards; ")
    game.draw()
    assert describe_board(game).startswith("Stock: 1 card; ")
    game.draw()
    assert describe_board(game).startswith("Stock: 0 cards; ")


def test_describe_board_options() -> None:
    game = Game.from_code(DEAL_1)
    everything = describe_board(game, card_words=Card.words, show_all=True)
    assert H not in everything
    for card in game.deal.tableau:
        assert card.words() in everything
    translated = describe_board(
        game,
        card_words=Card.text,
        hidden="?",
        row_names=("a", "b", "c", "d"),
        stock_words=lambda n: f"S{n}",
        waste_word="w",
    )
    assert translated.startswith("S23; w: QC. A: ?, ?, ?; b: ")
    assert translated.endswith("d: 2C, AD, 6S, KC, KH, 10H, 10S, JS, 10D, 8S")
