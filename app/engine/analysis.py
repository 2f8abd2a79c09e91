"""A whole deal analysed at once: for every position play can reach, can it still be won,
and what is the best score still reachable.

    >>> analysis = analyse(GameCode.parse("TP1-E-AAAAAAB"))
    >>> analysis.winnable(0, 0, analysis.waste_after(0))
    True

A position is ``(removed, drawn, waste)``: the set of removed peak cards (a 28-bit mask),
the number of cards drawn and the waste card's rank. Its future depends on nothing else.
The analysis is a backward pass over the 22,932 sets of removed cards that play can
reach, from the full set (the game won) down to the empty one: a set's positions are
judged from the positions one removal further on, which are judged already. Two facts
make the tables small:

* **Fewer cards drawn is never worse.** A line from ``drawn + 1`` is followed from
  ``drawn`` by drawing one card more at its first draw (its score one higher, or the
  same if it draws). So, for each set and waste rank, the positions that can still be
  won are those drawn at most some threshold: one small number, ``win_limit``.
* **Right after a draw the waste is known from the number drawn** (the stock card just
  drawn). The best score reachable is kept for those positions only (``best_after_draw``,
  one per set and number drawn); any other position's is found from its removals (a short
  search over the runs of removals, which end in a draw or a block) and those values.

Each pass over the sets works on all of one row of sets at once (the sets with the same
number of cards removed) with numpy: a few array operations per row, 28 rows.

Memory: ``win_limit`` is 22,932 x 14 bytes, ``best_after_draw`` 22,932 x 24 x 2 bytes:
about 1.4 MiB a deal in all (:attr:`DealAnalysis.nbytes`).
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from app.engine.deal import STOCK_SIZE, Deal, GameCode, Rules
from app.engine.game import Action, Game, ranks_adjacent
from app.engine.layout import ALL_POSITIONS_MASK, PEAK_MASKS, POSITION_COUNT, exposed_mask

__all__ = ["ANALYSES", "AnalysisCache", "DealAnalysis", "PositionVerdict", "analyse", "score_of"]

FULL: Final = ALL_POSITIONS_MASK
WON_MIN_SCORE: Final = 772 - STOCK_SIZE
"""Every win scores at least this (772 less the draws); a game not won at most 682."""
_NONE: Final = -1
"""``win_limit`` of a position that cannot be won from any number drawn."""

Int8Array = npt.NDArray[np.int8]
Int16Array = npt.NDArray[np.int16]
KeyArray = npt.NDArray[np.uint16]
IntArray = npt.NDArray[np.intp]


# -- the layout: every set of removed cards, row by row, and the removals between them -----


@dataclass(frozen=True)
class _Sets:
    """The 22,932 reachable sets of removed positions, ordered by size, and their removals.

    ``masks[i]`` is set ``i``; sets with ``k`` cards removed are ``bounds[k]:bounds[k+1]``.
    A removal is an edge from a set to the set with one more card: ``edge_from``,
    ``edge_to`` and ``edge_position``, ordered by ``edge_from`` (so each row's edges are
    ``edge_bounds[k]:edge_bounds[k+1]``).
    """

    masks: tuple[int, ...]
    index: dict[int, int]
    exposed: tuple[int, ...]
    bounds: tuple[int, ...]
    edge_from: IntArray
    edge_to: IntArray
    edge_position: IntArray
    edge_bounds: tuple[int, ...]
    base_score: Int16Array
    """The score of set ``i`` with nothing drawn: 500 - cards removed + 100 a cleared peak."""


def score_of(removed: int, drawn: int) -> int:
    """The game's score at a position (undo restores it exactly, so it depends on nothing else)."""
    cleared = sum(removed & mask == mask for mask in PEAK_MASKS)
    return 500 - removed.bit_count() - drawn + 100 * cleared


