"""The whole-deal analysis's two backward passes (see :mod:`app.engine.search.analysis`): over the
sets of removed cards that play can reach in the layout (22,932 in three peaks), row by row
(the sets with the same number of cards removed) from the full set down, with numpy.

* :func:`win_limits`: for each set and waste rank, the most cards drawn from which the
  position can still be won.
* :func:`app.engine.search.best_pass.best_after_draws`: for each set and number drawn, the
  best score reachable right after that draw (its own module).

The layout they work on (:func:`_sets`: the sets, their exposed cards and the removals
between them) is built once per process and layout, and shared by every deal.

Variants (``docs/variants.md``, section 8): the joker on the waste and an empty waste are
both a *wild* waste, rank 0, which takes every card; the joker in the peaks is rank 0 too,
and fits every waste. The joker's removals are kept apart from the tables by rank (whose
ends hold the K-A wrap) and added to every waste rank. The stock holds 23, 24 or 25 cards
(:attr:`Deal.stock_size`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import numpy as np
import numpy.typing as npt

from app.engine.deal import Deal, Rules, rank_of
from app.engine.layout import THREE_PEAKS, Layout
from app.engine.rules import rank_above, rank_below, standard_score

__all__ = ["score_of", "win_limits"]

NONE: Final = -1
"""``win_limit`` of a position that cannot be won from any number drawn."""

Int8Array = npt.NDArray[np.int8]
Int16Array = npt.NDArray[np.int16]
Int32Array = npt.NDArray[np.int32]
KeyArray = npt.NDArray[np.unsignedinteger[Any]]
IntArray = npt.NDArray[np.intp]


# -- the layout: every set of removed cards, row by row, and the removals between them -----


@dataclass(frozen=True)
class _Sets:
    """The reachable sets of removed positions of a layout, ordered by size, and their removals.

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
    """The standard score of set ``i`` with nothing drawn."""
    layout: Layout
    key_type: type[np.unsignedinteger[Any]]
    """Keys (set in row, rank) fit 16 bits in three peaks (sorted by radix); 32 in bigger layouts."""


def score_of(removed: int, drawn: int, layout: Layout = THREE_PEAKS) -> int:
    """The game's score at a position (undo restores it exactly, so it depends on nothing else)."""
    return standard_score(removed.bit_count() + drawn, layout.cleared_count(removed))


@functools.cache
def _sets(layout: Layout = THREE_PEAKS) -> _Sets:
    seen = {0}
    rows: list[list[int]] = [[0]]
    count = layout.count
    for _ in range(count):
        following: set[int] = set()
        for removed in rows[-1]:
            bits = layout.exposed(removed)
            while bits:
                low = bits & -bits
                bits ^= low
                following.add(removed | low)
        seen |= following
        rows.append(sorted(following))
    masks = tuple(m for row in rows for m in row)
    index = {m: i for i, m in enumerate(masks)}
    exposed = tuple(layout.exposed(m) for m in masks)
    bounds = [0]
    for row in rows:
        bounds.append(bounds[-1] + len(row))
    edge_from: list[int] = []
    edge_to: list[int] = []
    edge_position: list[int] = []
    edge_bounds = [0]
    for k in range(count + 1):
        for i in range(bounds[k], bounds[k + 1]):
            for p in range(count):
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
        base_score=np.array([score_of(m, 0, layout) for m in masks], dtype=np.int16),
        layout=layout,
        key_type=np.uint16 if max(map(len, rows)) * 16 <= 1 << 16 else np.uint32,
    )


def _wrap(by_rank: npt.NDArray[np.generic], rules: Rules) -> None:
    """Fill the unused ends of a table by rank (axis 0: ranks 1-13 at 1-13) so that the
    cards a waste of rank ``r`` takes are at ``r - 1`` and ``r + 1``: with K and A joined,
    below the ace is the king and above the king the ace; apart, nothing."""
    below_ace, above_king = rank_below(1, rules), rank_above(13, rules)
    if below_ace is not None:
        by_rank[0] = by_rank[below_ace]
    if above_king is not None:
        by_rank[14] = by_rank[above_king]


def _best_by_group(values: Int16Array, key: KeyArray) -> tuple[KeyArray, Int16Array]:
    """The largest of ``values`` (rows) in each group named by ``key``: the groups present
    (ascending) and their maxima.

    Sorted by group (a radix sort when the keys are 16-bit), each group's last row is its
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
    """The tableau's ranks, and the waste rank after ``d`` draws (0: the joker or no waste)."""
    ranks = np.array([card.rank for card in deal.tableau], dtype=np.intp)
    waste_after = np.array([rank_of(deal.waste), *(c.rank for c in deal.stock)], dtype=np.intp)
    return ranks, waste_after


