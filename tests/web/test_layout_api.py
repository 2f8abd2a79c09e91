"""The JSON API on every layout (issue 25): dealt by code or by name, the state names its
layout and gives each position its row and column, and a game plays to its end."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.engine import GameCode
from app.engine.layout import LAYOUTS
from app.engine.search.analysis import analyse


def test_a_random_deal_of_each_layout_names_it_and_places_its_positions(client: TestClient) -> None:
    for word, layout in LAYOUTS.items():
        state = client.post("/api/games", json={"rules": "classic", "layout": word}).json()
        assert state["layout"] == word and GameCode.parse(state["code"]).layout is layout
        assert [(s["position"], s["row"], s["column"]) for s in state["tableau"]] == [
            (p, spot.row, spot.column) for p, spot in enumerate(layout.spots)
        ]
        assert state["stock_count"] == 52 - layout.count - 1
        assert len(state["peaks_cleared"]) == layout.peak_count
        face_up = {s["position"] for s in state["tableau"] if s["face_up"]}
        assert face_up == {p for p, spot in enumerate(layout.spots) if spot.height == 0}
    today = client.post("/api/games", json={"code": "TP1-E-AAAAAAB"}).json()
    assert today["layout"] == "three-peaks" and len(today["tableau"]) == 28


def test_a_layout_game_plays_to_a_win_through_the_api(client: TestClient) -> None:
    code = GameCode.parse("TP1-EV-AAAAAAD")
    analysis = analyse(code)
    line = analysis.winning_line(0, 0, analysis.waste_after[0])
    assert line is not None
    state = client.post("/api/games", json={"code": code.text()}).json()
    for action in line:
        if action.position is None:
            state = client.post(f"/api/games/{state['id']}/draw").json()
        else:
            state = client.post(f"/api/games/{state['id']}/remove", json={"position": action.position}).json()
    assert state["status"] == "won" and state["peaks_cleared"] == [True, True, True]
    assert max(s["position"] for s in state["tableau"]) == 29


def test_bad_layouts_and_positions_off_the_layout_are_422(client: TestClient) -> None:
    for body in ({"layout": "pyramid"}, {"code": "TP1-E-AAAAAAB", "layout": "valley"}, {"layout": 3}):
        assert client.post("/api/games", json=body).status_code == 422, body
    three = client.post("/api/games", json={}).json()
    for position in (28, 29, 30):
        response = client.post(f"/api/games/{three['id']}/remove", json={"position": position})
        assert (response.status_code == 422 and "not on the board" in response.text) or position == 30
    assert client.get(f"/api/games/{three['id']}").json()["moves"] == 0
    assert client.post("/api/games", json={"code": "TP1-EVD-AAAAAAB"}).status_code == 422


def test_a_random_deal_takes_rules_layout_and_variants_together(client: TestClient) -> None:
    for word, layout in LAYOUTS.items():
        body = {"rules": "classic", "layout": word, "variants": ["empty_waste", "joker"]}
        response = client.post("/api/games", json=body)
        assert response.status_code == 201 or response.status_code == 200, response.text
        state = response.json()
        code = GameCode.parse(state["code"])
        assert code.layout is layout and code.rules.word == "classic"
        assert code.variants.empty_waste and code.variants.joker and state["layout"] == word
        assert code.text().startswith(f"TP1-C{layout.letter}WJ-")
        assert state["stock_count"] == 52 + 1 - layout.count  # the joker joins, no waste card
        assert [(s["row"], s["column"]) for s in state["tableau"]] == [(s.row, s.column) for s in layout.spots]