@functools.cache
def _sets() -> _Sets:
    seen = {0}
    rows: list[list[int]] = [[0]]
    for _ in range(POSITION_COUNT):
        following: set[int] = set()
        for removed in rows[-1]:
            bits = exposed_mask(removed)
            while bits:
                low = bits & -bits
                bits ^= low
                following.add(removed | low)
        seen |= following
        rows.append(sorted(following))
    masks = tuple(m for row in rows for m in row)
    index = {m: i for i, m in enumerate(masks)}
    exposed = tuple(exposed_mask(m) for m in masks)
    bounds = [0]
    for row in rows:
        bounds.append(bounds[-1] + len(row))
    edge_from: list[int] = []
    edge_to: list[int] = []
    edge_position: list[int] = []
    edge_bounds = [0]
    for k in range(POSITION_COUNT + 1):
        for i in range(bounds[k], bounds[k + 1]):
            for p in range(POSITION_COUNT):
                if exposed[i] >> p & 1:
                    edge_from.append(i)
                    edge_to.append(index[masks[i] | 1 << p])
                    edge_position.append(p)
        edge_bounds.append(len(edge_from))
    return _Sets(
        masks=masks,
        index=index,
        exposed=exposed,
        bounds=tuple(bounds),
        edge_from=np.array(edge_from, dtype=np.intp),
        edge_to=np.array(edge_to, dtype=np.intp),
        edge_position=np.array(edge_position, dtype=np.intp),
        edge_bounds=tuple(edge_bounds),
        base_score=np.array([score_of(m, 0) for m in masks], dtype=np.int16),
    )


def _wrap(by_rank: npt.NDArray[np.generic], rules: Rules) -> None:
    """Fill the unused ends of a table by rank (axis 1: ranks 1-13 at 1-13) so that the
    cards a waste of rank ``r`` takes are at ``r - 1`` and ``r + 1``: with K and A joined,
    below the ace is the king and above the king the ace; apart, nothing."""
    if rules.king_ace_joined:
        by_rank[:, 0] = by_rank[:, 13]
        by_rank[:, 14] = by_rank[:, 1]


def _best_by_group(values: Int16Array, key: KeyArray) -> tuple[KeyArray, Int16Array]:
    """The largest of ``values`` (rows) in each group named by ``key``: the groups present
    (ascending) and their maxima.

    Sorted by group (a radix sort: the keys are 16-bit), each group's last row is its
    first candidate. Most groups have one row (a group is one set's removals of one rank),
    so the other rows are few: each pass folds in the last one left of each group.
    """
    order = np.argsort(key, kind="stable")
    key = np.take(key, order)
    ends = key[1:] != key[:-1]
    last = np.flatnonzero(np.r_[ends, True])
    best = np.take(values, np.take(order, last), axis=0)
    others = np.flatnonzero(~ends)  # sorted rows followed by one of their group
    group = np.cumsum(ends)[others]  # their group's index in ``last``
    while others.size:
        latest = np.r_[group[1:] != group[:-1], True]  # the last one left of each group
        rows, into = np.take(order, others[latest]), group[latest]
        best[into] = np.maximum(best[into], np.take(values, rows, axis=0))
        others, group = others[~latest], group[~latest]
    return np.take(key, last), best


def _cards(deal: Deal) -> tuple[IntArray, IntArray]:
    ranks = np.array([card.rank for card in deal.tableau], dtype=np.intp)
    waste_after = np.array([deal.waste.rank, *(c.rank for c in deal.stock)], dtype=np.intp)
    return ranks, waste_after


def win_limits(deal: Deal, rules: Rules) -> Int8Array:
    """For each set of removed cards (row ``i``) and waste rank (column 1-13): the most cards
    drawn from which the position can still be won (``-1``: from none).

    Set ``i``'s positions are won through a removal (the set one card larger, waste the card
    removed: its limit, if the removed card fits the waste) or through a draw. Drawing from
    ``drawn`` leads to the position right after ``drawn + 1`` draws, whose waste is that
    stock card; so set ``i`` can be won by drawing from any ``drawn`` below the deepest
    number of draws ``d`` whose position can be won by a removal.
    """
    sets = _sets()
    ranks, waste_after = _cards(deal)
    draws = np.arange(1, STOCK_SIZE + 1, dtype=np.int8)
    limit = np.full((len(sets.masks), 15), _NONE, dtype=np.int8)
    limit[-1, 1:14] = STOCK_SIZE  # all removed: won, from any number drawn
    for k in range(POSITION_COUNT - 1, -1, -1):
        low, high = sets.bounds[k], sets.bounds[k + 1]
        edges = slice(sets.edge_bounds[k], sets.edge_bounds[k + 1])
        removed_rank = np.take(ranks, sets.edge_position[edges])
        # by_rank[i, q]: the best limit after removing from set i a card of rank q (the
        # tables are flattened, row * 15 + rank: numpy's maximum.at is quick in one dimension).
        by_rank = np.full((high - low, 15), _NONE, dtype=np.int8)
        np.maximum.at(by_rank.reshape(-1), (sets.edge_from[edges] - low) * 15 + removed_rank,
                      np.take(limit, sets.edge_to[edges] * 15 + removed_rank))
        _wrap(by_rank, rules)
        removal = np.maximum(by_rank[:, 0:13], by_rank[:, 2:15])  # by waste rank 1-13
        won_after_draw = removal[:, waste_after[1:] - 1] >= draws
        deepest = np.where(won_after_draw, draws, 0).max(axis=1)
        limit[low:high, 1:14] = np.maximum(removal, (deepest - 1)[:, None])
    return limit


