"""Every layout (app/engine/layout.py) against the tables of docs/layouts.md, read again here
from their text, and the cover relation worked out again from the one rule."""

from __future__ import annotations

import pytest

from app.engine.layout import LAYOUTS, THREE_PEAKS, Layout, LayoutError, layout_named
from tests.support.layout_tables import SIZES, TABLES, covers_by_the_rule, read_table
from tests.support.three_peaks import COVERED_BY


@pytest.mark.parametrize("word", list(TABLES))
def test_each_layout_is_its_table(word: str) -> None:
    layout = LAYOUTS[word]
    cards = read_table(TABLES[word])
    assert [(s.row, s.column, s.height) for s in layout.spots] == cards
    assert [set(c) for c in layout.covered_by] == covers_by_the_rule(cards)
    assert (layout.count, 52 - layout.count - 1) == SIZES[word]
    # Open cards are the uncovered ones; every other card has a cover; peaks split the cards.
    assert all((s.height == 0) == (not layout.covered_by[p]) for p, s in enumerate(layout.spots))
    assert sum(m.bit_count() for m in layout.peak_masks) == layout.count
    assert layout.exposed(0) == sum(1 << p for p, s in enumerate(layout.spots) if s.height == 0)
    union = 0
    for mask in layout.peak_masks:
        assert not union & mask
        union |= mask
    assert union == layout.all_mask


def test_three_peaks_is_today_s_layout() -> None:
    assert THREE_PEAKS.covered_by == COVERED_BY
    assert THREE_PEAKS.letter == "" and next(iter(LAYOUTS)) == "three-peaks"


def test_the_layouts_shapes() -> None:
    theatre, up_down, diamonds = LAYOUTS["theatre"], LAYOUTS["up-down"], LAYOUTS["diamonds"]
    assert sum(len(c) == 1 for c in theatre.covered_by) == 6  # the gaps
    assert [m.bit_count() for m in theatre.peak_masks] == [8, 14, 8]
    assert [m.bit_count() for m in up_down.peak_masks] == [15, 15]
    assert [m.bit_count() for m in diamonds.peak_masks] == [9, 9, 9]
    # Diamonds' middle row covers both ways: a card of row 2 covers cards above and below it.
    middle = diamonds.rows[2][1]
    assert {diamonds.spots[q].row for q in diamonds.covers[middle]} == {1, 3}
    # The valley's deepest card needs its whole valley gone.
    valley = LAYOUTS["valley"]
    deepest = next(p for p, s in enumerate(valley.spots) if (s.row, s.column) == (3, 9))
    above = {q for q in range(valley.count) if valley.spots[q].peak == valley.spots[deepest].peak} - {deepest}
    removed = sum(1 << q for q in above)
    one_back = removed & ~(1 << valley.covered_by[deepest][0])
    assert valley.exposed(removed) >> deepest & 1 and not valley.exposed(one_back) >> deepest & 1


def test_layouts_are_named_leniently_and_letters_are_not_variant_letters() -> None:
    assert layout_named(" Up_Down ") is LAYOUTS["up-down"]
    with pytest.raises(LayoutError, match="not a layout"):
        layout_named("pyramid")
    letters = [layout.letter for layout in LAYOUTS.values() if layout.letter]
    assert len(set(letters)) == 4 and not set(letters) & set("OWJTECN")
    assert all(isinstance(layout, Layout) for layout in LAYOUTS.values())
