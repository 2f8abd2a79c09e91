"""The whole-deal analysis's best-score pass (see :mod:`app.engine.search.analysis`): for
each set of removed cards and number drawn, the best score reachable right after that draw,
row by row from the full set down, with numpy, over the layout's sets of
:mod:`app.engine.search.passes`.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from app.engine.deal import Deal, Rules
from app.engine.layout import THREE_PEAKS, Layout
from app.engine.rules import best_score, rank_above, rank_below
from app.engine.search.passes import Int16Array, Int32Array, IntArray, _cards, _sets

__all__ = ["best_after_draws"]


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