def best_after_draws(deal: Deal, rules: Rules) -> Int16Array:
    """For each set of removed cards (row) and number drawn (column), the best score
    reachable from the position right after that draw (``drawn = 0``: the deal's waste).

    The pass goes row by row from the full set down. For the row just judged (the sets
    one card larger) it keeps two tables by set and number drawn: ``stay_or_draw``, the
    best of stopping there or drawing on, and ``removal``, by waste rank as well, the best
    of removing a card that waste takes. The best after a removal is the better of the two
    in the set it leads to, the waste being the card removed; a set's ``removal`` is the
    best of its removals of the ranks next to the waste (grouped by set and rank).
    """
    sets = _sets()
    ranks, waste_after = _cards(deal)
    columns = STOCK_SIZE + 1
    drawn = np.arange(columns, dtype=np.int16)
    after_draw = np.empty((len(sets.masks), columns), dtype=np.int16)
    after_draw[-1] = 772 - drawn
    # The tables of the row after (at first, the full set: nothing left to remove). Rows
    # of ``removal`` are (set, waste rank): set * 13 + rank - 1.
    stay_or_draw = after_draw[-1:]
    removal = np.full((13, columns), -1, dtype=np.int16)
    # Scratch room reused by every row (fresh memory each row costs more than the work).
    widest = max(b - a for a, b in itertools.pairwise(sets.bounds))
    by_rank_room = np.empty((widest * 16, columns), dtype=np.int16)
    removal_room = (np.empty((widest * 13, columns), dtype=np.int16),
                    np.empty((widest * 13, columns), dtype=np.int16))
    right_after = (waste_after - 1) * columns + np.arange(columns)  # removal[set], waste after d draws
    for k in range(POSITION_COUNT - 1, -1, -1):
        low, high = sets.bounds[k], sets.bounds[k + 1]
        count = high - low
        edges = slice(sets.edge_bounds[k], sets.edge_bounds[k + 1])
        rank = ranks[sets.edge_position[edges]]
        after = sets.edge_to[edges] - high
        # The best after each removal from this row, then the best by set and rank removed
        # (keys set * 16 + rank fit 16 bits: the widest row has 2,140 sets).
        value = np.maximum(np.take(stay_or_draw, after, axis=0),
                           np.take(removal, after * 13 + rank - 1, axis=0))
        groups, best = _best_by_group(value, ((sets.edge_from[edges] - low) * 16 + rank).astype(np.uint16))
        by_rank = by_rank_room[: count * 16]
        by_rank.fill(-1)
        by_rank[groups] = best
        by_set_rank = by_rank.reshape(count, 16, columns)  # ranks 1-13 at 1-13
        _wrap(by_set_rank, rules)
        removal = removal_room[k % 2][: count * 13]
        np.maximum(by_set_rank[:, 0:13], by_set_rank[:, 2:15], out=removal.reshape(count, 13, columns))
        # This row: right after d draws, stay, remove, or draw on.
        stay = sets.base_score[low:high, None] - drawn
        here = np.maximum(stay, np.take(removal.reshape(count, 13 * columns), right_after, axis=1))
        row = after_draw[low:high]
        row[:] = here
        for d in range(STOCK_SIZE - 1, -1, -1):  # or draw on (quicker than an accumulate)
            np.maximum(row[:, d], row[:, d + 1], out=row[:, d])
        stay_or_draw = stay
        np.maximum(stay[:, :-1], row[:, 1:], out=stay_or_draw[:, :-1])
    return after_draw


# -- the analysis of one deal, and what it answers ------------------------------------------


@dataclass(frozen=True, slots=True)
class PositionVerdict:
    """What the analysis says of one position.

    ``winnable``: all 28 cards can still be removed. ``best_score``: the best score a game
    can still show from here (a win's score when ``winnable``; otherwise the highest the
    score can get, which may be the score already shown). ``move``: an action towards that
    best score (on a winning line when ``winnable``), or ``None`` when no action gets there
    (the game is over, or every action only costs points).
    """

    winnable: bool
    best_score: int
    move: Action | None