_Values = TypeVar("_Values", Int8Array, Int16Array)


def _joker_best(values: _Values, edge_from: IntArray, rows: int, empty: int) -> _Values:
    """For each set of the row, the best of ``values`` over its joker removals (``empty``: none)."""
    best = np.full((rows, *values.shape[1:]), empty, dtype=values.dtype)
    np.maximum.at(best, edge_from, values)
    return best


_Rows = tuple[tuple[IntArray, IntArray, IntArray, IntArray], ...]


@functools.cache
def _win_rows(layout: Layout) -> _Rows:
    """Each row's removals for the win pass, worked out once per process and layout: the
    sets they are from (from 0 in the row), the sets they lead to, those times 15 (their
    rows in the flattened table), and the positions removed."""
    sets = _sets(layout)
    rows = []
    for k in range(layout.count):
        edges = slice(sets.edge_bounds[k], sets.edge_bounds[k + 1])
        edge_from, edge_to = sets.edge_from[edges] - sets.bounds[k], sets.edge_to[edges]
        rows.append((edge_from, edge_to, edge_to * 15, sets.edge_position[edges]))
    return tuple(rows)


def win_limits(deal: Deal, rules: Rules, layout: Layout = THREE_PEAKS) -> Int8Array:
    """For each set of removed cards (row ``i``) and waste rank (column 1-13): the most cards
    drawn from which the position can still be won (``-1``: from none).

    Set ``i``'s positions are won through a removal (the set one card larger, waste the card
    removed: its limit, if the removed card fits the waste) or through a draw. Drawing from
    ``drawn`` leads to the position right after ``drawn + 1`` draws, whose waste is that
    stock card; so set ``i`` can be won by drawing from any ``drawn`` below the deepest
    number of draws ``d`` whose position can be won by a removal.
    """
    sets = _sets(layout)
    ranks, waste_after = _cards(deal)
    stock = deal.stock_size
    jokers = bool((ranks == 0).any())
    wild_waste = jokers or bool((waste_after == 0).any())  # else column 0 is never asked
    draws = np.arange(1, stock + 1, dtype=np.int8)
    # Column r: waste rank r (0: wild, the joker or an empty waste). Column 14 is unused.
    limit = np.full((len(sets.masks), 15), NONE, dtype=np.int8)
    limit[-1, 0:14] = stock  # all removed: won, from any number drawn
    for k in range(layout.count - 1, -1, -1):
        low, high = sets.bounds[k], sets.bounds[k + 1]
        count = high - low
        edge_from, edge_to, to15, position = _win_rows(layout)[k]
        removed_rank = np.take(ranks, position)
        if jokers:
            joker = removed_rank == 0
            joker_best = _joker_best(limit[edge_to[joker], 0], edge_from[joker], count, NONE)
            edge_from, to15, removed_rank = edge_from[~joker], to15[~joker], removed_rank[~joker]
        # by_rank[q, i]: the best limit after removing from set i a card of rank q. Rank by
        # rank (a row each), so that what follows works on whole rows, not on short rows of
        # 15 (three times quicker); flattened, q * count + i: numpy's maximum.at is quick in
        # one dimension.
        by_rank = np.full((15, count), NONE, dtype=np.int8)
        np.maximum.at(by_rank.reshape(-1), removed_rank * count + edge_from,
                      np.take(limit, to15 + removed_rank))
        wild = by_rank[1:14].max(axis=0) if wild_waste else None  # takes every card
        _wrap(by_rank, rules)
        removal = np.maximum(by_rank[0:13], by_rank[2:15])  # by waste rank 1-13
        if jokers:
            np.maximum(removal, joker_best, out=removal)  # the joker fits every waste
        first = 1  # the waste rank of removal's first row
        if wild is not None:
            wild = np.maximum(wild, joker_best) if jokers else wild
            removal, first = np.concatenate([wild[None, :], removal]), 0
        won_after_draw = np.take(removal, waste_after[1:] - first, axis=0) >= draws[:, None]
        deepest = np.where(won_after_draw, draws[:, None], 0).max(axis=0)
        np.maximum(removal, deepest - 1, out=removal)
        limit[low:high, first:14] = removal.T
    return limit
