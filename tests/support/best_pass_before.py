"""The best-score pass as it was before issue 25's rewrite (commit 489d825): every removal's
value by number drawn, kept sparse and grouped by set and rank. The tests compare the pass of
:mod:`app.engine.search.passes` with it, table against table, bit for bit."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.engine.deal import Deal, Rules
from app.engine.layout import THREE_PEAKS, Layout
from app.engine.rules import best_score, rank_above, rank_below
from app.engine.search.passes import Int16Array, IntArray, _cards, _sets


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
    lookup: IntArray
    wild: Int16Array | None

    def taken_by(self, sets: IntArray, waste: IntArray, below: IntArray, above: IntArray,
                 jokers: bool) -> Int16Array:
        """For each (set, waste rank) pair, the best removal that waste takes, by number drawn."""
        base = sets * 16
        lookup, groups = self.lookup, self.groups
        best = np.maximum(np.take(groups, np.take(lookup, base + np.take(below, waste)), axis=0),
                          np.take(groups, np.take(lookup, base + np.take(above, waste)), axis=0))
        if jokers:  # the joker fits every waste
            np.maximum(best, np.take(groups, np.take(lookup, base + 15), axis=0), out=best)
        if self.wild is not None:
            wild = np.flatnonzero(waste == 0)
            if wild.size:
                best[wild] = np.take(self.wild, np.take(sets, wild), axis=0)
        return best


    def after_draws(self, count: int, waste_after: IntArray, below: IntArray, above: IntArray,
                    jokers: bool) -> Int16Array:
        """For each set of the row (``count``) and number drawn ``d``: the best removal the
        waste after ``d`` draws takes, with ``d`` drawn."""
        columns = len(waste_after)
        lookup = self.lookup.reshape(count, 16)
        flat = self.groups.reshape(-1)
        column = np.arange(columns)
        under = np.take(lookup, np.take(below, waste_after), axis=1) * columns + column
        over = np.take(lookup, np.take(above, waste_after), axis=1) * columns + column
        best = np.maximum(np.take(flat, under), np.take(flat, over))
        if jokers:
            np.maximum(best, np.take(flat, lookup[:, 15:16] * columns + column), out=best)
        if self.wild is not None:
            wild = np.flatnonzero(waste_after == 0)
            if wild.size:
                best[:, wild] = self.wild[:, wild]
        return best


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
    sets = _sets(layout)
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
    removals = _Removals(np.full((1, columns), -1, dtype=np.int16), np.zeros(16, dtype=np.intp),
                         np.full((1, columns), -1, dtype=np.int16) if wild_waste else None)
    column_of = np.arange(columns)
    for k in range(layout.count - 1, -1, -1):
        low, high = sets.bounds[k], sets.bounds[k + 1]
        count = high - low
        edges = slice(sets.edge_bounds[k], sets.edge_bounds[k + 1])
        rank = ranks[sets.edge_position[edges]]
        after = sets.edge_to[edges] - high
        edge_from = sets.edge_from[edges] - low
        # The best after each removal from this row (the waste is then the card removed:
        # the joker's is wild).
        value = np.maximum(np.take(stay_or_draw, after, axis=0),
                           removals.taken_by(after, rank, below, above, jokers))
        # Grouped by set and rank removed: each group's last removal holds the group's best.
        removal_count = len(rank)
        slot = np.where(rank == 0, 15, rank) if jokers else rank
        key = edge_from * 16 + slot
        lookup = np.full(count * 16, removal_count, dtype=np.intp)
        lookup[key] = np.arange(removal_count)
        holder = lookup[key]
        others = np.flatnonzero(holder != np.arange(removal_count))  # a rank shown twice in a set
        groups = np.empty((removal_count + 1, columns), dtype=np.int16)
        groups[:-1] = value
        groups[-1] = -1
        if others.size:
            cells = (holder[others, None] * columns + column_of).reshape(-1)
            np.maximum.at(groups.reshape(-1), cells, value[others].reshape(-1))
        wild = None
        if wild_waste:  # a set's removals are consecutive (edges are ordered by set)
            starts = np.flatnonzero(np.r_[True, edge_from[1:] != edge_from[:-1]])
            wild = np.maximum.reduceat(value, starts, axis=0)
        removals = _Removals(groups, lookup, wild)
        # This row: right after d draws, stay, remove, or draw on.
        stay = sets.base_score[low:high, None] - drawn
        here = removals.after_draws(count, waste_after, below, above, jokers)
        row = after_draw[low:high]
        np.maximum(stay, here, out=row)
        for d in range(stock - 1, -1, -1):  # or draw on (quicker than an accumulate)
            np.maximum(row[:, d], row[:, d + 1], out=row[:, d])
        stay_or_draw = stay
        np.maximum(stay[:, :-1], row[:, 1:], out=stay_or_draw[:, :-1])
    return after_draw
