"""Hints (SPEC section 9): one action that keeps a win in reach (towards the best score
still reachable), or how many undos back the last winnable position of the game's line is,
with the action towards the best score still reachable without undoing.
Every answer is a lookup in the deal's whole-deal analysis."""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.actions import Action
from app.engine.game import Game
from app.engine.search.analysis import ANALYSES, DealAnalysis
from app.engine.search.solver import position_of


@dataclass(frozen=True, slots=True)
class Hint:
    """What :func:`hint` advises.

    ``undos_to_winnable`` is 0 when the position is winnable (``action`` then keeps a
    win in reach; it is ``None`` only for a game already won), ``k > 0`` when a win
    needs ``k`` undos first (the latest winnable position along ``game.line``; it may
    be more than ``game.undo_available``), and ``None`` when the deal was never
    winnable from its start.

    ``towards_best``: once no win is left from here (``action`` is ``None`` and
    ``undos_to_winnable`` is not 0), an action towards the best score still reachable
    from here; ``None`` when no action raises the score, or the analysis has no scores.
    """

    action: Action | None
    undos_to_winnable: int | None
    towards_best: Action | None = None


def hint(game: Game, *, analysis: DealAnalysis | None = None) -> Hint:
    """One action that keeps a win in reach, or how far back along the line a win still was.

    Looked up in the deal's ``analysis`` (:mod:`app.engine.search.analysis`); by default the one
    kept in :data:`~app.engine.search.analysis.ANALYSES` (bounded by memory), made now if it is
    not kept. The action is one towards the best score still reachable.

    Under traditional scoring the best score is not always a win's (draws cost 5 each), so
    a hint in a winnable position gives the action towards the best score when that action
    keeps a win in reach, and otherwise an action that keeps the win
    (:meth:`~app.engine.search.analysis.DealAnalysis.winning_move`): a hint never gives a win up.
    """
    if game.is_over:
        return Hint(None, 0)
    if analysis is None:
        analysis = ANALYSES.get(game.code)
    elif analysis.code != game.code:
        raise ValueError(f"the analysis is of {analysis.code.text()}, not {game.code_text()}")
    removed, drawn, waste, _ = position_of(game)
    if analysis.winnable(removed, drawn, waste):
        best = analysis.of(game).move if analysis.best_after_draw is not None else None
        if best is not None and analysis.traditional and not analysis.keeps_win(best, removed, drawn):
            best = None
        return Hint(best or analysis.winning_move(removed, drawn, waste), 0)
    towards_best = analysis.of(game).move if analysis.best_after_draw is not None else None
    # Positions along the line: after 0, 1, ... of its actions. A position from which a
    # later one can be reached is winnable whenever that one is, so the winnable positions
    # are a prefix of the line; the last one is the one to undo back to.
    removed, drawn, waste = 0, 0, analysis.waste_after[0]
    if not analysis.winnable(removed, drawn, waste):
        return Hint(None, None, towards_best)
    last_winnable = 0
    for index, action in enumerate(game.line, start=1):
        removed, drawn, waste = analysis.after(action, removed, drawn)
        if not analysis.winnable(removed, drawn, waste):
            break
        last_winnable = index
    return Hint(None, len(game.line) - last_winnable, towards_best)
