"""The board in words (SPEC section 9): what a screen reader and the CLI say of a game.
English by default; translations pass their own words (:mod:`app.i18n.locale`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.engine.cards import Card

if TYPE_CHECKING:
    from app.engine.game import Game


def describe_board(
    game: Game,
    *,
    card_words: Any = Card.words,
    hidden: str = "hidden card",
    row_names: tuple[str, ...] | None = None,
    stock_words: Any = None,
    waste_word: str = "waste",
    empty: str = "empty",
    show_all: bool = False,
) -> str:
    """The board in words: ``Stock: 23 cards; waste: ace of clubs. Peak tops: hidden card, ...``.

    Removed cards are left out, and so is a row with no card left. ``card_words``
    names a card (English by default), ``stock_words`` says the stock (``"Stock: 23 cards"``);
    translations pass their own; ``row_names`` name the rows of the game's layout (its own
    English names when not given, or given for another layout's rows). ``show_all`` names
    face-down cards too. ``empty`` says the
    waste before its first card (the empty-waste variant).
    """
    count = game.stock_count
    stock = (
        stock_words(count)
        if stock_words is not None
        else f"Stock: {count} card{'' if count == 1 else 's'}"
    )
    parts = []
    removed, tableau = game.removed_mask, game.deal.tableau
    layout = game.layout
    shown = layout.all_mask if show_all else game.face_up_mask()
    if row_names is None or len(row_names) != len(layout.rows):
        row_names = layout.row_names
    for name, row in zip(row_names, layout.rows, strict=True):
        words = [
            card_words(tableau[p]) if shown >> p & 1 else hidden
            for p in row
            if not removed >> p & 1
        ]
        if words:
            parts.append(f"{name}: {', '.join(words)}")
    board = "; ".join(parts)
    board = board[:1].upper() + board[1:]
    waste = empty if game.waste is None else card_words(game.waste)
    return f"{stock}; {waste_word}: {waste}." + (f" {board}" if board else "")

