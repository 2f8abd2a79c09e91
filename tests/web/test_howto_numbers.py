"""The help page's numbers come from the rules (``app/web/routes/howto.py``, ``SCORING``): change
one there and the page says the new one, in every sentence and the table that use it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.engine.game import UNDO_LIMIT
from app.engine.rules import BEST_SCORE, MOVE_COST, PEAK_BONUS, START_SCORE
from app.web.routes import howto


def test_the_numbers_are_the_rules() -> None:
    assert howto.SCORING["start"] == START_SCORE
    assert howto.SCORING["best"] == BEST_SCORE == START_SCORE - MOVE_COST * 28 + 3 * PEAK_BONUS
    assert howto.SCORING["all_drawn"] == BEST_SCORE - MOVE_COST * howto.SCORING["stock"]
    assert howto.SCORING["undo_limit"] == UNDO_LIMIT


def test_the_page_says_the_numbers_it_is_given(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    told = {**howto.SCORING, "start": 612, "move_cost": 7, "peak_bonus": 130, "best": 901, "undo_limit": 42}
    monkeypatch.setattr(howto, "SCORING", told)
    page = client.get("/how-to-play").text
    assert "The score starts at 612 and never goes below 0." in page
    assert page.count('<span dir="ltr">\u22127</span>') == 2 and '<span dir="ltr">+130</span>' in page
    assert "scores 612 \u2212 moves + 300: at most 901 (28 removals" in page
    assert "up to the last 42:" in page
    he = client.get("/how-to-play", headers={"Accept-Language": "he"}).text
    assert "612" in he and "901" in he and "500" not in he
