"""An action of a line (a removal or a draw), and why one may be refused: the refusal (its
value is the API's ``error`` word), its English message, and the error that carries it
(SPEC section 7)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from app.engine.layout import POSITION_COUNT

DRAW: Final = -1
"""How a draw is written in a line of actions (removals are written as their position)."""


class Refusal(enum.Enum):
    """Why an action was refused. The value is the API's ``error`` word."""

    RANK_MISMATCH = "rank_mismatch"
    CARD_BLOCKED = "card_blocked"
    NO_CARD = "no_card"
    STOCK_EMPTY = "stock_empty"
    NOTHING_TO_UNDO = "nothing_to_undo"
    GAME_OVER = "game_over"

    @property
    def message(self) -> str:
        """The English message for the player."""
        return REFUSAL_MESSAGES[self]


REFUSAL_MESSAGES: Final = {
    Refusal.RANK_MISMATCH: "Rank must be one higher or lower",
    Refusal.CARD_BLOCKED: "This card is blocked",
    Refusal.NO_CARD: "That card has already been removed",
    Refusal.STOCK_EMPTY: "The stock is empty",
    Refusal.NOTHING_TO_UNDO: "Nothing to undo",
    Refusal.GAME_OVER: "The game is over",
}



class RefusedAction(ValueError):
    """An action the rules do not allow now; the game did not change."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


class PositionError(ValueError):
    """A position number that is not on the board (0 to 27)."""


@dataclass(frozen=True, slots=True)
class Action:
    """One action of a line: ``Action.parse("draw")``, ``Action.parse("17")``, ``action.text()``."""

    position: int | None
    """The position removed, or ``None`` for a draw."""

    @property
    def is_draw(self) -> bool:
        return self.position is None

    def text(self) -> str:
        return "draw" if self.position is None else str(self.position)

    def __repr__(self) -> str:
        return f"Action.parse({self.text()!r})"

    @classmethod
    def parse(cls, text: str, positions: int = POSITION_COUNT) -> Action:
        """Read ``"draw"`` or a position of a layout of ``positions`` cards (three peaks': 28)."""
        if text == "draw":
            return cls(None)
        if text.isdigit() and text.isascii() and int(text) < positions:
            return cls(int(text))
        expected = f"'draw' or a position 0 to {positions - 1}"
        raise ValueError(f"{text[:20]!r} is not an action: expected {expected}")


def check_position(position: int, positions: int = POSITION_COUNT) -> int:
    """The position, if it is on a board of ``positions`` cards; else :class:`PositionError`."""
    if type(position) is not int or not 0 <= position < positions:
        raise PositionError(f"position {position!r} is not on the board (0 to {positions - 1})")
    return position
