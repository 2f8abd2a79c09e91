"""Reference searches for checking the solver, written from the rules with none of its tricks.

* :func:`brute_force` plays on copies of :class:`Game` with the engine's own moves and
  remembers only exact positions (removed cards, cards drawn, waste card) already
  seen. Exhaustive, so only for positions with a few cards left.
* :func:`plain_search` is the same search on bare numbers, fast enough for whole deals
  (a second or so for a deal with no win).
"""

from __future__ import annotations

import sys

from app.engine.deal import Deal, Rules
from app.engine.game import Game
from tests.support.three_peaks import COVERED_BY

FULL = (1 << 28) - 1


def brute_force(game: Game) -> bool:
    """Whether some sequence of the engine's moves from ``game`` wins."""
    seen: set[tuple[int, int, str]] = set()

    def search(g: Game) -> bool:
        if g.is_over:
            return True
        state = (g.removed_mask, g.drawn, g.waste.text())
        if state in seen:
            return False
        seen.add(state)
        for position in g.playable_positions():
            child = g.copy()
            child.remove(position)
            if search(child):
                return True
        if g.can_draw():
            child = g.copy()
            child.draw()
            if search(child):
                return True
        return False

    return search(game.copy())


def _fits(a: int, b: int, rules: Rules) -> bool:
    """docs/variants.md too: rank 0 (the joker, or an empty waste) fits every rank both ways."""
    if a == 0 or b == 0 or abs(a - b) == 1:
        return True
    return rules is Rules.EASY and {a, b} == {1, 13}


def plain_search(deal: Deal, rules: Rules, removed: int = 0, drawn: int = 0,
                 waste: int | None = None) -> bool:
    """Whether the position can be won: every reachable exact position is tried."""
    ranks = [card.rank for card in deal.tableau]
    stock = [card.rank for card in deal.stock]
    covered_by = [sum(1 << q for q in COVERED_BY[p]) for p in range(28)]
    seen: set[tuple[int, int, int]] = set()
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 1000))

    def search(removed: int, drawn: int, waste: int) -> bool:
        if removed == FULL:
            return True
        if (removed, drawn, waste) in seen:
            return False
        seen.add((removed, drawn, waste))
        for p in range(28):
            if (
                not removed >> p & 1
                and removed & covered_by[p] == covered_by[p]
                and _fits(ranks[p], waste, rules)
                and search(removed | 1 << p, drawn, ranks[p])
            ):
                return True
        return drawn < len(stock) and search(removed, drawn + 1, stock[drawn])

    try:
        dealt = 0 if deal.waste is None else deal.waste.rank  # an empty waste (variant W) is wild
        return search(removed, drawn, dealt if waste is None else waste)
    finally:
        sys.setrecursionlimit(old_limit)


def brute_force_best(game: Game) -> tuple[int | None, int]:
    """The best final score of a win from ``game`` (``None`` without a win) and the
    highest score any position reachable from it shows (itself included)."""
    memo: dict[tuple[int, int, str], tuple[int | None, int]] = {}

    def search(g: Game) -> tuple[int | None, int]:
        # Scores relative to g's: (best gain to a win, best gain to any position).
        if g.is_over:
            return 0, 0
        state = (g.removed_mask, g.drawn, g.waste.text())
        if state in memo:
            return memo[state]
        win: int | None = None
        reach = 0
        children = []
        for position in g.playable_positions():
            child = g.copy()
            child.remove(position)
            children.append(child)
        if g.can_draw():
            child = g.copy()
            child.draw()
            children.append(child)
        for child in children:
            gain = child.score - g.score
            child_win, child_reach = search(child)
            if child_win is not None and (win is None or gain + child_win > win):
                win = gain + child_win
            reach = max(reach, gain + child_reach)
        memo[state] = (win, reach)
        return win, reach

    win, reach = search(game.copy())
    return (None if win is None else game.score + win), game.score + reach


