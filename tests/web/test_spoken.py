"""What a screen reader hears of the board (issue 30, item 11): after a draw, whether a card can
be played now; with open peaks, which face-up cards are still covered."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.engine import Game, GameCode
from tests.support.catalogs import po
from tests.support.pages import HX, game_id_of, text_of

LABEL = re.compile(r'<button class="card face [^"]*" id="card-(\d+)"[^>]*aria-label="([^"]*)"')


def test_a_draw_says_whether_a_card_can_be_played_now(client: TestClient) -> None:
    code = GameCode.parse("TP1-E-AAAAAAB")
    game = Game(code)
    game_id = game_id_of(client.get(f"/g/{code.text()}").text)
    said = set()
    for _ in range(12):
        response = client.post(f"/games/{game_id}/draw", headers=HX)
        game.draw()
        status = text_of(response.text, "status")
        playable = game.playable_positions()
        if playable:
            names = [game.deal.tableau[p].words() for p in playable]
            assert "Can be played now: " in status and all(name in status for name in names), status
            said.add("some")
        else:
            assert status.endswith("No card can be played now: draw from the stock."), status
            said.add("none")
        assert 'role="status" aria-live="polite"' in response.text
    assert said == {"some", "none"}, "both answers were heard"


@pytest.mark.parametrize("lang", ["en", "he", "uk", "th"])
def test_open_peaks_name_a_covered_card_covered(client: TestClient, lang: str) -> None:
    code = GameCode.parse("TP1-EO-AAAAAAB")
    game = Game(code)
    client.cookies.set("tp_lang", lang)
    labels = dict(LABEL.findall(client.get(f"/g/{code.text()}").text))
    assert len(labels) == 28  # open peaks: every card face up
    suffix = po(lang, "%(card)s, covered").replace("%(card)s", "")
    for position, label in labels.items():
        if game.is_exposed(int(position)):
            assert suffix not in label, (position, label)
        else:
            assert label.endswith(suffix) and len(label) > len(suffix), (position, label)
    assert sum(label.endswith(suffix) for label in labels.values()) == 18  # the 18 above the bottom row
