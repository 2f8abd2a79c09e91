"""The race's JSON API (issue 24), named exactly as the issue names it, and its refusals."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.engine import Game, GameCode
from app.store import MemoryStore
from app.store.races import MAX_RACERS
from tests.support.deals import won_deal
from tests.support.races import quick_countdown

quick = quick_countdown(0.3)


@pytest.fixture
def rival(client: TestClient) -> Iterator[TestClient]:
    with TestClient(client.app) as second:
        yield second


def make(client: TestClient, code: str | None = "TP1-E-AAAAAAB") -> dict[str, object]:
    answer = client.post("/api/races", json={"code": code} if code else None)
    assert answer.status_code == 201, answer.text
    made: dict[str, object] = answer.json()
    return made


def test_a_race_through_the_api(client: TestClient, rival: TestClient, store: MemoryStore) -> None:
    code, line = won_deal()
    made = make(client, code.text())
    assert set(made) == {"id", "code", "url", "status"}
    assert made["code"] == code.text() and made["status"] == "lobby" and made["url"] == f"/race/{made['id']}"
    race_id = made["id"]
    joined = rival.post(f"/api/races/{race_id}/join")
    assert joined.status_code == 200 and set(joined.json()) == {"game_id"}
    game_id = joined.json()["game_id"]
    assert rival.post(f"/api/races/{race_id}/join").json() == {"game_id": game_id}
    mine = client.post(f"/api/races/{race_id}/join").json()["game_id"]
    assert mine != game_id

    # Before the race runs, a move is refused (the API and the page's routes alike), nothing changes.
    for url in (f"/api/games/{game_id}/draw", f"/games/{game_id}/draw"):
        refused = rival.post(url)
        assert refused.status_code == 409 and "not started" in refused.text, url
    assert client.get(f"/api/games/{game_id}").json()["moves"] == 0

    assert rival.post(f"/api/races/{race_id}/start").status_code == 403
    started = client.post(f"/api/races/{race_id}/start")
    assert started.status_code == 200 and started.json()["status"] == "countdown"
    late = TestClient(client.app).post(f"/api/races/{race_id}/join")
    assert late.status_code == 409 and "started" in late.json()["detail"]
    assert client.post(f"/api/races/{race_id}/start").status_code == 409
    time.sleep(0.35)  # the (shortened) countdown

    for position in line:
        path = "draw" if position < 0 else "remove"
        body = None if position < 0 else {"position": position}
        assert rival.post(f"/api/games/{game_id}/{path}", json=body).status_code == 200
    client.post(f"/api/games/{mine}/draw")
    state = client.get(f"/api/races/{race_id}").json()
    assert set(state) == {"id", "code", "status", "racers"} and state["status"] == "running"
    first, second = state["racers"]
    assert set(first) == {"name", "cards_left", "score", "stock_left", "status", "hints", "place"}
    assert first == {
        "name": "Player 2", "cards_left": 0, "score": first["score"], "stock_left": first["stock_left"],
        "status": "won", "hints": 0, "place": 1,
    }  # fmt: skip
    expected = Game(code)
    expected.draw()
    assert second == {
        "name": "Player 1", "cards_left": 28, "score": expected.score, "stock_left": expected.stock_count,
        "status": "playing", "hints": 0, "place": None,
    }  # fmt: skip


def test_refusals_say_why(client: TestClient, store: MemoryStore) -> None:
    race_id = make(client)["id"]
    for _ in range(MAX_RACERS - 1):
        assert TestClient(client.app).post(f"/api/races/{race_id}/join").status_code == 200
    full = TestClient(client.app).post(f"/api/races/{race_id}/join")
    assert full.status_code == 409 and "full" in full.json()["detail"]
    assert len(client.get(f"/api/races/{race_id}").json()["racers"]) == MAX_RACERS

    for bad in ("nosuchrace00", "short", "x" * 4000, "bad%00race000", "%E2%80%AEabcdefghijk", "..%2F..%2Fetc"):
        for method, path in (("post", "join"), ("post", "start"), ("get", "")):
            answer = getattr(client, method)(f"/api/races/{bad}/{path}".rstrip("/"))
            assert answer.status_code == 404, (bad, path, answer.status_code)
            assert answer.json()["detail"] in ("No such race", "Not Found")
    assert client.post("/api/races", json={"code": "TP9-nonsense"}).status_code == 422
    assert client.post("/api/races", json={"code": "TP1-E-AAAAAAB", "extra": 1}).status_code == 422
    assert client.post("/api/races", content=b"\x00\xff", headers={"content-type": "application/json"}).status_code == 422
    hebrew = client.post(f"/api/races/{race_id}/join", headers={"Accept-Language": "he"})
    assert hebrew.status_code == 200  # the maker is seated already: their own game


def test_a_random_winnable_deal_and_rooms_per_player(client: TestClient) -> None:
    made = make(client, None)
    GameCode.parse(str(made["code"]))
    for _ in range(4):
        make(client)
    too_many = client.post("/api/races", json={"code": "TP1-E-AAAAAAB"})
    assert too_many.status_code == 429 and "open races" in too_many.json()["detail"]


def test_hints_are_refused_before_the_deal_and_after_the_finish_as_moves_are(
    client: TestClient, rival: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.store.races.TIME_LIMIT_S", 1.0)
    race_id = make(client)["id"]
    game_id = rival.post(f"/api/races/{race_id}/join").json()["game_id"]
    client.post(f"/api/races/{race_id}/join")

    def refusals(expected: str) -> None:
        move = rival.post(f"/api/games/{game_id}/draw")
        hint = rival.post(f"/api/games/{game_id}/hint")
        assert move.status_code == hint.status_code == 409
        assert hint.headers["content-type"] == move.headers["content-type"] == "application/problem+json"
        assert hint.json() == move.json() and hint.json()["error"] == expected, hint.json()
        page_move = rival.post(f"/games/{game_id}/draw", headers={"HX-Request": "true"})
        page_hint = rival.post(f"/games/{game_id}/hint", headers={"HX-Request": "true"})
        assert page_move.status_code == page_hint.status_code == 409
        assert page_hint.text == page_move.text
        assert rival.get(f"/api/games/{game_id}").json()["moves"] == 0

    refusals("race_not_started")  # the lobby
    client.post(f"/api/races/{race_id}/start")
    time.sleep(0.35)
    assert rival.post(f"/api/games/{game_id}/hint").status_code == 200  # the race runs: a hint
    time.sleep(1.0)  # the (shortened) time limit: the race is over
    assert client.get(f"/api/races/{race_id}").json()["status"] == "finished"
    refusals("race_over")


def test_the_finish_tables_time_is_the_racers_own_clock(client: TestClient, store: MemoryStore) -> None:
    """Issue 42: a racer who waits after the deal before the first card is timed from the deal
    by their own clock too, so the finish table and the game's clock show one time; the finish
    table and the API show the hints each racer used (the game's own count)."""
    code, line = won_deal()
    made = make(client, code.text())
    race_id = str(made["id"])
    game_id = client.post(f"/api/races/{race_id}/join").json()["game_id"]
    assert client.post(f"/api/races/{race_id}/start").status_code == 200
    time.sleep(0.35 + 1.1)  # the (shortened) countdown, then a second before the first card
    for index, position in enumerate(line):
        if index == 1:
            assert client.post(f"/api/games/{game_id}/hint").status_code == 200
        path = "draw" if position < 0 else "remove"
        body = None if position < 0 else {"position": position}
        assert client.post(f"/api/games/{game_id}/{path}", json=body).status_code == 200
    race = store.race(race_id)
    game = store.get(game_id)
    assert race is not None and game is not None
    racer = race.racer_of_game(game_id)
    assert racer is not None and game.game.ended_after is not None
    seconds = race.seconds_of(racer)
    assert seconds is not None and seconds >= 1.1
    assert game.game.ended_after == pytest.approx(seconds, abs=0.01)
    page = client.get(f"/race/{race_id}").text
    shown = f"{int(seconds) // 60}:{int(seconds) % 60:02d}"
    assert shown in page  # the finish table
    assert f'id="clock" datetime="PT{int(seconds)}S"' in page  # the racer's own clock, one time
    assert game.game.hints == 1
    assert '<td class="race-hints">1</td>' in page
    (racer_state,) = client.get(f"/api/races/{race_id}").json()["racers"]
    assert racer_state["hints"] == 1 and racer_state["place"] == 1


def test_a_racers_game_is_restarted_only_once_the_race_is_over(
    client: TestClient, rival: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 42: Restart on a racer's game while the race waits or runs would leave the race
    for an ordinary game, unsaid: 409, nothing dealt; once the race is over, a new game."""
    monkeypatch.setattr("app.store.races.TIME_LIMIT_S", 1.0)
    race_id = make(client)["id"]
    game_id = rival.post(f"/api/races/{race_id}/join").json()["game_id"]
    client.post(f"/api/races/{race_id}/join")
    lobby = rival.post(f"/games/{game_id}/restart", headers={"HX-Request": "true"})
    assert lobby.status_code == 409 and "not finished" in lobby.text
    client.post(f"/api/races/{race_id}/start")
    time.sleep(0.35)
    running = rival.post(f"/games/{game_id}/restart", follow_redirects=False)
    assert running.status_code == 409
    assert rival.get(f"/race/{race_id}").status_code == 200  # still in the race
    time.sleep(1.0)  # the (shortened) time limit: the race is over
    over = rival.post(f"/games/{game_id}/restart", follow_redirects=False)
    assert over.status_code in (200, 303), over.text[:300]
    assert game_id not in over.headers.get("location", "") or over.status_code == 200
