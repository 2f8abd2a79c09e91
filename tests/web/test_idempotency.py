"""The API's moves with an Idempotency-Key: a retry gets the first answer and the game moves once;
the key with another request is a 409; a bad key a 422. Across two servers on one database:
tests/store/test_kept_answers.py."""

from __future__ import annotations

import httpx
import pytest
from fastapi.testclient import TestClient

from app.engine import Game, GameCode

CODE = "TP1-E-AAAAAAB"


def new_game(client: TestClient | httpx.Client) -> str:
    game_id: str = client.post("/api/games", json={"code": CODE}).json()["id"]
    return game_id


def test_a_replayed_draw_draws_once(client: TestClient) -> None:
    game_id = new_game(client)
    key = {"Idempotency-Key": "draw-1"}
    first = client.post(f"/api/games/{game_id}/draw", headers=key)
    again = client.post(f"/api/games/{game_id}/draw", headers=key)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json() and first.json()["moves"] == 1
    assert again.headers["idempotent-replayed"] == "true" and "idempotent-replayed" not in first.headers
    assert client.get(f"/api/games/{game_id}").json()["moves"] == 1
    # Without a key, or with a new one, each draw is a draw.
    assert client.post(f"/api/games/{game_id}/draw").json()["moves"] == 2
    assert client.post(f"/api/games/{game_id}/draw", headers={"Idempotency-Key": "draw-2"}).json()["moves"] == 3


def test_a_refusal_and_a_hint_are_answered_once_too(client: TestClient) -> None:
    game_id = new_game(client)
    blocked = next(p for p in range(28) if p not in Game(GameCode.parse(CODE)).playable_positions())
    key = {"Idempotency-Key": "remove-blocked"}
    refused = [client.post(f"/api/games/{game_id}/remove", json={"position": blocked}, headers=key) for _ in "ab"]
    assert [r.status_code for r in refused] == [409, 409]
    assert refused[1].json() == refused[0].json() and refused[0].json()["error"] == "card_blocked"
    assert refused[1].headers["content-type"] == "application/problem+json"
    hints = [client.post(f"/api/games/{game_id}/hint", headers={"Idempotency-Key": "h"}) for _ in "ab"]
    assert hints[0].status_code == hints[1].status_code == 200 and hints[0].json() == hints[1].json()
    # The hint was counted once: the store's game says so.
    stored = client.app.state.store.get(game_id)  # type: ignore[attr-defined]
    assert stored.game.hints == 1


def test_the_same_key_with_another_request_is_refused(client: TestClient) -> None:
    game_id = new_game(client)
    playable = Game(GameCode.parse(CODE)).playable_positions()
    key = {"Idempotency-Key": "k-1"}
    assert client.post(f"/api/games/{game_id}/draw", headers=key).status_code == 200
    for url, body in ((f"/api/games/{game_id}/undo", None), (f"/api/games/{game_id}/remove", {"position": playable[0]})):
        reused = client.post(url, json=body, headers=key)
        assert reused.status_code == 409, reused.text
        assert reused.headers["content-type"] == "application/problem+json"
        assert reused.json()["error"] == "idempotency_key_reused" and "Idempotency-Key" in reused.json()["detail"]
    assert client.get(f"/api/games/{game_id}").json()["moves"] == 1  # nothing else was done
    other = new_game(client)  # keys are by game: the same key on another game is new there
    assert client.post(f"/api/games/{other}/draw", headers=key).json()["moves"] == 1


@pytest.mark.parametrize("key", ["", "x" * 129, "with space", "é"])
def test_a_key_not_of_its_form_is_422(client: TestClient, key: str) -> None:
    game_id = new_game(client)
    answer = client.post(f"/api/games/{game_id}/draw", headers={"Idempotency-Key": key.encode("utf-8")})
    assert answer.status_code == 422 and answer.json()["error"] == "invalid_request"
    assert client.get(f"/api/games/{game_id}").json()["moves"] == 0


def test_an_unknown_game_does_not_keep_the_key(client: TestClient) -> None:
    key = {"Idempotency-Key": "lost"}
    assert client.post("/api/games/nope/draw", headers=key).status_code == 404
    assert client.post("/api/games/nope/draw", headers=key).status_code == 404
