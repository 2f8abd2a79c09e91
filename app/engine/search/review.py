"""The review of a game: every step of its line judged by the solver, with full information.

``Review.build(code, line, analysis)`` plays the :class:`~app.engine.line.Line` on the
deal and asks, for the position after every step (step 0 is the deal), whether the deal
can still be cleared and the best final score still reachable. From those it finds

* the **point of no return**: the first action after which the deal could no longer
  be cleared, if it ever could, with an action from the step before that kept the win;
* **par**: the best final score the deal allows (``None`` for a deal no one can win);
* for a won game, the **first step where a better line existed**: the first action
  after which the best score still reachable dropped, with an action that kept it;
* the deal's :class:`Difficulty`: impossible when no one can win it, else rated by the
  share of random playouts (:func:`playout_share`) that clear it.

Everything the review needs from the solver is the :class:`Analysis` protocol: two
questions about a position, ``winnable(game)`` and ``best_score(game)``. Actions that
keep a win or a score, par and the difficulty are derived here from those two.

The adapter
-----------
:class:`DealAnalysisAdapter` answers the protocol from the deal's whole-deal analysis
(:mod:`app.engine.search.analysis`: every reachable position judged once, about 10 ms of CPU a
deal, kept in :data:`~app.engine.search.analysis.ANALYSES`), so every question is a lookup.
"""

from __future__ import annotations

import enum
import functools
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final, Protocol

from app.engine.actions import Action
from app.engine.deal import GameCode, Rules, rank_of
from app.engine.game import Game
from app.engine.line import Line
from app.engine.rules import tableau_by_rank
from app.engine.search.analysis import ANALYSES, DealAnalysis


class Analysis(Protocol):
    """What a review asks the solver about one deal's positions (full information)."""

    def winnable(self, game: Game) -> bool:
        """Whether all 28 peak cards can still be removed from the game's position."""
        ...

    def best_score(self, game: Game) -> int | None:
        """The best final score still reachable: the best win's score when winnable, else the
        highest score the game can still show (``None``: not known)."""
        ...


# -- the adapter over the whole-deal analysis ----------------------------------------------


class DealAnalysisAdapter:
    """:class:`Analysis` for one deal, from its whole-deal analysis (table lookups)."""

    def __init__(self, code: GameCode) -> None:
        self.code = code
        self.analysis: DealAnalysis = ANALYSES.get(code)

    def winnable(self, game: Game) -> bool:
        return self.analysis.of(game).winnable

    def best_score(self, game: Game) -> int | None:
        return self.analysis.of(game).best_score


def analysis_for(code: GameCode) -> Analysis:
    """The analysis of a deal (the analyses of recent deals are kept, bounded by memory)."""
    return DealAnalysisAdapter(code)


# -- difficulty ------------------------------------------------------------------------------


class Difficulty(enum.Enum):
    """How hard a deal is to clear (see ``docs/solvability.md``). The value is the API's word."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"
    EXPERT = "expert"
    IMPOSSIBLE = "impossible"


PLAYOUTS: Final = 200
"""Random playouts per deal for its difficulty (about 0.2 ms of CPU each)."""

THRESHOLDS: Final = ((0.50, Difficulty.EASY), (0.20, Difficulty.MEDIUM), (0.05, Difficulty.HARD))
"""Share of playouts won from which a winnable deal is rated easy, medium, hard (below: expert)."""


def rate(winnable: bool, playout_share: float) -> Difficulty:
    """The rating of a deal: impossible without a win, else by the share of random playouts won."""
    if not winnable:
        return Difficulty.IMPOSSIBLE
    for least, rating in THRESHOLDS:
        if playout_share >= least:
            return rating
    return Difficulty.EXPERT


def _splitmix(state: int) -> Iterator[int]:
    mask = (1 << 64) - 1
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


@functools.lru_cache(maxsize=2048)
def playout_share(code: GameCode, playouts: int = PLAYOUTS) -> float:
    """The share of random playouts that clear the deal: a player who always removes a card when
    one can go (one of them at random) and draws only when none can. Seeded by the deal, so
    the same deal always gets the same share."""
    numbers = _splitmix(code.number * 2 + (code.rules is Rules.CLASSIC))
    deal = code.deal()
    ranks = [card.rank for card in deal.tableau]
    waste_after = [rank_of(deal.waste), *(card.rank for card in deal.stock)]
    fits = tableau_by_rank(code)
    full, exposed_mask = code.layout.all_mask, code.layout.exposed
    won = 0
    for _ in range(playouts):  # the game's rules on its masks (a Game per playout costs 5x)
        removed, drawn, waste = 0, 0, waste_after[0]
        while removed != full:
            playable = exposed_mask(removed) & fits[waste]
            if playable:  # the k-th playable position, in increasing order
                for _ in range(next(numbers) % playable.bit_count()):
                    playable &= playable - 1
                p = (playable & -playable).bit_length() - 1
                removed, waste = removed | 1 << p, ranks[p]
            elif drawn < deal.stock_size:
                drawn += 1
                waste = waste_after[drawn]
            else:
                break
        won += removed == full
    return won / playouts


def deal_difficulty(code: GameCode) -> Difficulty:
    """The deal's rating (kept per deal): the analysis says whether it can be won at all."""
    winnable = analysis_for(code).winnable(Game(code))
    return rate(winnable, playout_share(code) if winnable else 0.0)


