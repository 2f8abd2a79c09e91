"""Message ids that are not written as literals where they are shown.

``N_`` only marks a string for ``pybabel extract``; it is translated later, when shown.
"""

from __future__ import annotations

from typing import Final

from app.engine import Refusal


def N_(message: str) -> str:
    """Mark ``message`` for extraction; it is translated where it is shown."""
    return message


REFUSAL_MESSAGES: Final[dict[Refusal, str]] = {
    Refusal.RANK_MISMATCH: N_("Rank must be one higher or lower"),
    Refusal.CARD_BLOCKED: N_("This card is blocked"),
    Refusal.NO_CARD: N_("That card has already been removed"),
    Refusal.STOCK_EMPTY: N_("The stock is empty"),
    Refusal.NOTHING_TO_UNDO: N_("Nothing to undo"),
    Refusal.GAME_OVER: N_("The game is over"),
}
"""Why an action was refused, by refusal; the English is the engine's own message."""

HTTP_DETAILS: Final = (
    N_("Not Found"),
    N_("Method Not Allowed"),
    N_("No such game"),
    N_("That request is not one the game understands."),
)
"""Error details the app or Starlette raise, translated on the error page when known."""

NAME_REFUSALS: Final = (
    N_("A name needs at least one character"),
    N_("A name needs at least one visible character"),
    N_("A name has at most 40 characters"),
    N_("A name cannot contain control characters or line breaks"),
)
"""Why a display name is refused (:func:`app.store.base.clean_display_name` says it in
English), translated where it is shown."""
