"""Traditional scoring (variant ``T``, ``docs/variants.md`` sections 5 and 8) in the
whole-deal analysis: the best score is a longest-runs objective.

Under traditional scoring a removal scores its place in its run (1, 2, 3, ...), a draw
ends the run and costs 5, and the peaks pay 15, 15 and 30. Whether a position can be won
does not change (the rules of play are the same: ``win_limit`` is reused), but the best
score does. The future gain from a position depends on ``(removed, drawn, waste, run)``:
a plan whose next ``k`` removals continue the current run of ``run`` removals gains
``k * run + c``, so the best gain is the upper envelope of lines in ``run``.

Right after a draw (or at the deal) the run is 0 and the waste is the stock card just
drawn, so, as in the standard pass, one table is kept: the best gain right after each
draw, per set and number drawn (:func:`run_best_after_draws`). Any other position's is
found by a short search over its run of removals, carrying the run (:func:`best_gain`).

The pass (backward over the rows of sets, as :func:`app.engine.search.best_pass.best_after_draws`)
keeps, for the row just judged, ``M[set, waste, k - 1, drawn]``: the best over runs of
exactly ``k`` more removals of what the run's end is worth (its peak bonus, then the best
of stopping or drawing on). From the start of a run the gain is ``1 + 2 + ... + k`` plus
that, less the set's own bonus. The extra ``k`` axis is capped by the longest run the
cards allow from each row, which is what makes this pass several times the standard one.
"""

from __future__ import annotations

import functools
from typing import Final

import numpy as np

from app.engine.deal import Deal, Rules
from app.engine.layout import THREE_PEAKS, Layout
from app.engine.rules import RANKS, TRADITIONAL_DRAW_COST, rank_above, rank_below, traditional_peak_bonus
from app.engine.search.passes import Int16Array, IntArray, _best_by_group, _cards, _sets

__all__ = ["best_gain", "peak_bonus", "run_best_after_draws"]

_NONE: Final = -10_000
"""No run of that length: below any real value even with a run's points added (at most 406)."""

_DRAW: Final = TRADITIONAL_DRAW_COST


def peak_bonus(removed: int, layout: Layout = THREE_PEAKS) -> int:
    """The traditional peak bonus of a set of removed cards: 15, 15, then 30 (60 for all three)."""
    return traditional_peak_bonus(layout.cleared_count(removed), layout.peak_count)


@functools.cache
def _bonuses(layout: Layout) -> Int16Array:
    return np.array([peak_bonus(m, layout) for m in _sets(layout).masks], dtype=np.int16)


def _neighbours(rules: Rules) -> tuple[IntArray, IntArray]:
    """For each rank 1-13 (index 0 unused), the ranks just below and just above it (0: none;
    with K and A joined the ace and the king are next to each other)."""
    lower = np.array([0, *(rank_below(r, rules) or 0 for r in RANKS)], dtype=np.intp)
    upper = np.array([0, *(rank_above(r, rules) or 0 for r in RANKS)], dtype=np.intp)
    return lower, upper


