"""An exact TriPeaks solver: is a position winnable, a winning line, the best score, a hint.

Pure Python, no I/O. The public API:

* :func:`solve` -- from a :class:`~app.engine.game.Game` (a new deal or one in
  progress): whether all 28 peak cards can still be removed, a winning line of
  :class:`~app.engine.game.Action` that replays on ``game.copy()`` to a win, and the
  score at its end. With ``best=True`` the line is one with the best final score
  (for a winnable position: a win with the fewest draws; for a lost one: the
  highest score the game can reach at any moment, and a line that reaches it).
* :func:`~app.engine.search.hints.hint` (in :mod:`app.engine.search.hints`) -- one
  action that keeps a win in reach, or how many undos back the last winnable position
  of the game's line is.
* :func:`solve_code` -- the same as :func:`solve` for a new deal named by its code.

How it works (see ``docs/solvability.md`` for the figures)
------------------------------------------------------------
A position is ``(removed, drawn, waste)``. Its value depends on the waste card only
through the set ``P`` of exposed cards it makes playable (after a draw the waste
is replaced), so states are keyed by ``(removed, P)``. Fewer cards drawn is never
worse: a line from ``drawn + 1`` can be followed from ``drawn`` by drawing one card
more at its first draw. So for each key the solver stores the smallest ``drawn``
proven lost, and a state with at least that many drawn is lost too. Right after a
draw the waste is the stock card just drawn, so those states are keyed by
``removed`` alone, with their own table.

Right after each draw a counting bound is checked: every card still on the peaks
must land on a card of adjacent rank -- the waste, a card still in the stock, or
another peak card -- and each of those takes one card only. That is a transport
problem between ranks; Hall's condition is checked on every window of up to
three demand ranks with a few operations on integers that hold a count per rank
in 8-bit fields. A failed check proves the position lost; the bound is never used
to say "winnable".

Only the 22,932 sets of removed cards that play can reach are ever looked up;
their exposed cards are precomputed once (about 0.1 s, on first use).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from app.engine.actions import Action
from app.engine.deal import Deal, GameCode, Rules, dealt_waste, rank_of
from app.engine.game import Game
from app.engine.layout import THREE_PEAKS, Layout
from app.engine.rules import playable_by_rank
from app.engine.search import bound
from app.engine.search.analysis import analyse
from app.engine.search.bound import rank_unit

__all__ = [
    "DealSolver",
    "SearchLimitExceeded",
    "Solution",
    "reachable_removed_sets",
    "solve",
    "solve_code",
]

_NEVER: Final = 99
"""Stands for 'no drawn count proven lost yet' in the tables (above any real count)."""

class SearchLimitExceeded(RuntimeError):
    """The search needed more than ``node_limit`` expansions; nothing was decided."""


@dataclass(frozen=True, slots=True)
class Solution:
    """What :func:`solve` found.

    ``line`` starts from the position solved. When ``winnable`` it replays to a win
    and ``score`` is the game's score at its end. When not winnable it is empty and
    ``score`` is ``None``, unless ``best`` was asked: then it reaches the highest
    score the game can show from here, and ``score`` is that score.
    """

    winnable: bool
    line: tuple[Action, ...]
    score: int | None
    best: bool = False
    """Whether ``score`` is the best achievable (asked with ``best=True``)."""
    nodes: int = 0
    """Positions the search expanded (a measure of the work done)."""

    def moves(self) -> list[str]:
        """The line as the JSON API writes it: ``"draw"`` or a position number."""
        return [action.text() for action in self.line]


# -- layout tables --------------------------------------------------------------------------


@functools.cache
def _exposed_table(layout: Layout = THREE_PEAKS) -> dict[int, int]:
    """Every set of removed positions that play can reach in the layout, mapped to its
    exposed positions (22,932 sets in three peaks; up to 74,088 in the valley)."""
    table: dict[int, int] = {}
    stack = [0]
    while stack:
        removed = stack.pop()
        if removed in table:
            continue
        exposed = layout.exposed(removed)
        table[removed] = exposed
        bits = exposed
        while bits:
            low = bits & -bits
            bits ^= low
            if removed | low not in table:
                stack.append(removed | low)
    return table


def reachable_removed_sets(layout: Layout = THREE_PEAKS) -> frozenset[int]:
    """The sets of removed positions (as masks) that can arise in play: 22,932 in three peaks."""
    return frozenset(_exposed_table(layout))


# -- the search -----------------------------------------------------------------------------


class DealSolver:
    """The solver for one deal under one rule set, with its tables of proven-lost positions.

    The tables hold facts about positions of the deal, whatever position a search
    starts from, so one instance answers many questions about the same deal
    (:func:`hint` walks back along a game's line this way). Methods take a
    position as ``(removed, drawn, waste_rank)`` and whether it is right after a
    draw (or the deal's start), when the waste is the stock card just drawn.
    """

    def __init__(self, deal: Deal, rules: Rules, layout: Layout = THREE_PEAKS) -> None:
        if len(deal.tableau) != layout.count:
            raise ValueError(f"a deal of {len(deal.tableau)} cards is not one of {layout.word}")
        self.deal = deal
        self.rules = rules
        self.layout = layout
        self.ranks: tuple[int, ...] = tuple(card.rank for card in deal.tableau)
        # The waste after `d` draws made last: the deal's waste card, then the stock.
        self.after_draw: tuple[int, ...] = (dealt_waste(deal).rank, *(c.rank for c in deal.stock))
        self.playable_by_rank: tuple[int, ...] = playable_by_rank(self.ranks, rules)
        self.units: tuple[int, ...] = tuple(rank_unit(rank, rules) for rank in self.ranks)
        self.all_demand = sum(self.units)
        # Lost tables for the full game (draws up to the whole stock).
        self._lost: dict[int, int] = {}
        self._lost_after_draw: dict[int, int] = {}

    @classmethod
    def for_game(cls, game: Game) -> DealSolver:
        return cls(game.deal, game.rules, game.layout)

    def demand(self, removed: int) -> int:
        """Packed rank counts of the cards still on the peaks."""
        demand = self.all_demand
        for p in range(self.layout.count):
            if removed >> p & 1:
                demand -= self.units[p]
        return demand

    def stock_supply(self, limit: int) -> list[int]:
        """For each ``d`` up to ``limit``: packed rank counts of the waste after ``d`` draws and
        the stock cards ``d`` to ``limit - 1`` (the cards still to come then)."""
        suffix = [0] * (limit + 2)
        for d in range(limit, -1, -1):
            suffix[d] = suffix[d + 1] + rank_unit(self.after_draw[d], self.rules)
        return suffix

    # The search proper. It is one function so that everything it touches is a local
    # variable; see the module docstring for what it does.
    def _search(
        self,
        *,
        limit: int,
        lost: dict[int, int],
        lost_after_draw: dict[int, int],
        node_limit: int | None,
    ) -> tuple[Callable[[int, int, int, int, bool], bool], list[int], list[int]]:
        exposed_of = _exposed_table(self.layout)
        ranks = self.ranks
        playable_by_rank = self.playable_by_rank
        units = self.units
        after_draw = self.after_draw
        supply_of = self.stock_supply(limit)
        hall_holds = bound.hall_holds
        never = _NEVER
        full = self.layout.all_mask
        width = self.layout.count
        path: list[int] = []  # the winning line, last action first
        counter = [0]
        budget = node_limit if node_limit is not None else -1
        lost_get = lost.get
        drawn_lost_get = lost_after_draw.get

        def after_a_draw(removed: int, drawn: int, demand: int) -> bool:
            # Right after a draw: the waste is after_draw[drawn]. Counting bound first (the
            # peak cards themselves count as supply: a card may land on another).
            if not hall_holds(demand, demand + supply_of[drawn]) or not play(
                removed, drawn, after_draw[drawn], demand
            ):
                lost_after_draw[removed] = drawn
                return False
            return True

        def play(removed: int, drawn: int, waste: int, demand: int) -> bool:
            playable = exposed_of[removed] & playable_by_rank[waste]
            if not playable:  # only a draw: that position has its own table
                # The draw test is written out here and below rather than in a helper:
                # one more call on every lost position measured 15% slower (bench/solver.py).
                if (
                    drawn < limit
                    and drawn_lost_get(removed, never) > drawn + 1
                    and after_a_draw(removed, drawn + 1, demand)
                ):
                    path.append(-1)
                    return True
                return False
            key = removed << width | playable
            if lost_get(key, never) <= drawn:
                return False
            counter[0] += 1
            if counter[0] == budget:
                raise SearchLimitExceeded(f"more than {node_limit} positions searched")
            while playable:
                p = playable.bit_length() - 1
                low = 1 << p
                playable ^= low
                after = removed | low
                if after == full or play(after, drawn, ranks[p], demand - units[p]):
                    path.append(p)
                    return True
            if (
                drawn < limit
                and drawn_lost_get(removed, never) > drawn + 1
                and after_a_draw(removed, drawn + 1, demand)
            ):
                path.append(-1)
                return True
            lost[key] = drawn
            return False

        def start(removed: int, drawn: int, waste: int, demand: int, just_drew: bool) -> bool:
            if removed == full:
                return True
            if just_drew:
                if drawn_lost_get(removed, never) <= drawn:
                    return False
                return after_a_draw(removed, drawn, demand)
            return play(removed, drawn, waste, demand)

        return start, path, counter

    def find_win(
        self,
        removed: int,
        drawn: int,
        waste: int,
        just_drew: bool,
        *,
        limit: int | None = None,
        tables: tuple[dict[int, int], dict[int, int]] | None = None,
        node_limit: int | None = None,
    ) -> tuple[list[int] | None, int]:
        """A winning line from the position (positions, ``-1`` for a draw), or ``None``.

        ``limit`` caps the number of cards drawn in all (by default the whole stock);
        ``tables`` are the lost tables to use for it (facts proven under a limit hold
        under any lower one). Returns the line and the number of positions expanded.
        """
        if removed not in _exposed_table(self.layout):
            raise ValueError(f"removed mask {removed:#x} cannot arise in play")
        stock = self.deal.stock_size
        if limit is None:
            limit = stock
        if tables is None:
            tables = (self._lost, self._lost_after_draw) if limit == stock else ({}, {})
        start, path, counter = self._search(
            limit=limit, lost=tables[0], lost_after_draw=tables[1], node_limit=node_limit
        )
        if start(removed, drawn, waste, self.demand(removed), just_drew):
            return path[::-1], counter[0]
        return None, counter[0]


# -- the public API -------------------------------------------------------------------------


def position_of(game: Game) -> tuple[int, int, int, bool]:
    line = game.line
    just_drew = not line or line[-1].is_draw
    return game.removed_mask, game.drawn, rank_of(game.waste), just_drew


def _actions(line: list[int]) -> tuple[Action, ...]:
    return tuple(Action(None if a < 0 else a) for a in line)


def _score_after(game: Game, line: tuple[Action, ...]) -> int:
    replay = game.copy()
    for action in line:
        replay.play(action)
    return replay.score


QUICK_NODES: Final = 300
"""Positions the depth-first search may expand before :func:`solve` hands the question to
the whole-deal pass (about 1.5 ms of search; the pass itself takes about 3 ms)."""


def solve(
    game: Game,
    *,
    best: bool = False,
    node_limit: int | None = None,
    solver: DealSolver | None = None,
) -> Solution:
    """Solve the game from its current position (it is not changed).

    Without ``best`` a depth-first search looks for a win; if it has not decided within
    :data:`QUICK_NODES` positions, the whole-deal pass of :mod:`app.engine.search.analysis`
    decides (a few milliseconds, whatever the deal). ``best`` asks for the best final
    score: that is the analysis with its scores (about 10 ms). ``node_limit`` bounds the
    depth-first search alone: below :data:`QUICK_NODES` it is the search's whole budget
    and :class:`SearchLimitExceeded` is raised past it. ``solver`` reuses the tables of an
    earlier search of the same deal.

    Under traditional scoring (``T``) ``best`` asks for the best score in traditional
    points, a longest-runs objective (:mod:`app.engine.search.runs`): the line reaches it, and it
    may stop short of a win when the draws the win still needs cost more than it brings
    (``winnable`` still says whether a win is in reach; without ``best`` the line wins).
    """
    if game.is_over:
        return Solution(True, (), game.score, best=best)
    removed, drawn, waste, just_drew = position_of(game)
    if best:
        analysis = analyse(game.code)
        line = tuple(analysis.best_line(removed, drawn, waste, run=game.run))
        won = analysis.winnable(removed, drawn, waste)
        return Solution(won, line, _score_after(game, line), best=True, nodes=_analysis_nodes(game))
    budget = QUICK_NODES if node_limit is None else min(node_limit, QUICK_NODES)
    variants = game.code.variants
    if variants.joker or variants.empty_waste:
        # The depth-first search knows the standard deck: the whole-deal pass decides.
        win, nodes = _win_by_analysis(game, removed, drawn, waste), _analysis_nodes(game)
    else:
        if solver is None:
            solver = DealSolver.for_game(game)
        elif solver.deal != game.deal or solver.rules != game.rules or solver.layout != game.layout:
            raise ValueError("the solver was made for another deal")
        try:
            win, nodes = solver.find_win(removed, drawn, waste, just_drew, node_limit=budget)
        except SearchLimitExceeded:
            if node_limit is not None and node_limit <= QUICK_NODES:
                raise
            win, nodes = _win_by_analysis(game, removed, drawn, waste), budget + _analysis_nodes(game)
    if win is None:
        return Solution(False, (), None, nodes=nodes)
    line = _actions(win)
    return Solution(True, line, _score_after(game, line), best=best, nodes=nodes)


def _win_by_analysis(game: Game, removed: int, drawn: int, waste: int) -> list[int] | None:
    found = analyse(game.code, scores=False).winning_line(removed, drawn, waste)
    return None if found is None else [_code(action) for action in found]


def _analysis_nodes(game: Game) -> int:
    """What a whole-deal pass counts as work in :attr:`Solution.nodes`: the sets it judges
    (22,932 in three peaks)."""
    return len(_exposed_table(game.layout))


def _code(action: Action) -> int:
    return -1 if action.position is None else action.position


def solve_code(code: str | GameCode, *, best: bool = False, node_limit: int | None = None) -> Solution:
    """Solve a new deal named by its code (``"TP1-E-AAAAAAB"``)."""
    parsed = code if isinstance(code, GameCode) else GameCode.parse(code)
    return solve(Game(parsed), best=best, node_limit=node_limit)
