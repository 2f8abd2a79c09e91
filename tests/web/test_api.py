"""The JSON API contract."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.engine import DRAW, Game, Rules
from tests.support.deals import won_deal

CODE = "TP1-E-AAAAAAB"
STATE_KEYS = {
    "id", "code", "rules", "layout", "variants", "tableau", "waste", "stock_count", "score", "moves",
    "undo_available", "status", "peaks_cleared", "run", "longest_run", "started_at",
    "ended_after",
}


def create(client: TestClient, body: Any = None) -> dict[str, Any]:
    response = client.post("/api/games", json=body if body is not None else {"code": CODE})
    assert response.status_code == 201, response.text
    state: dict[str, Any] = response.json()
    return state


def assert_no_face_down_card(state: dict[str, Any]) -> None:
    for slot in state["tableau"]:
        if not slot["face_up"]:
            assert slot["card"] is None


def test_create_by_code_gives_the_full_state(client: TestClient) -> None:
    state = create(client, {"code": "tp1-n-aaaaaab"})
    assert set(state) == STATE_KEYS
    game = Game.from_code(CODE)
    assert state["code"] == CODE and state["rules"] == "easy"
    assert state["waste"] == game.waste.text() and state["stock_count"] == 23
    assert state["score"] == 500 and state["moves"] == 0 and state["undo_available"] == 0
    assert state["status"] == "playing" and state["peaks_cleared"] == [False, False, False]
    assert [s["position"] for s in state["tableau"]] == list(range(28))
    for slot in state["tableau"]:
        p = slot["position"]
        assert slot["face_up"] == (p >= 18) and slot["removed"] is False
        assert slot["card"] == (game.deal.tableau[p].text() if p >= 18 else None)
    assert len(state["id"]) >= 22  # 16 random bytes, URL-safe


def test_create_by_rules_or_default(client: TestClient) -> None:
    assert create(client, {"rules": "classic"})["code"].startswith("TP1-C-")
    assert create(client, {})["code"].startswith("TP1-E-")
    ids = {create(client, {})["id"] for _ in range(20)}
    assert len(ids) == 20


def test_bad_creation_bodies_are_422(client: TestClient) -> None:
    for body in (
        {"code": "TP2-E-AAAAAAB"},
        {"code": 7},
        {"rules": "hard"},
        {"code": CODE, "rules": "easy"},
        {"code": CODE, "extra": 1},
        [1, 2],
        {"code": "x" * 10_000},
    ):
        response = client.post("/api/games", json=body)
        assert response.status_code == 422, body
        assert "detail" in response.json()
    bad = client.post("/api/games", json={"code": "TP1-E-AAAA"})
    assert "'TP1-E-AAAA' is not a game code" in bad.json()["detail"]
    assert client.post("/api/games", content=b"{not json", headers={"content-type": "application/json"}).status_code == 422


def test_actions_change_the_state(client: TestClient) -> None:
    state = create(client)
    game = Game.from_code(CODE)
    position = game.playable_positions()[0]
    removed = client.post(f"/api/games/{state['id']}/remove", json={"position": position})
    assert removed.status_code == 200
    game.remove(position)
    body = removed.json()
    assert body["tableau"][position] == {
        "position": position, "row": 3, "column": 2 * (position - 18), "card": None, "face_up": False, "removed": True,
    }
    assert body["waste"] == game.waste.text() and body["score"] == 499 and body["undo_available"] == 1
    drawn = client.post(f"/api/games/{state['id']}/draw").json()
    assert drawn["stock_count"] == 22 and drawn["moves"] == 2
    undone = client.post(f"/api/games/{state['id']}/undo").json()
    assert undone["stock_count"] == 23 and undone["moves"] == 2 and undone["score"] == 499
    assert client.get(f"/api/games/{state['id']}").json() == undone
    assert_no_face_down_card(undone)


def test_refusals_are_409_and_change_nothing(client: TestClient) -> None:
    state = create(client)
    game_id = state["id"]
    game = Game.from_code(CODE)
    wrong = next(p for p in range(18, 28) if p not in game.playable_positions())
    cases = [
        ("remove", {"position": 0}, "card_blocked", "This card is blocked"),
        ("remove", {"position": wrong}, "rank_mismatch", "Rank must be one higher or lower"),
        ("undo", None, "nothing_to_undo", None),
    ]
    for action, body, error, message in cases:
        response = client.post(f"/api/games/{game_id}/{action}", json=body)
        assert response.status_code == 409
        assert response.json()["error"] == error
        if message:
            assert response.json()["detail"] == message
        assert client.get(f"/api/games/{game_id}").json() == state
    first = game.playable_positions()[0]
    client.post(f"/api/games/{game_id}/remove", json={"position": first})
    again = client.post(f"/api/games/{game_id}/remove", json={"position": first})
    assert again.status_code == 409 and again.json()["error"] == "no_card"
    for _ in range(23):
        client.post(f"/api/games/{game_id}/draw")
    empty = client.post(f"/api/games/{game_id}/draw")
    assert empty.status_code == 409 and empty.json()["error"] == "stock_empty"


def test_game_over_after_a_win(client: TestClient) -> None:
    code, line = won_deal(Rules.EASY)
    state = create(client, {"code": code.text()})
    for action in line:
        if action == DRAW:
            state = client.post(f"/api/games/{state['id']}/draw").json()
        else:
            state = client.post(f"/api/games/{state['id']}/remove", json={"position": action}).json()
    assert state["status"] == "won" and state["peaks_cleared"] == [True, True, True]
    for action in ("draw", "undo"):
        response = client.post(f"/api/games/{state['id']}/{action}")
        assert response.status_code == 409 and response.json()["error"] == "game_over"


def test_bad_positions_and_bodies_are_422(client: TestClient) -> None:
    game_id = create(client)["id"]
    for body in ({"position": 28}, {"position": -1}, {"position": "3"}, {"position": True}, {"position": 3.5}, {},
                 {"position": 3, "x": 1}, None):
        response = client.post(f"/api/games/{game_id}/remove", json=body)
        assert response.status_code == 422, body
        assert response.headers["content-type"] == "application/problem+json"
        problem = response.json()
        assert problem["status"] == 422 and problem["error"] in ("invalid_request", "bad_position"), problem
        assert problem["errors"] if problem["error"] == "invalid_request" else problem["detail"]
    assert client.get(f"/api/games/{game_id}").json()["moves"] == 0
    # JSON Schema's integer (the document's) is any number without a fraction: 3.0 is position 3.
    assert client.post(f"/api/games/{game_id}/remove", json={"position": 3.0}).json()["error"] == "card_blocked"


def test_unknown_games_are_404(client: TestClient) -> None:
    for path in ("/api/games/nope", "/api/games/" + "a" * 300):
        assert client.get(path).status_code == 404
    assert client.post("/api/games/nope/draw").status_code == 404
    assert client.post("/api/games/nope/remove", json={"position": 1}).status_code == 404


def test_huge_bodies_are_413(client: TestClient) -> None:
    response = client.post("/api/games", content=b"{" + b" " * 100_000 + b"}", headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_openapi_documents_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path in ("/api/games", "/api/games/{game_id}", "/api/games/{game_id}/remove", "/api/games/{game_id}/draw", "/api/games/{game_id}/undo"):
        assert path in schema["paths"], path
    assert "409" in schema["paths"]["/api/games/{game_id}/remove"]["post"]["responses"]
    assert client.get("/docs").status_code == 200