def plain_best(deal: Deal, rules: Rules) -> tuple[int | None, int]:
    """From the deal's start: the best score of a win (``None`` without one) and the highest
    score any reachable position shows. Every reachable exact position is visited once; a
    position's score follows from it alone (500, -1 per card removed or drawn, +100 per
    emptied peak), whatever line led there."""
    ranks = [card.rank for card in deal.tableau]
    stock = [card.rank for card in deal.stock]
    covered_by = [sum(1 << q for q in COVERED_BY[p]) for p in range(28)]
    peaks = [_peak_mask(top) for top in range(3)]
    seen: set[tuple[int, int, int]] = set()
    todo = [(0, 0, deal.waste.rank)]
    best_win: int | None = None
    best = 0
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        removed, drawn, waste = state
        score = 500 - removed.bit_count() - drawn + 100 * sum(removed & m == m for m in peaks)
        best = max(best, score)
        if removed == FULL:
            best_win = score if best_win is None else max(best_win, score)
            continue
        for p in range(28):
            if (
                not removed >> p & 1
                and removed & covered_by[p] == covered_by[p]
                and _fits(ranks[p], waste, rules)
            ):
                todo.append((removed | 1 << p, drawn, ranks[p]))
        if drawn < len(stock):
            todo.append((removed, drawn + 1, stock[drawn]))
    return best_win, best


def _peak_mask(top: int) -> int:
    """A peak: its top and every card that covers it, however far down (SPEC section 2)."""
    mask, todo = 0, [top]
    while todo:
        p = todo.pop()
        if not mask >> p & 1:
            mask |= 1 << p
            todo.extend(COVERED_BY[p])
    return mask


TRADITIONAL_BONUS = (0, 15, 30, 60)
"""docs/variants.md section 5: the peaks pay 15, 15 and 30, in whatever order cleared."""


def plain_traditional(deal: Deal, rules: Rules, removed: int, drawn: int, waste: int,
                      run: int) -> tuple[bool, int, int | None]:
    """Under traditional scoring (docs/variants.md section 5), from the position with ``run``
    removals made since the last draw: whether it can be won, the best gain in points any
    line reaches (stopping at any moment, so at least 0), and the best gain of a win
    (``None`` without one). Every exact position ``(removed, drawn, waste, run)`` is tried."""
    ranks = [card.rank for card in deal.tableau]
    stock = [card.rank for card in deal.stock]
    covered_by = [sum(1 << q for q in COVERED_BY[p]) for p in range(28)]
    peaks = [_peak_mask(top) for top in range(3)]
    seen: dict[tuple[int, int, int, int], tuple[int, int | None]] = {}
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 2000))

    def bonus(removed: int) -> int:
        return TRADITIONAL_BONUS[sum(removed & m == m for m in peaks)]

    def search(removed: int, drawn: int, waste: int, run: int) -> tuple[int, int | None]:
        if removed == FULL:
            return 0, 0
        key = (removed, drawn, waste, run)
        if key in seen:
            return seen[key]
        best, win = 0, None
        for p in range(28):
            if (
                not removed >> p & 1
                and removed & covered_by[p] == covered_by[p]
                and _fits(ranks[p], waste, rules)
            ):
                points = run + 1 + bonus(removed | 1 << p) - bonus(removed)
                b, w = search(removed | 1 << p, drawn, ranks[p], run + 1)
                best = max(best, points + b)
                if w is not None and (win is None or points + w > win):
                    win = points + w
        if drawn < len(stock):
            b, w = search(removed, drawn + 1, stock[drawn], 0)
            best = max(best, b - 5)
            if w is not None and (win is None or w - 5 > win):
                win = w - 5
        seen[key] = (best, win)
        return best, win

    try:
        best, win = search(removed, drawn, waste, run)
    finally:
        sys.setrecursionlimit(old_limit)
    return win is not None, best, win
