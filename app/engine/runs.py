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

The pass (backward over the rows of sets, as :func:`app.engine.passes.best_after_draws`)
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
from app.engine.game import TRADITIONAL_DRAW_COST, TRADITIONAL_PEAK_BONUS
from app.engine.layout import ALL_POSITIONS_MASK, PEAK_MASKS, POSITION_COUNT
from app.engine.passes import Int16Array, _best_by_group, _cards, _sets, _wrap

__all__ = ["best_gain", "peak_bonus", "run_best_after_draws"]

_NONE: Final = -10_000
"""No run of that length: below any real value even with a run's points added (at most 406)."""

_DRAW: Final = TRADITIONAL_DRAW_COST


def peak_bonus(removed: int) -> int:
    """The traditional peak bonus of a set of removed cards: 15, 15, then 30 (60 for all three)."""
    return TRADITIONAL_PEAK_BONUS[sum(removed & mask == mask for mask in PEAK_MASKS)]


@functools.cache
def _bonuses() -> Int16Array:
    return np.array([peak_bonus(m) for m in _sets().masks], dtype=np.int16)


def run_best_after_draws(deal: Deal, rules: Rules) -> Int16Array:
    """For each set of removed cards (row) and number drawn (column): the best gain in
    traditional points from the position right after that draw (the run 0), stopping
    allowed (so never below 0). ``drawn = 0`` is the deal's start, its waste the deal's."""
    sets = _sets()
    bonus = _bonuses()
    ranks, waste_after = _cards(deal)
    stock = deal.stock_size
    jokers = bool((ranks == 0).any())
    wild_waste = jokers or bool((waste_after == 0).any())
    columns = stock + 1
    first = 0 if wild_waste else 1
    width = 14 - first
    gain = np.empty((len(sets.masks), columns), dtype=np.int16)
    gain[-1] = 0  # all removed: the game is over
    # The row after (at first, the full set): what a run's end there is worth (its bonus,
    # then stop or draw on), and M[set * width + waste - first, k - 1, drawn].
    end_next = np.full((1, columns), bonus[-1], dtype=np.int16)
    runs_next = np.full((width, 0, columns), _NONE, dtype=np.int16)
    triangle = np.cumsum(np.arange(POSITION_COUNT + 2), dtype=np.int16)  # 0, 1, 3, 6, ...
    pick_waste = waste_after - first
    pick_drawn = np.arange(columns)
    for n in range(POSITION_COUNT - 1, -1, -1):
        low, high = sets.bounds[n], sets.bounds[n + 1]
        count = high - low
        edges = slice(sets.edge_bounds[n], sets.edge_bounds[n + 1])
        rank = ranks[sets.edge_position[edges]]
        after = sets.edge_to[edges] - high
        depth = runs_next.shape[1] + 1
        # After each removal (waste: the card removed), the best of runs of k = 0, 1, ... more.
        value = np.empty((len(rank), depth, columns), dtype=np.int16)
        value[:, 0] = np.take(end_next, after, axis=0)
        if depth > 1:
            value[:, 1:] = np.take(runs_next, after * width + rank - first, axis=0)
        slot = np.where(rank == 0, 15, rank) if jokers else rank
        key = ((sets.edge_from[edges] - low) * 16 + slot).astype(np.uint16)
        groups, best = _best_by_group(value.reshape(len(rank), depth * columns), key)
        by_rank = np.full((count * 16, depth * columns), _NONE, dtype=np.int16)
        by_rank[groups] = best
        by_set_rank = by_rank.reshape(count, 16, depth, columns)
        by_waste = np.empty((count, width, depth, columns), dtype=np.int16)
        if wild_waste:
            np.max(by_set_rank[:, 1:14], axis=1, out=by_waste[:, 0])
        _wrap(by_set_rank, rules)
        np.maximum(by_set_rank[:, 0:13], by_set_rank[:, 2:15], out=by_waste[:, 1 - first :])
        if jokers:
            np.maximum(by_waste, by_set_rank[:, 15:16], out=by_waste)
        # Trim the run lengths no set of this row allows.
        allowed = (by_waste[:, :, :, 0] > _NONE).any(axis=(0, 1))
        depth = int(np.flatnonzero(allowed)[-1]) + 1 if allowed.any() else 0
        by_waste = by_waste[:, :, :depth]
        # Right after d draws: a run of k >= 1 from the waste after d draws, its points
        # 1 + ... + k; or no removal: stop or draw on (below).
        start = by_waste[:, pick_waste, :, pick_drawn]  # (columns, count, depth)
        if depth:
            run = (start + triangle[1 : depth + 1]).max(axis=2).T - bonus[low:high, None]
        else:
            run = np.full((count, columns), _NONE, dtype=np.int16)
        row = gain[low:high]
        np.maximum(run, 0, out=row)
        for d in range(stock - 1, -1, -1):
            np.maximum(row[:, d], row[:, d + 1] - _DRAW, out=row[:, d])
        end_next = np.empty((count, columns), dtype=np.int16)
        end_next[:, :-1] = np.maximum(row[:, 1:] - _DRAW, 0)
        end_next[:, -1] = 0
        end_next += bonus[low:high, None]
        runs_next = by_waste.reshape(count * width, depth, columns)
    return gain


def best_gain(
    table: Int16Array,
    fits: tuple[int, ...],
    tableau_ranks: tuple[int, ...],
    stock_size: int,
    removed: int,
    drawn: int,
    waste: int,
    run: int,
) -> int:
    """The best gain in traditional points from the position ``(removed, drawn, waste)`` in
    the middle of a run of ``run`` removals (``run = 0``: right after a draw or at the deal,
    where ``table`` has it). A short search over the run's removals, memoised by set and waste
    (within one search the run follows from the set)."""
    sets = _sets()
    memo: dict[int, int] = {}

    def search(removed: int, waste: int, run: int) -> int:
        if removed == ALL_POSITIONS_MASK:
            return 0
        row = sets.index[removed]
        if run == 0:
            return int(table[row, drawn])
        key = removed << 4 | waste  # the run follows from the set (one query starts it)
        known = memo.get(key)
        if known is not None:
            return known
        best = 0
        if drawn < stock_size:
            best = max(best, int(table[row, drawn + 1]) - _DRAW)
        playable = sets.exposed[row] & fits[waste]
        here = peak_bonus(removed)
        while playable:
            low = playable & -playable
            playable ^= low
            after = removed | low
            p = low.bit_length() - 1
            best = max(best, run + 1 + peak_bonus(after) - here + search(after, tableau_ranks[p], run + 1))
        memo[key] = best
        return best

    return search(removed, waste, run)
