"""The whole-deal analysis's two backward passes (see :mod:`app.engine.search.analysis`): over the
sets of removed cards that play can reach in the layout (22,932 in three peaks), row by row
(the sets with the same number of cards removed) from the full set down, with numpy.

* :func:`win_limits`: for each set and waste rank, the most cards drawn from which the
  position can still be won.
* :func:`best_after_draws`: for each set and number drawn, the best score reachable right
  after that draw.

The layout they work on (:func:`_sets`: the sets, their exposed cards and the removals
between them) is built once per process and layout, and shared by every deal.

Variants (``docs/variants.md``, section 8): the joker on the waste and an empty waste are
both a *wild* waste, rank 0, which takes every card; the joker in the peaks is rank 0 too,
and fits every waste. The joker's removals are kept apart from the tables by rank (whose
ends hold the K-A wrap) and added to every waste rank. The stock holds 23, 24 or 25 cards
(:attr:`Deal.stock_size`).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import numpy as np
import numpy.typing as npt

from app.engine.deal import Deal, Rules, rank_of
from app.engine.layout import THREE_PEAKS, Layout
from app.engine.rules import best_score, rank_above, rank_below, standard_score

__all__ = ["best_after_draws", "score_of", "win_limits"]

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
    cleared = sum(removed & mask == mask for mask in layout.peak_masks)
    return standard_score(removed.bit_count() + drawn, cleared)


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
    """Fill the unused ends of a table by rank (axis 1: ranks 1-13 at 1-13) so that the
    cards a waste of rank ``r`` takes are at ``r - 1`` and ``r + 1``: with K and A joined,
    below the ace is the king and above the king the ace; apart, nothing."""
    below_ace, above_king = rank_below(1, rules), rank_above(13, rules)
    if below_ace is not None:
        by_rank[:, 0] = by_rank[:, below_ace]
    if above_king is not None:
        by_rank[:, 14] = by_rank[:, above_king]


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


_Rows = tuple[tuple[IntArray, IntArray, IntArray, IntArray, IntArray], ...]


@functools.cache
def _win_rows(layout: Layout) -> _Rows:
    """Each row's removals for the win pass, worked out once per process and layout: the
    sets they are from (from 0 in the row), the sets they lead to, both times 15 (the
    rows of the flattened tables), and the positions removed."""
    sets = _sets(layout)
    rows = []
    for k in range(layout.count):
        edges = slice(sets.edge_bounds[k], sets.edge_bounds[k + 1])
        edge_from, edge_to = sets.edge_from[edges] - sets.bounds[k], sets.edge_to[edges]
        rows.append((edge_from, edge_to, edge_from * 15, edge_to * 15, sets.edge_position[edges]))
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
        edge_from, edge_to, from15, to15, position = _win_rows(layout)[k]
        removed_rank = np.take(ranks, position)
        if jokers:
            joker = removed_rank == 0
            joker_best = _joker_best(limit[edge_to[joker], 0], edge_from[joker], high - low, NONE)
            from15, to15, removed_rank = from15[~joker], to15[~joker], removed_rank[~joker]
        # by_rank[i, q]: the best limit after removing from set i a card of rank q (the
        # tables are flattened, row * 15 + rank: numpy's maximum.at is quick in one dimension).
        by_rank = np.full((high - low, 15), NONE, dtype=np.int8)
        np.maximum.at(by_rank.reshape(-1), from15 + removed_rank, np.take(limit, to15 + removed_rank))
        wild = by_rank[:, 1:14].max(axis=1) if wild_waste else None  # takes every card
        _wrap(by_rank, rules)
        removal = np.maximum(by_rank[:, 0:13], by_rank[:, 2:15])  # by waste rank 1-13
        if jokers:
            np.maximum(removal, joker_best[:, None], out=removal)  # the joker fits every waste
        first = 1  # the waste rank of removal's first column
        if wild is not None:
            wild = np.maximum(wild, joker_best) if jokers else wild
            removal, first = np.concatenate([wild[:, None], removal], axis=1), 0
        won_after_draw = removal[:, waste_after[1:] - first] >= draws
        deepest = np.where(won_after_draw, draws, 0).max(axis=1)
        limit[low:high, first:14] = np.maximum(removal, (deepest - 1)[:, None])
    return limit


def _neighbour_slots(rules: Rules) -> tuple[IntArray, IntArray]:
    """For a waste rank ``w`` (0-13), the slots of the ranks it takes: below and above (14,
    a slot never filled, where there is none: past the ace or the king with K and A apart;
    and for the wild waste, rank 0, which the caller asks on its own)."""
    below = np.full(14, 14, dtype=np.intp)
    above = np.full(14, 14, dtype=np.intp)
    for w in range(1, 14):
        below[w] = rank_below(w, rules) or 14
        above[w] = rank_above(w, rules) or 14
    return below, above


@dataclass
class _Removals:
    """A row of sets' removals by waste rank, kept sparse: the best after each removal,
    grouped by (set, slot) (slot: the rank removed, 15 for the joker). ``groups[lookup[set *
    16 + slot]]`` is that group's best by number drawn; the last row of ``groups`` is -1
    (no such removal). ``wild``: the best of all a set's removals (a wild waste takes
    every card), when a waste can be wild."""

    groups: Int16Array
    lookup: Int32Array
    wild: Int16Array | None

    def take_into(self, value: Int16Array, scratch: Int16Array, base: IntArray, waste: IntArray,
                  below: IntArray, above: IntArray, jokers: bool) -> None:
        """For each (set, waste rank) pair, raise ``value`` (a row each) to the best removal
        that waste takes, by number drawn (``scratch``: room of the same shape; ``base``:
        each set's index times 16)."""
        lookup, groups = self.lookup, self.groups
        keys = [base + np.take(below, waste), base + np.take(above, waste)]
        if jokers:  # the joker fits every waste
            keys.append(base + 15)
        for key in keys:
            np.take(groups, np.take(lookup, key), axis=0, out=scratch, mode="clip")
            np.maximum(value, scratch, out=value)
        if self.wild is not None:  # a wild waste takes every removal (the joker's among them)
            wild = np.flatnonzero(waste == 0)
            if wild.size:
                value[wild] = np.maximum(value[wild], np.take(self.wild, np.take(base, wild) >> 4, axis=0))

    def after_draws(self, count: int, waste_after: IntArray, below: IntArray, above: IntArray,
                    jokers: bool) -> Int16Array:
        """For each set of the row (``count``) and number drawn ``d``: the best removal the
        waste after ``d`` draws takes, with ``d`` drawn."""
        columns = len(waste_after)
        lookup = self.lookup.reshape(count, 16)
        flat = self.groups.reshape(-1)
        column = np.arange(columns)
        cells = np.take(lookup, np.take(below, waste_after), axis=1)
        cells *= columns
        cells += column
        best = np.take(flat, cells)
        np.take(lookup, np.take(above, waste_after), axis=1, out=cells)
        cells *= columns
        cells += column
        np.maximum(best, np.take(flat, cells), out=best)
        if jokers:
            np.maximum(best, np.take(flat, lookup[:, 15:16] * columns + column), out=best)
        if self.wild is not None:
            wild = np.flatnonzero(waste_after == 0)
            if wild.size:
                best[:, wild] = self.wild[:, wild]
        return best


@dataclass(frozen=True)
class _RowShapes:
    """What the best-score pass asks of each row of a layout's sets, worked out once per
    process and layout: ``rows[k]``, the row's removals' sets (from 0 in the row), the sets
    they lead to (from 0 in the row after) and both times 16, and the positions removed."""

    rows: tuple[tuple[IntArray, IntArray, IntArray, IntArray, IntArray], ...]
    widest: int
    """The most removals from one row."""
    most_sets: int
    """The most sets in one row."""
    numbers: IntArray
    """0, 1, 2, ... (``widest`` of them)."""


@functools.cache
def _row_shapes(layout: Layout) -> _RowShapes:
    sets = _sets(layout)
    rows = []
    for k in range(layout.count):
        low, high = sets.bounds[k], sets.bounds[k + 1]
        edges = slice(sets.edge_bounds[k], sets.edge_bounds[k + 1])
        edge_from, after = sets.edge_from[edges] - low, sets.edge_to[edges] - high
        rows.append((edge_from, after, after * 16, edge_from * 16, sets.edge_position[edges].copy()))
    widest = max(len(row[0]) for row in rows)
    most_sets = max(b - a for a, b in zip(sets.bounds, sets.bounds[1:], strict=False))
    return _RowShapes(tuple(rows), widest, most_sets, np.arange(widest, dtype=np.intp))


def best_after_draws(deal: Deal, rules: Rules, layout: Layout = THREE_PEAKS) -> Int16Array:
    """For each set of removed cards (row) and number drawn (column), the best score
    reachable from the position right after that draw (``drawn = 0``: the deal's waste).

    The pass goes row by row from the full set down. For the row just judged (the sets
    one card larger) it keeps two tables by set and number drawn: ``stay_or_draw``, the
    best of stopping there or drawing on, and ``removals``, the best of each removal
    grouped by set and rank removed (:class:`_Removals`). The best after a removal is the
    better of the two in the set it leads to, the waste being the card removed: a
    removal of a rank next to it (its group, one lookup per neighbour rank).

    The groups are kept sparse (a set's exposed cards show a few ranks of the 13): a table
    by set and rank costs per set and grows with the layout's sets faster than the
    removals do (``docs/performance.md``, the layouts' analysis).
    """
    shape = _row_shapes(layout)
    columns = deal.stock_size + 1
    with _room(shape, columns) as (room, lookups):
        return _best_after_draws(deal, rules, layout, room, lookups)


@contextlib.contextmanager
def _room(shape: _RowShapes, columns: int) -> Iterator[tuple[Int16Array, Int32Array]]:
    """The best-score pass's room: the one kept from an earlier deal if it is large enough
    (one is kept, the largest made: 8.8 MB in the valley), else a new one."""
    global _kept
    groups, lookups = 3 * (shape.widest + 1) * columns, 2 * shape.most_sets * 16
    with _KEPT_LOCK:
        kept, _kept = _kept, None
    if kept is None or kept[0].size < groups or kept[1].size < lookups:
        kept = np.empty(groups, dtype=np.int16), np.empty(lookups, dtype=np.int32)
    yield kept[0][:groups].reshape(3, shape.widest + 1, columns), kept[1][:lookups].reshape(2, -1)
    with _KEPT_LOCK:
        if _kept is None or _kept[0].size < kept[0].size:
            _kept = kept


_kept: tuple[Int16Array, Int32Array] | None = None
_KEPT_LOCK = threading.Lock()


def _best_after_draws(deal: Deal, rules: Rules, layout: Layout, room: Int16Array,
                      lookups: Int32Array) -> Int16Array:
    sets = _sets(layout)
    shape = _row_shapes(layout)
    ranks, waste_after = _cards(deal)
    stock = deal.stock_size
    jokers = bool((ranks == 0).any())
    wild_waste = jokers or bool((waste_after == 0).any())  # else no waste is ever wild
    columns = stock + 1
    drawn = np.arange(columns, dtype=np.int16)
    below, above = _neighbour_slots(rules)
    after_draw = np.empty((len(sets.masks), columns), dtype=np.int16)
    after_draw[-1] = best_score(layout) - drawn
    # The tables of the row after (at first, the full set: nothing left to remove).
    stay_or_draw = after_draw[-1:]
    first = room[layout.count % 2, :1]  # the row after the first row judged, k = count - 1
    first[:] = -1
    removals = _Removals(first, np.zeros(16, dtype=np.int32),
                         np.full((1, columns), -1, dtype=np.int16) if wild_waste else None)
    pick = np.empty(shape.widest, dtype=np.intp)  # an other of each group (below)
    for k in range(layout.count - 1, -1, -1):
        low, high = sets.bounds[k], sets.bounds[k + 1]
        count = high - low
        edge_from, after, after16, from16, position = shape.rows[k]
        rank = np.take(ranks, position)
        removal_count = len(rank)
        # The best after each removal from this row (the waste is then the card removed:
        # the joker's is wild), written straight into this row's groups.
        groups = room[k % 2, :removal_count + 1]
        value = groups[:-1]
        np.take(stay_or_draw, after, axis=0, out=value, mode="clip")
        removals.take_into(value, room[2, :removal_count], after16, rank, below, above, jokers)
        groups[-1] = -1
        wild = None
        if wild_waste:  # a set's removals are consecutive (edges are ordered by set)
            starts = np.flatnonzero(np.r_[True, edge_from[1:] != edge_from[:-1]])
            wild = np.maximum.reduceat(value, starts, axis=0)
        # Grouped by set and rank removed: each group's last removal holds the group's best.
        key = from16 + (np.where(rank == 0, 15, rank) if jokers else rank)
        lookup = lookups[k % 2, :count * 16]
        lookup.fill(removal_count)
        numbered = shape.numbers[:removal_count]
        lookup[key] = numbered
        holder = np.take(lookup, key)
        others = np.flatnonzero(holder != numbered)  # a rank shown twice in a set
        while others.size:  # the others' rows are never a group's last: they stay as they were
            # Folded in by whole rows, one other per group at a time (the last one left of
            # each: written last); a group seldom has more than two.
            into = np.take(holder, others)
            pick[into] = others
            once = np.take(pick, into) == others
            into, rows = into[once], others[once]
            groups[into] = np.maximum(np.take(groups, into, axis=0), np.take(value, rows, axis=0))
            others = others[~once]
        removals = _Removals(groups, lookup, wild)
        # This row: right after d draws, stay, remove, or draw on.
        stay = sets.base_score[low:high, None] - drawn
        here = removals.after_draws(count, waste_after, below, above, jokers)
        row = after_draw[low:high]
        np.maximum(stay, here, out=row)
        for d in range(stock - 1, -1, -1):  # or draw on (quicker than an accumulate)
            np.maximum(row[:, d], row[:, d + 1], out=row[:, d])
        # Stay or draw on, in one run over the row's cells (a slice of columns is many short
        # runs, 25 times slower); the last column, with no card left to draw, only stays.
        stay_or_draw = stay
        cells_in_turn = stay.reshape(-1)
        np.maximum(cells_in_turn[:-1], row.reshape(-1)[1:], out=cells_in_turn[:-1])
        stay_or_draw[:, -1] = sets.base_score[low:high] - stock
    return after_draw
