"""The rules in one place (SPEC sections 4-7): which ranks are next to each other, which
cards a waste takes, and what the two scorings pay.

Everything else (the game, the solver, the analysis, the review, the page) asks here:
a rule written twice is a rule that can disagree with itself.

- **Adjacency.** A card goes on a waste one rank higher or lower; easy rules join the
  king and the ace. The joker (rank 0) fits every rank, and every rank fits it.
- **Standard scoring.** 500 to start, -1 for each action in effect (a removal or a draw),
  +100 for each peak emptied; never below 0.
- **Traditional scoring** (the ``T`` variant). Each removal scores its place in its run
  (1, 2, 3, ...), each draw costs 5, each peak emptied pays 15 and the last one 30 (three
  peaks: 15, 15 and then 30); it starts at 0 and may go below.
- **The run**: the removals in a row since the last draw (or the deal); the game shows it
  and its longest, and traditional scoring pays by it.
- **Every layout** (:mod:`app.engine.layout`) scores the same way with its own cards and
  peaks: its best score is 500 - its cards + 100 for each of its peaks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final

from app.engine.actions import DRAW
from app.engine.deal import GameCode, Rules
from app.engine.layout import THREE_PEAKS, Layout

RANKS: Final = range(1, 14)
"""The ranks of the deck, ace (1) to king (13)."""
WILD: Final = 0
"""The joker's rank, and the rank of a waste that takes every card (the joker, or an empty
waste)."""

START_SCORE: Final = 500
MOVE_COST: Final = 1
"""What each removal and each draw costs, in the standard scoring."""
PEAK_BONUS: Final = 100
TRADITIONAL_DRAW_COST: Final = 5
TRADITIONAL_PEAK_BONUS: Final = 15
TRADITIONAL_LAST_PEAK_BONUS: Final = 30
"""Traditional scoring: each peak emptied pays 15, the last one 30 (three peaks: 15, 15, 30)."""


# -- adjacency --------------------------------------------------------------------------------


def rank_below(rank: int, rules: Rules) -> int | None:
    """The rank just below ``rank`` (1-13): the king below the ace when king and ace are
    joined; ``None`` below an ace otherwise."""
    if rank > 1:
        return rank - 1
    return 13 if rules.king_ace_joined else None


def rank_above(rank: int, rules: Rules) -> int | None:
    """The rank just above ``rank`` (1-13): the ace above the king when king and ace are
    joined; ``None`` above a king otherwise."""
    if rank < 13:
        return rank + 1
    return 1 if rules.king_ace_joined else None


def ranks_cycle(rules: Rules) -> bool:
    """Whether the ranks form a cycle (the king next to the ace), for tables that unroll it."""
    return rank_above(13, rules) is not None


def adjacent_ranks(rank: int, rules: Rules) -> tuple[int, ...]:
    """The ranks a card of ``rank`` (1-13) may go on, and that may go on it."""
    return tuple(r for r in (rank_below(rank, rules), rank_above(rank, rules)) if r is not None)


def ranks_adjacent(a: int, b: int, rules: Rules) -> bool:
    """Whether a card of rank ``a`` may go on one of rank ``b`` (or the other way).

    Rank 0 is the joker, which fits every rank, and every rank fits it."""
    return a == WILD or b == WILD or b in adjacent_ranks(a, rules)


def playable_by_rank(ranks: Sequence[int], rules: Rules) -> tuple[int, ...]:
    """The tableau by rank: for each waste rank (index 1-13), the mask of positions whose
    card (``ranks[p]``, 0 for a joker) it takes; at index 0, a wild waste, every position."""
    table = [(1 << len(ranks)) - 1] + [0] * 13
    for waste in RANKS:
        for p, rank in enumerate(ranks):
            if ranks_adjacent(rank, waste, rules):
                table[waste] |= 1 << p
    return tuple(table)


@lru_cache(maxsize=4096)
def tableau_by_rank(code: GameCode) -> tuple[int, ...]:
    """:func:`playable_by_rank` of a code's deal, kept per code (the game, the review and the
    analysis ask for it)."""
    return playable_by_rank([card.rank for card in code.deal().tableau], code.rules)


# -- scoring ----------------------------------------------------------------------------------


def standard_score(actions: int, peaks_cleared: int) -> int:
    """The standard score after ``actions`` removals and draws in effect with
    ``peaks_cleared`` peaks emptied (before the floor at 0, which play never reaches)."""
    return START_SCORE - MOVE_COST * actions + PEAK_BONUS * peaks_cleared


def best_score(layout: Layout) -> int:
    """The best standard score of a layout: every card removed and every peak emptied with no
    draw (three peaks: 500 - 28 + 300 = 772). Each draw a win needs costs one point."""
    return standard_score(layout.count, layout.peak_count)


BEST_SCORE: Final = best_score(THREE_PEAKS)
"""The best standard score of the three peaks: 500 - 28 removals + 3 peaks, a win with no draw."""


def traditional_peak_bonus(peaks_cleared: int, peaks: int = 3) -> int:
    """Traditional scoring: what ``peaks_cleared`` of a layout's ``peaks`` emptied peaks have
    paid in all (15 each, the last 30)."""
    if peaks_cleared == peaks:
        return TRADITIONAL_PEAK_BONUS * (peaks - 1) + TRADITIONAL_LAST_PEAK_BONUS
    return TRADITIONAL_PEAK_BONUS * peaks_cleared


def peak_bonus(peaks_cleared: int, peaks: int = 3, *, traditional: bool) -> int:
    """What ``peaks_cleared`` of ``peaks`` emptied peaks have paid in all, under either scoring."""
    return traditional_peak_bonus(peaks_cleared, peaks) if traditional else PEAK_BONUS * peaks_cleared


def score(line: Sequence[int], peaks_cleared: int, peaks: int, *, traditional: bool) -> int:
    """The score of a line of actions in effect (positions, and ``DRAW`` for a draw) with
    ``peaks_cleared`` of the layout's ``peaks`` emptied, under the game's scoring.

    Standard: never below 0, though a line never holds more than 53 actions (one for each
    card of the deck and the joker), so the floor is never reached and this closed form
    equals the score counted move by move. Traditional: it starts at 0 and may go below.
    Both follow from the line alone, so an undo restores the score exactly, run included."""
    if not traditional:
        return max(0, standard_score(len(line), peaks_cleared))
    return traditional_score((a == DRAW for a in line), peaks_cleared, peaks)


def run_of(line: Sequence[int]) -> int:
    """The run at the end of a line of actions (positions, and ``DRAW`` for a draw): the
    removals in a row since its last draw (or the deal)."""
    i = len(line)
    while i and line[i - 1] != DRAW:
        i -= 1
    return len(line) - i


def longest_run(line: Iterable[int]) -> int:
    """The longest run of removals without a draw in a line of actions."""
    longest = current = 0
    for a in line:
        current = 0 if a == DRAW else current + 1
        if current > longest:
            longest = current
    return longest


def traditional_score(line: Iterable[bool], peaks_cleared: int, peaks: int = 3) -> int:
    """The traditional score of a line (``True`` for a draw, ``False`` for a removal)."""
    score = run = 0
    for is_draw in line:
        if is_draw:
            run = 0
            score -= TRADITIONAL_DRAW_COST
        else:
            run += 1
            score += run
    return score + traditional_peak_bonus(peaks_cleared, peaks)
