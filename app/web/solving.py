"""What the solver tells the page: hints, whether a deal could be won, winnable deals.

The solver (``app.engine.solver``) is exact; here its answers are bounded in time
(``NODE_LIMIT`` positions) so a request never searches for long, and what a deal
allows is kept per deal, since every player of a deal gets the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from app.engine import Game, GameCode, Rules
from app.engine.solver import Hint, SearchLimitExceeded, hint, solve

NODE_LIMIT: Final = 3_000_000
"""Positions one search may expand: well above what any deal of the first 10,000 needed."""
WINNABLE_TRIES: Final = 60
"""Random deals tried for "winnable deals only" (3 % of easy and 25 % of classic deals are lost)."""


@dataclass(frozen=True, slots=True)
class Outlook:
    """What a deal allows from its start: ``winnable`` is ``None`` when the search was cut short."""

    winnable: bool | None
    best_score: int | None


@lru_cache(maxsize=2048)
def deal_outlook(code: GameCode) -> Outlook:
    """Whether the deal can be won, and the best score it allows (when the search finishes)."""
    game = Game(code)
    try:
        best = solve(game, best=True, node_limit=NODE_LIMIT)
    except SearchLimitExceeded:
        try:
            plain = solve(game, node_limit=NODE_LIMIT)
        except SearchLimitExceeded:
            return Outlook(None, None)
        if plain.winnable:
            note_winnable(code)
        return Outlook(plain.winnable, None)
    if best.winnable:
        note_winnable(code)
    return Outlook(best.winnable, best.score if best.winnable else None)


def hint_for(game: Game) -> Hint | None:
    """One action on a winning line, or how many undos lead back to one; ``None`` if the search ran long."""
    try:
        return hint(game, node_limit=NODE_LIMIT)
    except SearchLimitExceeded:
        return None


def winnable_code(rules: Rules) -> GameCode:
    """A random deal the solver has proven winnable under ``rules``."""
    code = GameCode.random(rules)
    for _ in range(WINNABLE_TRIES):
        try:
            if solve(Game(code), node_limit=NODE_LIMIT).winnable:
                note_winnable(code)
                return code
        except SearchLimitExceeded:
            pass
        code = GameCode.random(rules)
    raise RuntimeError("no winnable deal found")  # about (1/4) ** 60 for classic rules


_PROVEN: Final[dict[GameCode, None]] = {}
_PROVEN_MOST: Final = 4096


def note_winnable(code: GameCode) -> None:
    """Remember that the solver proved ``code`` winnable (the newest few thousand deals)."""
    _PROVEN[code] = None
    if len(_PROVEN) > _PROVEN_MOST:
        del _PROVEN[next(iter(_PROVEN))]


def is_proven_winnable(code: GameCode) -> bool:
    """Whether this process's solver has proven the deal winnable (the board marks it)."""
    return code in _PROVEN
