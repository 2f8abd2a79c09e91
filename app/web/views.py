"""What the templates show: the board as slots, and what the last action did.

The route builds these from the engine; templates only lay them out. Nothing
here reveals a face-down card: a slot carries its card only when it is face up.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from app.engine import Card, Game, Refusal
from app.engine.layout import COVERS, ROWS


class Happened(enum.Enum):
    REMOVED = "removed"
    DREW = "drew"
    UNDID = "undid"
    REFUSED = "refused"
    DEALT = "dealt"
    HINTED = "hinted"


@dataclass(frozen=True, slots=True)
class Event:
    """What the request did, for the status line and screen readers."""

    happened: Happened
    card: Card | None = None
    refusal: Refusal | None = None
    peak_cleared: bool = False
    hint_draw: bool = False
    """A hint: draw from the stock (a hint to remove names its ``card``)."""
    undos: int | None = None
    """A hint with no winning line from here: how many undos lead back to one (``None``: none ever)."""
    searched: bool = True
    """False when the hint's search was cut short."""


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


def slots(game: Game, *, turned: frozenset[int] = frozenset(), hint: int | None = None) -> list[Slot]:
    out = []
    for row in ROWS:
        for p in row:
            removed = game.is_removed(p)
            face_up = not removed and game.is_exposed(p)
            out.append(
                Slot(
                    position=p,
                    card=game.card_at(p) if face_up else None,
                    face_up=face_up,
                    removed=removed,
                    turned=p in turned,
                    hinted=p == hint,
                )
            )
    return out


def turned_by_removal(game: Game, position: int) -> frozenset[int]:
    """The positions that removing ``position`` (just done) turned face up."""
    return frozenset(q for q in COVERS[position] if game.is_exposed(q))