@dataclass(frozen=True, eq=False)
class DealAnalysis:
    """Every reachable position of one deal under one rule set, judged (see the module doc).

    Positions are given as ``(removed, drawn, waste)``: a mask of the removed positions,
    the number of cards drawn and the waste card's rank; :meth:`verdict` takes a
    :class:`Game`. Lookups are pure: an instance may be shared between threads.
    """

    code: GameCode
    win_limit: Int8Array
    """Rows: the reachable sets of removed cards; columns: waste rank (1-13). The most
    cards drawn from which the position can be won, ``-1`` when it cannot."""
    best_after_draw: Int16Array | None
    """Rows: the sets; columns: cards drawn. The best score reachable right after a draw;
    ``None`` in an analysis made without scores (``analyse(code, scores=False)``)."""
    ranks: tuple[int, ...]
    waste_after: tuple[int, ...]
    """The waste card's rank after ``d`` draws: the deal's waste card, then the stock."""
    fits: tuple[int, ...]
    """For each waste rank, the mask of positions whose card it takes."""

    @property
    def nbytes(self) -> int:
        """The memory the tables take (the layout they are indexed by is shared by all deals)."""
        scores = 0 if self.best_after_draw is None else self.best_after_draw.nbytes
        return int(self.win_limit.nbytes + scores)

    def _row(self, removed: int) -> int:
        row = _sets().index.get(removed)
        if row is None:
            raise ValueError(f"removed mask {removed:#x} cannot arise in play")
        return row

    def _check(self, drawn: int, waste: int) -> None:
        if not 0 <= drawn <= STOCK_SIZE or not 1 <= waste <= 13:
            raise ValueError(f"no position has {drawn} cards drawn and a waste of rank {waste}")

    def winnable(self, removed: int, drawn: int, waste: int) -> bool:
        """Whether the position can still be won."""
        self._check(drawn, waste)
        return drawn <= int(self.win_limit[self._row(removed), waste])

    def best_score(self, removed: int, drawn: int, waste: int) -> int:
        """The best score reachable from the position (itself included)."""
        self._check(drawn, waste)
        return self._best(removed, drawn, waste, {})

    def _best(self, removed: int, drawn: int, waste: int, memo: dict[int, int]) -> int:
        if self.best_after_draw is None:
            raise ValueError("this analysis was made without scores")
        # Right after a draw (or any position whose waste is the card just drawn: its
        # future is the same) the table has it. Otherwise: staying, drawing, or a removal.
        if removed == FULL:
            return 772 - drawn
        row = self._row(removed)
        if waste == self.waste_after[drawn]:
            return int(self.best_after_draw[row, drawn])
        key = removed << 4 | waste
        known = memo.get(key)
        if known is not None:
            return known
        best = score_of(removed, drawn)
        if drawn < STOCK_SIZE:
            best = max(best, int(self.best_after_draw[row, drawn + 1]))
        playable = _sets().exposed[row] & self.fits[waste]
        while playable:
            low = playable & -playable
            playable ^= low
            p = low.bit_length() - 1
            best = max(best, self._best(removed | low, drawn, self.ranks[p], memo))
        memo[key] = best
        return best

    def winning_move(self, removed: int, drawn: int, waste: int) -> Action | None:
        """An action that keeps a win in reach (``None`` if there is no win from here)."""
        if removed == FULL or not self.winnable(removed, drawn, waste):
            return None
        sets = _sets()
        playable = sets.exposed[self._row(removed)] & self.fits[waste]
        while playable:
            p = playable.bit_length() - 1  # the bottom row first
            playable ^= 1 << p
            after = removed | 1 << p
            if after == FULL or drawn <= int(self.win_limit[sets.index[after], self.ranks[p]]):
                return Action(p)
        return Action(None)  # a winnable position with no winning removal: the draw is

    def after(self, action: Action, removed: int, drawn: int) -> tuple[int, int, int]:
        """The position ``(removed, drawn, waste)`` after ``action`` (not checked)."""
        if action.position is None:
            return removed, drawn + 1, self.waste_after[drawn + 1]
        return removed | 1 << action.position, drawn, self.ranks[action.position]

    def winning_line(self, removed: int, drawn: int, waste: int) -> list[Action] | None:
        """A line of actions from the position to a win, or ``None`` if there is no win."""
        line: list[Action] = []
        while removed != FULL:
            move = self.winning_move(removed, drawn, waste)
            if move is None:
                return None
            line.append(move)
            removed, drawn, waste = self.after(move, removed, drawn)
        return line

    def best_line(self, removed: int, drawn: int, waste: int) -> list[Action]:
        """A line from the position to its best score (to a win, when it can be won)."""
        line: list[Action] = []
        while (move := self.verdict(removed, drawn, waste).move) is not None:
            line.append(move)
            removed, drawn, waste = self.after(move, removed, drawn)
        return line

    def verdict(self, removed: int, drawn: int, waste: int) -> PositionVerdict:
        """Whether the position can be won, its best score, and a move towards that score."""
        self._check(drawn, waste)
        memo: dict[int, int] = {}
        best = self._best(removed, drawn, waste, memo)
        winnable = best >= WON_MIN_SCORE
        move: Action | None = None
        if removed != FULL:
            assert self.best_after_draw is not None  # _best checked it
            row = self._row(removed)
            playable = _sets().exposed[row] & self.fits[waste]
            while playable and move is None:
                p = playable.bit_length() - 1
                playable ^= 1 << p
                if self._best(removed | 1 << p, drawn, self.ranks[p], memo) == best:
                    move = Action(p)
            if (
                move is None
                and drawn < STOCK_SIZE
                and int(self.best_after_draw[row, drawn + 1]) == best
                and best > score_of(removed, drawn)
            ):
                move = Action(None)
        return PositionVerdict(winnable, best, move)

    def of(self, game: Game) -> PositionVerdict:
        """:meth:`verdict` for the game's position (the game must be of this deal)."""
        if game.code != self.code:
            raise ValueError(f"this analysis is of {self.code.text()}, not {game.code_text()}")
        if game.is_over:
            return PositionVerdict(True, game.score, None)
        return self.verdict(game.removed_mask, game.drawn, game.waste.rank)

    def start(self) -> PositionVerdict:
        """The verdict on the deal as dealt."""
        return self.verdict(0, 0, self.waste_after[0])

    def winning_first_moves(self) -> int:
        """How many of the actions open at the deal keep a win in reach (a difficulty input)."""
        playable = _sets().exposed[0] & self.fits[self.waste_after[0]]
        removals = sum(
            self.winnable(1 << p, 0, self.ranks[p]) for p in range(POSITION_COUNT) if playable >> p & 1
        )
        return removals + self.winnable(0, 1, self.waste_after[1])