def children(game: Game) -> Iterator[tuple[Action, Game]]:
    """Every legal action from the game's position, with the game after it (removals first)."""
    for position in game.playable_positions():
        child = game.copy()
        child.remove(position)
        yield Action(position), child
    if game.can_draw():
        child = game.copy()
        child.draw()
        yield Action(None), child


# -- the review ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """The position after ``index`` actions of the line (0: the deal)."""

    index: int
    action: Action | None
    """The action that led here (``None`` at step 0)."""
    game: Game
    winnable: bool
    best_score: int | None


@dataclass(frozen=True, slots=True)
class TurningPoint:
    """The step whose action lost something (a win, or points), and what would have kept it."""

    step: int
    action: Action
    """What the player did at that step."""
    instead: Action | None
    """An action from the step before that kept it (a removal when one does)."""
    before: int | None
    """The best score still reachable before the action."""
    after: int | None
    """And after it."""


@dataclass(frozen=True, slots=True)
class Review:
    code: GameCode
    line: Line
    steps: tuple[Step, ...]
    point_of_no_return: TurningPoint | None
    par: int | None
    """The best final score of the deal; ``None`` when no one can win it."""
    first_worse: TurningPoint | None
    """For a won game below par: the first step whose action lowered the best score still
    reachable (before it, a line with a better score existed)."""
    difficulty: Difficulty

    @classmethod
    def build(cls, code: GameCode, line: Line, analysis: Analysis) -> Review:
        """Play ``line`` (raises :class:`~app.engine.line.LineError`) and judge every step."""
        games = line.games(code)
        steps = tuple(
            Step(i, line.actions[i - 1] if i else None, g, analysis.winnable(g), analysis.best_score(g))
            for i, g in enumerate(games)
        )
        point = None
        for before, after in itertools.pairwise(steps):
            if before.winnable and not after.winnable:
                instead = _keeping(before.game, analysis.winnable)
                point = TurningPoint(
                    after.index, _action(after), instead, before.best_score, after.best_score
                )
                break
        par = steps[0].best_score if steps[0].winnable else None
        worse = None
        if steps[-1].game.is_over and par is not None and steps[-1].game.score < par:
            for before, after in itertools.pairwise(steps):
                if before.best_score is not None and (after.best_score or 0) < before.best_score:
                    instead = _keeping(before.game, _scores(analysis, before.best_score))
                    worse = TurningPoint(
                        after.index, _action(after), instead, before.best_score, after.best_score
                    )
                    break
        winnable = steps[0].winnable
        difficulty = rate(winnable, playout_share(code) if winnable else 0.0)
        return cls(code, line, steps, point, par, worse, difficulty)

    @property
    def final(self) -> Step:
        return self.steps[-1]

    @property
    def won(self) -> bool:
        return self.final.game.is_over


def _action(step: Step) -> Action:
    assert step.action is not None
    return step.action


def _scores(analysis: Analysis, goal: int) -> Callable[[Game], bool]:
    """Whether a position still reaches ``goal``."""
    return lambda game: analysis.best_score(game) == goal


def _keeping(game: Game, keeps: Callable[[Game], bool]) -> Action | None:
    """The first action from ``game`` whose result ``keeps`` accepts (removals before the draw)."""
    for action, child in children(game):
        if keeps(child):
            return action
    return None


@functools.lru_cache(maxsize=64)
def review(code: GameCode, line: Line) -> Review:
    """The review of a line on a deal, with the deal's analysis (kept for the latest asked)."""
    return Review.build(code, line, analysis_for(code))
