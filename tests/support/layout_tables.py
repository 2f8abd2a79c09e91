"""The layouts' tables as docs/layouts.md (and issue 25) write them, read again from their
text, and the cover relation worked out again from the one rule: the layouts' tests and the
solver's plain reference search use these, not the engine's own tables. :func:`plain` is that
search on any layout."""

from __future__ import annotations

import re

from app.engine import GameCode, Rules

# The tables as docs/layouts.md (and issue 25) write them: a row's stretches, each
# "columns (height)"; "…" continues a step of 2.
TABLES = {
    "three-peaks": ["3, 9, 15 (h3)", "2, 4, 8, 10, 14, 16 (h2)", "1, 3, 5, …, 17 (h1)", "0, 2, 4, …, 18 (open)"],
    "diamonds": [
        "2, 8, 14 (h2)",
        "1, 3, 7, 9, 13, 15 (h1)",
        "0, 2, 4, …, 16 (open)",
        "1, 3, 7, 9, 13, 15 (h1)",
        "2, 8, 14 (h2)",
    ],
    "valley": [
        "3 (h3); 6, 8, 10, 12 (open); 15 (h3)",
        "2, 4 (h2); 7, 9, 11 (h1); 14, 16 (h2)",
        "1, 3, 5 (h1); 8, 10 (h2); 13, 15, 17 (h1)",
        "0, 2, 4, 6 (open); 9 (h3); 12, 14, 16, 18 (open)",
    ],
    "theatre": [
        "3, 5, 8, 10, 13, 15 (h3)",
        "2, 4, 7, 9, 11, 14, 16 (h2)",
        "1, 3, 6, 8, 10, 12, 15, 17 (h1)",
        "0, 2, 5, 7, 9, 11, 13, 16, 18 (open)",
    ],
    "up-down": [
        "4 (h4); 8, 10, 12, 14, 16 (open)",
        "3, 5 (h3); 9, 11, 13, 15 (h1)",
        "2, 4, 6, 10, 12, 14 (h2)",
        "1, 3, 5, 7 (h1); 11, 13 (h3)",
        "0, 2, 4, 6, 8 (open); 12 (h4)",
    ],
}
SIZES = {"three-peaks": (28, 23), "diamonds": (27, 24), "valley": (30, 21), "theatre": (30, 21), "up-down": (30, 21)}


def read_table(rows: list[str]) -> list[tuple[int, int, int]]:
    """(row, column, height) of every card, row by row and left to right."""
    cards = []
    for row, text in enumerate(rows):
        for stretch in text.split(";"):
            match = re.fullmatch(r"\s*(.+?) \((open|h(\d))\)\s*", stretch)
            assert match, stretch
            height = 0 if match.group(2) == "open" else int(match.group(3))
            items = [item.strip() for item in match.group(1).split(",")]
            columns: list[int] = []
            for i, item in enumerate(items):
                if item == "…":
                    last, end = columns[-1], int(items[i + 1])
                    columns.extend(range(last + 2, end, 2))
                else:
                    columns.append(int(item))
            cards.extend((row, column, height) for column in columns)
    return sorted(cards)


def covers_by_the_rule(cards: list[tuple[int, int, int]]) -> list[set[int]]:
    return [
        {q for q, (r2, c2, h2) in enumerate(cards) if abs(r2 - r) == 1 and abs(c2 - c) == 1 and h2 < h}
        for (r, c, h) in cards
    ]


def tables(word: str) -> tuple[list[tuple[int, int, int]], list[int]]:
    """A layout's cards (row, column, height), row by row and left to right, and the mask
    of the cards that cover each, from its table alone."""
    cards = read_table(TABLES[word])
    return cards, [sum(1 << q for q in covers) for covers in covers_by_the_rule(cards)]


def fits(a: int, b: int, rules: Rules) -> bool:
    """Rank 0 (the joker, or an empty waste) fits every rank; K and A only in easy rules."""
    return a == 0 or b == 0 or abs(a - b) == 1 or (rules is Rules.EASY and {a, b} == {1, 13})


def plain(code: GameCode, removed: int, drawn: int, waste: int) -> tuple[bool, int]:
    """From a position, by visiting every reachable exact position: whether it can be won,
    and the best standard score any position shows (a win's, or the highest reached)."""
    cards, covered_by = tables(code.layout.word)
    n = len(cards)
    full = (1 << n) - 1
    peaks: dict[int, int] = {}
    for p, spot in enumerate(code.layout.spots):  # the groups are the layout's choice
        peaks[spot.peak] = peaks.get(spot.peak, 0) | 1 << p
    deal = code.deal()
    ranks = [c.rank for c in deal.tableau]
    stock = [c.rank for c in deal.stock]
    seen, todo, won, best = set(), [(removed, drawn, waste)], False, 0
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        removed, drawn, waste = state
        cleared = sum(removed & m == m for m in peaks.values())
        best = max(best, 500 - removed.bit_count() - drawn + 100 * cleared)
        if removed == full:
            won = True
            continue
        for p in range(n):
            if not removed >> p & 1 and removed & covered_by[p] == covered_by[p] and fits(ranks[p], waste, code.rules):
                todo.append((removed | 1 << p, drawn, ranks[p]))
        if drawn < len(stock):
            todo.append((removed, drawn + 1, stock[drawn]))
    return won, best
