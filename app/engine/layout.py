"""Layouts (SPEC section 2, and ``docs/layouts.md``): where the tableau's cards lie, who
covers whom, and which groups of cards are the peaks that pay a bonus.

Every layout follows one rule. A card sits on a grid of half-card units at ``(row,
column)`` and has a height; it is covered by the cards of the neighbouring rows (row ± 1)
whose column differs by exactly 1 and that are lower than it. The open cards (height 0)
are face up at the deal. Positions are numbered row by row, top to bottom, and left to
right in a row; sets of positions are kept as masks (bit ``p`` is position ``p``) so the
game and the solver can test exposure with one ``&``.

A :class:`Layout` is a frozen value; :data:`LAYOUTS` holds the five, three peaks (today's,
the default) first. The module's constants (``POSITION_COUNT``, ``PEAK_MASKS``, ``exposed_mask``
...) are the three peaks'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final


class LayoutError(ValueError):
    """A name or letter that is no layout."""


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a position's card lies: its row and column (half-card units) and its height
    (0: open, face up at the deal)."""

    row: int
    column: int
    height: int
    peak: int
    """The index of the peak (the group whose clearing pays the bonus) it belongs to."""


Segment = tuple[int, int, tuple[int, ...]]
"""One stretch of a row in a layout's table: (peak index, height, columns)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """A layout: ``LAYOUTS["valley"]``, ``layout.covered_by[p]``, ``layout.exposed(removed)``."""

    word: str
    """Its name in the API and the CLI: ``three-peaks``, ``diamonds``, ..."""
    letter: str
    """Its letter in a game code (``""`` for three peaks, which a code names by naming none)."""
    name: str
    """Its English name."""
    spots: tuple[Spot, ...]
    peak_count: int
    row_names: tuple[str, ...]
    """The rows' names in the board in words, top to bottom."""
    covered_by: tuple[tuple[int, ...], ...] = field(init=False)
    covers: tuple[tuple[int, ...], ...] = field(init=False)
    cover_masks: tuple[int, ...] = field(init=False)
    peak_masks: tuple[int, ...] = field(init=False)
    rows: tuple[tuple[int, ...], ...] = field(init=False)
    all_mask: int = field(init=False)
    _exposed: dict[int, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        spots = self.spots
        covered_by = tuple(
            tuple(
                q
                for q, other in enumerate(spots)
                if abs(other.row - spot.row) == 1
                and abs(other.column - spot.column) == 1
                and other.height < spot.height
            )
            for spot in spots
        )
        positions = range(len(spots))
        values = {
            "covered_by": covered_by,
            "covers": tuple(tuple(q for q in positions if p in covered_by[q]) for p in positions),
            "cover_masks": tuple(sum(1 << q for q in qs) for qs in covered_by),
            "peak_masks": tuple(
                sum(1 << p for p in positions if spots[p].peak == k) for k in range(self.peak_count)
            ),
            "rows": tuple(
                tuple(p for p in positions if spots[p].row == r)
                for r in range(max(s.row for s in spots) + 1)
            ),
            "all_mask": (1 << len(spots)) - 1,
            "_exposed": {},
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def count(self) -> int:
        """How many cards the tableau holds."""
        return len(self.spots)

    def exposed(self, removed: int) -> int:
        """The positions still on the board that no card covers, given the removed ones."""
        cached = self._exposed.get(removed)
        if cached is None:
            cached = 0
            masks = self.cover_masks
            for p in range(len(masks)):
                if not removed >> p & 1 and removed & masks[p] == masks[p]:
                    cached |= 1 << p
            if len(self._exposed) < _EXPOSED_CACHE_LIMIT:
                self._exposed[removed] = cached
        return cached

    def peaks_cleared(self, removed: int) -> tuple[bool, ...]:
        """Which peaks have had all their cards removed."""
        return tuple(removed & mask == mask for mask in self.peak_masks)

    def cleared_count(self, removed: int) -> int:
        """How many peaks have had all their cards removed (what the peak bonus pays for)."""
        return sum(removed & mask == mask for mask in self.peak_masks)

    def __str__(self) -> str:
        return self.word

    def __repr__(self) -> str:
        return f"LAYOUTS[{self.word!r}]"

    def __hash__(self) -> int:
        return hash(self.word)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        """Pickled by name (to the web app's worker processes): one value per layout."""
        return layout_named, (self.word,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and other.word == self.word


# Only the sets of removed cards that play can reach are asked for (22,932 in three peaks).
_EXPOSED_CACHE_LIMIT: Final = 1 << 18


def _layout(
    word: str, letter: str, name: str, table: tuple[tuple[Segment, ...], ...], row_names: tuple[str, ...]
) -> Layout:
    spots = tuple(
        Spot(row, column, height, peak)
        for row, segments in enumerate(table)
        for peak, height, columns in segments
        for column in columns
    )
    ordered = tuple(sorted(spots, key=lambda s: (s.row, s.column)))
    peaks = 1 + max(s.peak for s in spots)
    return Layout(word, letter, name, ordered, peaks, row_names)


def _rows(count: int) -> tuple[str, ...]:
    return tuple(f"row {n}" for n in range(1, count + 1))


THREE_PEAKS: Final = _layout(
    "three-peaks",
    "",
    "Three peaks",
    (
        ((0, 3, (3,)), (1, 3, (9,)), (2, 3, (15,))),
        ((0, 2, (2, 4)), (1, 2, (8, 10)), (2, 2, (14, 16))),
        ((0, 1, (1, 3, 5)), (1, 1, (7, 9, 11)), (2, 1, (13, 15, 17))),
        ((0, 0, (0, 2, 4)), (1, 0, (6, 8, 10)), (2, 0, (12, 14, 16, 18))),
    ),
    ("peak tops", "row 2", "row 3", "bottom row"),
)
"""28 cards, 23 in the stock: the left, middle and right peak (9, 9 and 10 cards)."""

DIAMONDS: Final = _layout(
    "diamonds",
    "D",
    "Diamonds",
    (
        ((0, 2, (2,)), (1, 2, (8,)), (2, 2, (14,))),
        ((0, 1, (1, 3)), (1, 1, (7, 9)), (2, 1, (13, 15))),
        ((0, 0, (0, 2, 4)), (1, 0, (6, 8, 10)), (2, 0, (12, 14, 16))),
        ((0, 1, (1, 3)), (1, 1, (7, 9)), (2, 1, (13, 15))),
        ((0, 2, (2,)), (1, 2, (8,)), (2, 2, (14,))),
    ),
    _rows(5),
)
"""27 cards, 24 in the stock: three diamonds of 9, the middle row open and covering both ways."""

VALLEY: Final = _layout(
    "valley",
    "V",
    "Valley",
    (
        ((0, 3, (3,)), (1, 0, (6, 8, 10, 12)), (2, 3, (15,))),
        ((0, 2, (2, 4)), (1, 1, (7, 9, 11)), (2, 2, (14, 16))),
        ((0, 1, (1, 3, 5)), (1, 2, (8, 10)), (2, 1, (13, 15, 17))),
        ((0, 0, (0, 2, 4, 6)), (1, 3, (9,)), (2, 0, (12, 14, 16, 18))),
    ),
    _rows(4),
)
"""30 cards, 21 in the stock: the left peak, the valley (an upside-down peak) and the right
peak, 10 cards each."""

THEATRE: Final = _layout(
    "theatre",
    "H",
    "Theatre",
    (
        ((0, 3, (3, 5)), (1, 3, (8, 10)), (2, 3, (13, 15))),
        ((0, 2, (2, 4)), (1, 2, (7, 9, 11)), (2, 2, (14, 16))),
        ((0, 1, (1, 3)), (1, 1, (6, 8, 10, 12)), (2, 1, (15, 17))),
        ((0, 0, (0, 2)), (1, 0, (5, 7, 9, 11, 13)), (2, 0, (16, 18))),
    ),
    _rows(4),
)
"""30 cards, 21 in the stock: the left wing (8 cards), the stage (14) and the right wing (8)."""

UP_DOWN: Final = _layout(
    "up-down",
    "U",
    "Up-down",
    (
        ((0, 4, (4,)), (1, 0, (8, 10, 12, 14, 16))),
        ((0, 3, (3, 5)), (1, 1, (9, 11, 13, 15))),
        ((0, 2, (2, 4, 6)), (1, 2, (10, 12, 14))),
        ((0, 1, (1, 3, 5, 7)), (1, 3, (11, 13))),
        ((0, 0, (0, 2, 4, 6, 8)), (1, 4, (12,))),
    ),
    _rows(5),
)
"""30 cards, 21 in the stock: the peak on the left and the upside-down peak on the right, 15
cards each."""

LAYOUTS: Final = {layout.word: layout for layout in (THREE_PEAKS, DIAMONDS, VALLEY, THEATRE, UP_DOWN)}
"""Every layout by its word, three peaks (the default) first."""
LAYOUT_LETTERS: Final = {layout.letter: layout for layout in LAYOUTS.values() if layout.letter}
MOST_POSITIONS: Final = max(layout.count for layout in LAYOUTS.values())
"""The positions of the biggest layout (30)."""


def layout_named(word: str) -> Layout:
    """The layout of a word of the API (``"up-down"``); lenient about case, spaces and ``_``."""
    key = str(word).strip().lower().replace("_", "-").replace(" ", "-")
    layout = LAYOUTS.get(key)
    if layout is None:
        raise LayoutError(f"{str(word)[:30]!r} is not a layout: expected one of {', '.join(LAYOUTS)}")
    return layout


# -- the three peaks', by name (the game and the solver of today) -------------------------------

POSITION_COUNT: Final = THREE_PEAKS.count
POSITIONS: Final = range(POSITION_COUNT)
PEAK_MASKS: Final = THREE_PEAKS.peak_masks


def row_of(position: int) -> int:
    """The row index (0 = peak tops ... 3 = bottom row) of a position."""
    if type(position) is int and 0 <= position < POSITION_COUNT:
        return THREE_PEAKS.spots[position].row
    raise ValueError(f"position {position!r} is not on the board (0 to 27)")


exposed_mask: Final = THREE_PEAKS.exposed
"""The three peaks' exposed positions, given the removed ones (on every move's path)."""


def peaks_cleared(removed: int) -> tuple[bool, ...]:
    """Which of the three peaks have had all their cards removed."""
    return THREE_PEAKS.peaks_cleared(removed)


def positions_of(mask: int) -> list[int]:
    """The positions whose bits are set in ``mask``, in increasing order."""
    return [p for p in range(mask.bit_length()) if mask >> p & 1]