def fitting_masks(deal: Deal, rules: Rules) -> tuple[int, ...]:
    """For each waste rank (index 1-13), the mask of positions whose card it takes."""
    masks = [0] * 14
    for waste in range(1, 14):
        for p, card in enumerate(deal.tableau):
            if ranks_adjacent(card.rank, waste, rules):
                masks[waste] |= 1 << p
    return tuple(masks)


def analyse(code: GameCode, *, scores: bool = True) -> DealAnalysis:
    """Analyse the deal named by ``code`` under its rules: whether each position can be won
    (about 3 ms of CPU), and with ``scores`` its best score (about 8 ms more)."""
    deal = code.deal()
    return DealAnalysis(
        code=code,
        win_limit=win_limits(deal, code.rules),
        best_after_draw=best_after_draws(deal, code.rules) if scores else None,
        ranks=tuple(card.rank for card in deal.tableau),
        waste_after=(deal.waste.rank, *(card.rank for card in deal.stock)),
        fits=fitting_masks(deal, code.rules),
    )


class AnalysisCache:
    """Recent deals' analyses, the least recently used dropped past ``max_bytes`` in all.

    Thread-safe. :meth:`get` analyses a deal not kept yet (in the calling thread);
    :meth:`put` keeps one made elsewhere (the web app's worker processes).
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._kept: OrderedDict[GameCode, DealAnalysis] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    @property
    def nbytes(self) -> int:
        return self._bytes

    def peek(self, code: GameCode) -> DealAnalysis | None:
        """The deal's analysis if it is kept (it becomes the most recently used)."""
        with self._lock:
            analysis = self._kept.get(code)
            if analysis is not None:
                self._kept.move_to_end(code)
            return analysis

    def get(self, code: GameCode) -> DealAnalysis:
        """The deal's analysis with scores, made now if it is not kept."""
        analysis = self.peek(code)
        if analysis is None:
            analysis = analyse(code)
            self.put(analysis)
        return analysis

    def put(self, analysis: DealAnalysis) -> None:
        if analysis.best_after_draw is None:
            raise ValueError("only analyses with scores are kept")
        with self._lock:
            old = self._kept.pop(analysis.code, None)
            if old is not None:
                self._bytes -= old.nbytes
            self._kept[analysis.code] = analysis
            self._bytes += analysis.nbytes
            while self._bytes > self.max_bytes and len(self._kept) > 1:
                _, dropped = self._kept.popitem(last=False)
                self._bytes -= dropped.nbytes


ANALYSES: Final = AnalysisCache(64 << 20)
"""The analyses :func:`app.engine.solver.hint` uses: 64 MiB, about 45 deals."""
