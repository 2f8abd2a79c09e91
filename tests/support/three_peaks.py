"""The three peaks' tables by name, for the tests that read them (the app asks ``THREE_PEAKS``,
the :class:`app.engine.layout.Layout`, itself)."""

from __future__ import annotations

from typing import Final

from app.engine.layout import PEAK_MASKS, POSITIONS, THREE_PEAKS

ALL_POSITIONS_MASK: Final = THREE_PEAKS.all_mask

ROWS: Final = THREE_PEAKS.rows
"""The four rows, top (peak tops) to bottom."""

ROW_NAMES: Final = THREE_PEAKS.row_names

COVERED_BY: Final = THREE_PEAKS.covered_by
"""``COVERED_BY[p]``: the positions of the cards that cover position ``p`` (none for the bottom row)."""

COVERS: Final = THREE_PEAKS.covers
"""``COVERS[p]``: the positions that the card at ``p`` covers (the inverse of ``COVERED_BY``)."""

COVER_MASKS: Final = THREE_PEAKS.cover_masks

PEAKS: Final[tuple[frozenset[int], ...]] = tuple(
    frozenset(p for p in POSITIONS if mask >> p & 1) for mask in PEAK_MASKS
)
"""Left, middle and right peak, for the peak bonus (9, 9 and 10 positions)."""
