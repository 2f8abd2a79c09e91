"""What the templates show: the board as slots, and what the last action did.

The route builds these from the engine; templates only lay them out. Nothing
here reveals a face-down card: a slot carries its card only when it is face up.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from app.engine import Card, Game, Refusal
from app.web.presentation.layouts_on_page import tableau_order


class Happened(enum.Enum):
    REMOVED = "removed"
    DREW = "drew"
    UNDID = "undid"
    REFUSED = "refused"
    DEALT = "dealt"
    HINTED = "hinted"
    RESUMED = "resumed"


@dataclass(frozen=True, slots=True)
class Event:
    """What the request did, for the status line and screen readers."""

    happened: Happened
    card: Card | None = None
    refusal: Refusal | None = None
    peak_points: int = 0
    """What the peak the action emptied paid (0: it emptied none)."""
    hint_draw: bool = False
    """A hint: draw from the stock (a hint to remove names its ``card``)."""
    undos: int | None = None
    """A hint with no winning line from here: how many undos lead back to one (``None``: none ever)."""
    lost: bool = False
    """A hint with no winning line from here: its ``card`` or ``hint_draw``, if any, is the move
    towards the best score still reachable."""
    turned_up: tuple[Card, ...] = ()
    """The cards the action turned face up (a removal uncovered them)."""
    turned_down: int = 0
    """How many cards the action turned back face down (an undone removal covered them again;
    at most two). Never which: an answer names only the cards face up or removed in it, or
    on the waste."""


@dataclass(frozen=True, slots=True)
class Slot:
    position: int
    card: Card | None
    """The card, only when face up."""
    face_up: bool
    removed: bool
    turned: bool
    """Turned face up by the action just made (for the flip animation)."""
    hinted: bool
    covered: bool = False
    """Face up but covered by a card (open peaks): shown, not yet playable."""
    place: str = "r-0 x-0 h-0"
    """Where it lies: its row, column and height as classes
    (:func:`app.web.presentation.layouts_on_page.card_classes`)."""
    playable: bool = False
    """It can be removed now: on a phone its touch target reaches over its neighbours'."""


def turned_up(face_up_before: int, game: Game) -> frozenset[int]:
    """The positions the action just made turned face up (``face_up_before``: the game's
    :meth:`~app.engine.Game.face_up_mask` before it; with open peaks, none ever is)."""
    turned = game.face_up_mask() & ~face_up_before
    return frozenset(p for p in range(game.layout.count) if turned >> p & 1)


def turned_down(before: Game, after: Game) -> int:
    """How many cards an undo turned back face down: face up before it, not after it."""
    return (before.face_up_mask() & ~after.face_up_mask()).bit_count()


def playable_cards(game: Game) -> tuple[Card, ...]:
    """The exposed cards that can go on the waste now, in the board's order (none once over)."""
    if game.is_over:
        return ()
    playable = set(game.playable_positions())
    return tuple(game.deal.tableau[p] for p in tableau_order(game.layout) if p in playable)
