"""The 28-position layout: rows, who covers whom, the three peaks (SPEC section 2).

Positions are numbered row by row, left to right: peak tops 0-2, row 2 3-8,
row 3 9-17, bottom row 18-27. Sets of positions are kept as 28-bit masks
(bit ``p`` is position ``p``) so the game and the solver can test exposure
with one ``&``.
"""

from __future__ import annotations

from typing import Final

POSITION_COUNT: Final = 28
POSITIONS: Final = range(POSITION_COUNT)
ALL_POSITIONS_MASK: Final = (1 << POSITION_COUNT) - 1

ROWS: Final[tuple[tuple[int, ...], ...]] = (
    (0, 1, 2),
    tuple(range(3, 9)),
    tuple(range(9, 18)),
    tuple(range(18, 28)),
)
"""The four rows, top (peak tops) to bottom."""

ROW_NAMES: Final = ("peak tops", "row 2", "row 3", "bottom row")


def _covered_by() -> tuple[tuple[int, ...], ...]:
    covers: list[tuple[int, ...]] = [()] * POSITION_COUNT
    for p in range(3):
        covers[p] = (3 + 2 * p, 4 + 2 * p)
    for k in range(6):
        p, i = divmod(k, 2)
        covers[3 + k] = (9 + 3 * p + i, 10 + 3 * p + i)
    for k in range(9):
        covers[9 + k] = (18 + k, 19 + k)
    return tuple(covers)


COVERED_BY: Final = _covered_by()
"""``COVERED_BY[p]``: the positions of the cards that cover position ``p`` (none for the bottom row)."""

COVERS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(q for q in POSITIONS if p in COVERED_BY[q]) for p in POSITIONS
)
"""``COVERS[p]``: the positions that the card at ``p`` covers (the inverse of ``COVERED_BY``)."""

COVER_MASKS: Final[tuple[int, ...]] = tuple(
    sum(1 << q for q in COVERED_BY[p]) for p in POSITIONS
)

PEAKS: Final[tuple[frozenset[int], ...]] = (
    frozenset({0, 3, 4, 9, 10, 11, 18, 19, 20}),
    frozenset({1, 5, 6, 12, 13, 14, 21, 22, 23}),
    frozenset({2, 7, 8, 15, 16, 17, 24, 25, 26, 27}),
)
"""Left, middle and right peak, for the +100 bonus (9, 9 and 10 positions)."""

PEAK_MASKS: Final[tuple[int, ...]] = tuple(sum(1 << p for p in peak) for peak in PEAKS)


def row_of(position: int) -> int:
    """The row index (0 = peak tops ... 3 = bottom row) of a position."""
    for index, row in enumerate(ROWS):
        if position in row:
            return index
    raise ValueError(f"position {position!r} is not on the board (0 to 27)")


def exposed_mask(removed: int) -> int:
    """The positions still on the board that no card covers, given the removed ones."""
    cached = _EXPOSED.get(removed)
    if cached is None:
        cached = 0
        for p in POSITIONS:
            if not removed >> p & 1 and removed & COVER_MASKS[p] == COVER_MASKS[p]:
                cached |= 1 << p
        if len(_EXPOSED) < _EXPOSED_CACHE_LIMIT:
            _EXPOSED[removed] = cached
    return cached


# Only 22,932 sets of removed cards can arise in play; the cache holds them all.
_EXPOSED_CACHE_LIMIT: Final = 1 << 16
_EXPOSED: dict[int, int] = {}


def peaks_cleared(removed: int) -> tuple[bool, bool, bool]:
    """Which of the three peaks have had all their cards removed."""
    left, middle, right = PEAK_MASKS
    return (removed & left == left, removed & middle == middle, removed & right == right)


def positions_of(mask: int) -> list[int]:
    """The positions whose bits are set in ``mask``, in increasing order."""
    return [p for p in POSITIONS if mask >> p & 1]
