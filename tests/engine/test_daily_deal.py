"""The day's deal of the daily challenge (app.engine.search.daily): pinned by test vectors."""

from __future__ import annotations

import datetime as dt

import pytest

from app.engine import Game, GameCode
from app.engine.search.daily import WEEKDAY_BANDS, band, candidate, daily_code, rating
from app.engine.search.review import Difficulty
from tests.support.deals import can_win

KEY = b"test-key"
VECTORS = {  # key b"test-key": Monday 30 November to Sunday 6 December 2026 (docs/deals.md)
    dt.date(2026, 11, 30): "TP1-E-TUMVLRE",
    dt.date(2026, 12, 1): "TP1-E-QXUUGJI",
    dt.date(2026, 12, 2): "TP1-E-TOZYSKP",
    dt.date(2026, 12, 3): "TP1-E-NLJGXZF",
    dt.date(2026, 12, 4): "TP1-E-UJYRUJK",
    dt.date(2026, 12, 5): "TP1-E-ITXEXRK",
    dt.date(2026, 12, 6): "TP1-E-ZMPZZLH",
}


@pytest.mark.parametrize(("day", "code"), VECTORS.items())
def test_the_day_s_deal_is_pinned_winnable_and_of_its_weekday_s_band(day: dt.date, code: str) -> None:
    found = daily_code(KEY, day)
    assert found.text() == code
    assert rating(found) is band(day) is WEEKDAY_BANDS[day.weekday()]
    assert can_win(Game(found))  # the plain exhaustive search agrees: it can be won


def test_the_bands_go_from_easy_on_monday_to_expert_on_sunday() -> None:
    order = list(Difficulty)
    bands = [order.index(b) for b in WEEKDAY_BANDS]
    assert bands == sorted(bands) and WEEKDAY_BANDS[0] is Difficulty.EASY and WEEKDAY_BANDS[6] is Difficulty.EXPERT
    assert band(dt.date(2026, 12, 3)) is Difficulty.HARD  # a Thursday, as in the example


def test_another_key_deals_other_deals() -> None:
    other = [daily_code(b"another installation", day) for day in VECTORS]
    assert all(a.text() != b for a, b in zip(other, VECTORS.values(), strict=True))
    assert [rating(c) for c in other] == [band(day) for day in VECTORS]


def test_candidates_are_standard_easy_deals_keyed_by_day_and_key() -> None:
    day = dt.date(2026, 12, 3)
    assert candidate(KEY, day, 0) == candidate(KEY, day, 0)
    assert candidate(KEY, day, 0) != candidate(KEY, day, 1)
    assert candidate(KEY, day, 0) != candidate(KEY, day + dt.timedelta(days=1), 0)
    assert all(candidate(KEY, day, n) == GameCode.parse(candidate(KEY, day, n).text()) for n in range(20))
    assert all(candidate(KEY, day, n).text().startswith("TP1-E-") for n in range(20))
