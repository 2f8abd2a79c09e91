"""The layout (SPEC section 2): rows, who covers whom, peaks, exposure."""

from __future__ import annotations

import pytest

from app.engine.layout import PEAK_MASKS, POSITION_COUNT, exposed_mask, peaks_cleared, positions_of, row_of
from tests.support.three_peaks import (
    ALL_POSITIONS_MASK,
    COVER_MASKS,
    COVERED_BY,
    COVERS,
    PEAKS,
    ROW_NAMES,
    ROWS,
)


def spec_covered_by(position: int) -> set[int]:
    """SPEC section 2's formulas, written out again independently."""
    if 18 <= position <= 27:
        return set()
    if 9 <= position <= 17:
        k = position - 9
        return {18 + k, 19 + k}
    if 3 <= position <= 8:
        k = position - 3
        p, i = k // 2, k % 2
        return {9 + 3 * p + i, 10 + 3 * p + i}
    return {3 + 2 * position, 4 + 2 * position}


def test_rows_are_numbered_row_by_row() -> None:
    assert [len(row) for row in ROWS] == [3, 6, 9, 10]
    expected_rows = ((0, 1, 2), (3, 4, 5, 6, 7, 8), tuple(range(9, 18)), tuple(range(18, 28)))
    assert expected_rows == ROWS
    assert [p for row in ROWS for p in row] == list(range(28))
    assert POSITION_COUNT == 28
    assert ROW_NAMES == ("peak tops", "row 2", "row 3", "bottom row")


@pytest.mark.parametrize("position", range(28))
def test_covered_by_follows_spec_formulas(position: int) -> None:
    assert set(COVERED_BY[position]) == spec_covered_by(position)
    assert len(COVERED_BY[position]) == (0 if position >= 18 else 2)


@pytest.mark.parametrize("position", range(18))
def test_covering_cards_are_in_the_next_row(position: int) -> None:
    row = row_of(position)
    assert {row_of(q) for q in COVERED_BY[position]} == {row + 1}


def test_some_covers_written_out() -> None:
    assert COVERED_BY[0] == (3, 4)
    assert COVERED_BY[1] == (5, 6)
    assert COVERED_BY[2] == (7, 8)
    assert COVERED_BY[3] == (9, 10)
    assert COVERED_BY[4] == (10, 11)
    assert COVERED_BY[5] == (12, 13)
    assert COVERED_BY[8] == (16, 17)
    assert COVERED_BY[9] == (18, 19)
    assert COVERED_BY[17] == (26, 27)


def test_covers_is_the_inverse_and_masks_agree() -> None:
    for p in range(28):
        for q in range(28):
            assert (q in COVERS[p]) == (p in COVERED_BY[q])
        assert sum(1 << q for q in COVERED_BY[p]) == COVER_MASKS[p]
    # Row 3 and bottom cards (except the ends) cover two cards; peak tops cover none.
    assert [len(COVERS[p]) for p in (0, 1, 2)] == [0, 0, 0]
    assert COVERS[18] == (9,) and COVERS[27] == (17,) and COVERS[19] == (9, 10)


def test_peaks_sizes_and_members() -> None:
    assert [len(peak) for peak in PEAKS] == [9, 9, 10]
    assert PEAKS[0] == {0, 3, 4, 9, 10, 11, 18, 19, 20}
    assert PEAKS[1] == {1, 5, 6, 12, 13, 14, 21, 22, 23}
    assert PEAKS[2] == {2, 7, 8, 15, 16, 17, 24, 25, 26, 27}
    assert set().union(*PEAKS) == set(range(28))
    assert sum(len(peak) for peak in PEAKS) == 28
    assert tuple(sum(1 << p for p in peak) for peak in PEAKS) == PEAK_MASKS
    assert PEAK_MASKS[0] | PEAK_MASKS[1] | PEAK_MASKS[2] == ALL_POSITIONS_MASK


def test_peaks_cleared() -> None:
    assert peaks_cleared(0) == (False, False, False)
    assert peaks_cleared(PEAK_MASKS[1]) == (False, True, False)
    assert peaks_cleared(PEAK_MASKS[0] | PEAK_MASKS[2]) == (True, False, True)
    assert peaks_cleared(ALL_POSITIONS_MASK) == (True, True, True)
    assert peaks_cleared(ALL_POSITIONS_MASK & ~(1 << 27)) == (True, True, False)


def test_exposure_at_the_deal_is_the_bottom_row() -> None:
    assert positions_of(exposed_mask(0)) == list(range(18, 28))
    assert exposed_mask(ALL_POSITIONS_MASK) == 0


def test_exposure_when_covering_cards_are_removed() -> None:
    removed = (1 << 18) | (1 << 19)
    assert positions_of(exposed_mask(removed)) == [9, *range(20, 28)]
    removed |= 1 << 20
    assert positions_of(exposed_mask(removed)) == [9, 10, *range(21, 28)]
    # One covering card gone is not enough.
    assert not exposed_mask(1 << 19) >> 9 & 1


def brute_exposed(removed: int) -> int:
    mask = 0
    for p in range(28):
        if not removed >> p & 1 and all(removed >> q & 1 for q in spec_covered_by(p)):
            mask |= 1 << p
    return mask


def reachable_removed_sets() -> set[int]:
    seen = {0}
    frontier = [0]
    while frontier:
        following = []
        for removed in frontier:
            for p in positions_of(exposed_mask(removed)):
                after = removed | 1 << p
                if after not in seen:
                    seen.add(after)
                    following.append(after)
        frontier = following
    return seen


def test_every_reachable_removed_set_has_spec_exposure() -> None:
    sets = reachable_removed_sets()
    # layout.py's cache comment counts them; the cache must be able to hold them all.
    assert len(sets) == 22_932
    for removed in sets:
        assert exposed_mask(removed) == brute_exposed(removed)


def test_row_of_and_positions_of() -> None:
    assert [row_of(p) for p in (0, 2, 3, 8, 9, 17, 18, 27)] == [0, 0, 1, 1, 2, 2, 3, 3]
    with pytest.raises(ValueError):
        row_of(28)
    assert positions_of(0) == []
    assert positions_of(0b1011) == [0, 1, 3]