def run_best_after_draws(deal: Deal, rules: Rules, layout: Layout = THREE_PEAKS) -> Int16Array:
    """For each set of removed cards (row) and number drawn (column): the best gain in
    traditional points from the position right after that draw (the run 0), stopping
    allowed (so never below 0). ``drawn = 0`` is the deal's start, its waste the deal's.

    For the row just judged it keeps, per set ``S`` and rank ``q`` of an exposed card (the
    joker at 15), ``B[S, q][j, d]``: the best, over removing a card of rank ``q`` from ``S``
    and then a run of exactly ``j`` more removals, of what the run's end is worth with ``d``
    drawn (its peak bonus, then the best of stopping or drawing on). A run of ``k`` from a
    waste of rank ``w`` is then the best of ``B[S, q][k - 1]`` over the ranks ``q`` next to
    ``w`` (every rank when the waste is wild), and a run of ``k`` from the start of a run
    scores ``1 + 2 + ... + k``.
    """
    sets = _sets(layout)
    bonus = _bonuses(layout)
    ranks, waste_after = _cards(deal)
    stock = deal.stock_size
    columns = stock + 1
    lower, upper = _neighbours(rules)
    jokers = bool((ranks == 0).any())
    is_wild = waste_after == 0
    wild_waste = jokers or bool(is_wild.any())
    gain = np.empty((len(sets.masks), columns), dtype=np.int16)
    gain[-1] = 0  # all removed: the game is over
    triangle = np.cumsum(np.arange(layout.count + 2), dtype=np.int16)  # 0, 1, 3, 6, ...
    # The row after (at first, the full set, with no card to remove).
    end_next = np.full((1, columns), bonus[-1], dtype=np.int16)
    b_next = np.full((1, 0, columns), _NONE, dtype=np.int16)  # the groups' B, a last row of _NONE
    index_next = np.zeros(16, dtype=np.intp)  # set * 16 + rank -> its group in b_next
    wild_next: Int16Array | None = None
    for n in range(layout.count - 1, -1, -1):
        low, high = sets.bounds[n], sets.bounds[n + 1]
        count = high - low
        edges = slice(sets.edge_bounds[n], sets.edge_bounds[n + 1])
        rank = ranks[sets.edge_position[edges]]
        after = sets.edge_to[edges] - high
        depth = b_next.shape[1] + 1
        # After each removal (waste: the card removed): its end, or runs of 1, 2, ... more.
        value = np.empty((len(rank), depth, columns), dtype=np.int16)
        value[:, 0] = np.take(end_next, after, axis=0)
        if depth > 1:
            value[:, 1:] = _runs_from(b_next, index_next, after * 16, rank, lower, upper, jokers)
            if jokers and wild_next is not None:
                joker = rank == 0
                value[joker, 1:] = np.take(wild_next, after[joker], axis=0)
        slot = np.where(rank == 0, 15, rank) if jokers else rank
        key = ((sets.edge_from[edges] - low) * 16 + slot).astype(sets.key_type)
        keys, best = _best_by_group(value.reshape(len(rank), depth * columns), key)
        best = best.reshape(len(keys), depth, columns)
        allowed = np.flatnonzero((best[:, :, 0] > _NONE).any(axis=0))
        depth = int(allowed[-1]) + 1  # the longest run the cards allow from this row, and one
        best = best[:, :depth]
        index = np.full(count * 16, len(keys), dtype=np.intp)
        index[keys] = np.arange(len(keys))
        b = np.concatenate([best, np.full((1, depth, columns), _NONE, dtype=np.int16)])
        wild = None
        if wild_waste:  # a wild waste takes every card: the best over the set's groups
            _, wild = _best_by_group(best.reshape(len(keys), -1), (keys >> 4).astype(sets.key_type))
            wild = wild.reshape(count, depth, columns)  # every set of the row has a card exposed
        # Right after d draws: a run of k >= 1 from the waste after d draws, its points
        # 1 + ... + k; or no removal: stop or draw on (below).
        at = np.arange(count)[:, None] * 16
        drawn = np.arange(columns)[None, :]
        start = np.maximum(b[index[at + lower[waste_after]], :, drawn],
                           b[index[at + upper[waste_after]], :, drawn])  # (count, columns, depth)
        if jokers:
            np.maximum(start, b[index[at + 15], :, drawn], out=start)
        if wild is not None and is_wild.any():
            start[:, is_wild] = wild[:, :, is_wild].transpose(0, 2, 1)
        run = (start + triangle[1 : depth + 1]).max(axis=2)
        run -= bonus[low:high, None]
        row = gain[low:high]
        np.maximum(run, 0, out=row)
        for d in range(stock - 1, -1, -1):
            np.maximum(row[:, d], row[:, d + 1] - _DRAW, out=row[:, d])
        end_next = np.empty((count, columns), dtype=np.int16)
        end_next[:, :-1] = np.maximum(row[:, 1:] - _DRAW, 0)
        end_next[:, -1] = 0
        end_next += bonus[low:high, None]
        b_next, index_next, wild_next = b, index, wild
    return gain


def _runs_from(
    b: Int16Array, index: IntArray, base: IntArray, rank: IntArray,
    lower: IntArray, upper: IntArray, jokers: bool,
) -> Int16Array:
    """For each item (its set's ``set * 16`` in ``base``, a waste of ``rank`` 1-13): the best
    of ``b`` over the ranks next to the waste, and the joker's."""
    out: Int16Array = np.maximum(np.take(b, index[base + lower[rank]], axis=0),
                                 np.take(b, index[base + upper[rank]], axis=0))
    if jokers:
        np.maximum(out, np.take(b, index[base + 15], axis=0), out=out)
    return out


def best_gain(
    table: Int16Array,
    fits: tuple[int, ...],
    tableau_ranks: tuple[int, ...],
    position: tuple[int, int, int, int],
    memo: dict[int, int],
    layout: Layout = THREE_PEAKS,
) -> int:
    """The best gain in traditional points from ``position``: ``(removed, drawn, waste,
    run)``, in the middle of a run of ``run`` removals (``run = 0``: right after a draw or at
    the deal, where ``table``, from :func:`run_best_after_draws`, has it). A short search
    over the run's removals; ``memo`` (by set and waste) may be shared by the searches from
    positions of the same run (in one run the run's length follows from the set)."""
    sets = _sets(layout)
    full = layout.all_mask
    removed, drawn, waste, run = position
    stock_size = table.shape[1] - 1

    def search(removed: int, waste: int, run: int) -> int:
        if removed == full:
            return 0
        row = sets.index[removed]
        if run == 0:
            return int(table[row, drawn])
        key = removed << 4 | waste
        known = memo.get(key)
        if known is not None:
            return known
        best = 0  # stop here
        if drawn < stock_size:
            best = max(best, int(table[row, drawn + 1]) - _DRAW)
        playable = sets.exposed[row] & fits[waste]
        here = peak_bonus(removed, layout)
        while playable:
            low = playable & -playable
            playable ^= low
            after = removed | low
            p = low.bit_length() - 1
            points = run + 1 + peak_bonus(after, layout) - here
            best = max(best, points + search(after, tableau_ranks[p], run + 1))
        memo[key] = best
        return best

    return search(removed, waste, run)
