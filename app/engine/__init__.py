"""The TriPeaks engine: pure rules, no I/O and no web imports."""

from app.engine.actions import DRAW, Action, PositionError, Refusal, RefusedAction
from app.engine.cards import DECK, JOKER, Card, CardError, Suit
from app.engine.deal import (
    DEAL_COUNT,
    CodeError,
    Deal,
    GameCode,
    Rules,
    UnsolvedVariant,
    shuffle_tp1,
)
from app.engine.game import UNDO_LIMIT, Game, Status
from app.engine.rules import ranks_adjacent
from app.engine.state import StateError
from app.engine.variants import STANDARD, Variant, VariantError, Variants
from app.engine.words import describe_board

__all__ = [
    "DEAL_COUNT",
    "DECK",
    "DRAW",
    "JOKER",
    "STANDARD",
    "UNDO_LIMIT",
    "Action",
    "Card",
    "CardError",
    "CodeError",
    "Deal",
    "Game",
    "GameCode",
    "PositionError",
    "Refusal",
    "RefusedAction",
    "Rules",
    "StateError",
    "Status",
    "Suit",
    "UnsolvedVariant",
    "Variant",
    "VariantError",
    "Variants",
    "describe_board",
    "ranks_adjacent",
    "shuffle_tp1",
]
