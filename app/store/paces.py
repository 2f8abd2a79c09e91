"""The pace of a daily attempt (issue 39, "the runs to beat"): each of its actions as the live
strip shows it (cards left, score, stock) and when it came, on its game's clock.

A mark is kept at every save of an attempt's game that is an action (a removal, a draw, an
undo: not a hint) while its row still follows it (:func:`app.store.attempts.progressed`):
so the pace ends where the attempt ended, and practice played on afterwards is not in it.
The clock is the game's own (:meth:`app.engine.Game.elapsed`): the first action is at 0 s,
the last at the attempt's time. Kept in ``tp_daily_pace`` (schema step 11) by the SQL store,
in a dict by the memory store; read back by :meth:`app.store.base.GameStore.pace`. An
attempt kept before step 11 has no marks.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine import Game
from app.store.attempts import AttemptRow


@dataclass(frozen=True, slots=True)
class Mark:
    """One action of an attempt, as the strip shows it after it."""

    n: int
    """Its number among the attempt's actions (the row's intervals so far): unique per attempt."""
    after: float
    """Seconds on the game's clock when it was made (the first action: 0)."""
    cards_left: int
    score: int
    stock_left: int


def mark_of(old: AttemptRow, changed: AttemptRow, game: Game, now: float) -> Mark | None:
    """The mark of a save that changed an attempt's row from ``old`` to ``changed``: ``None``
    when the save was no action (a hint counted) or the row did not follow it."""
    if changed.last_action != now or changed.hints != old.hints:
        return None
    after = game.elapsed(now)
    return Mark(
        n=changed.gaps,
        after=round(after, 3) if after is not None else 0.0,
        cards_left=game.cards_left(),
        score=game.score,
        stock_left=game.stock_count,
    )
